import LiveBridgeCore
import LiveBridgeNet

/// Words a session failure for a printer owner: the MQTT layer's message (what happened) plus
/// which config key to change.
enum BambuConnectionProblem {
    /// The `/health` text for `error`.
    static func message(for error: MQTTSessionError, configuration: BambuPrinterConfiguration) -> String {
        let path = configuration.configPath
        switch error.code {
        case .notAuthorized, .badCredentials:
            return
                "printer \(configuration.serial) refused the access code: \(error.message) Check \(path).accessCode: "
                + "it must be the printer's current LAN access code (printer screen, Settings → WLAN / LAN Only; "
                + "it changes when LAN-only mode is switched)."
        case .certificatePinMismatch:
            return error.message + " (\(path).fingerprint)"
        case .certificateChanged:
            return "printer certificate changed — firmware update? " + error.message
        case .tlsHandshakeFailed, .certificateUntrusted:
            return error.message + " Is \(configuration.host):\(configuration.port) this printer (LAN-only mode on)?"
        case .connectionRefused, .networkUnreachable, .timedOut, .hostNotFound:
            return "printer \(configuration.serial) unreachable: \(error.message)"
        default:
            return error.message
        }
    }

    /// One log line per new kind of failure (repeats are quiet; the session logs each at debug).
    static func log(_ error: MQTTSessionError, configuration: BambuPrinterConfiguration, logger: Logger) {
        let path = configuration.configPath
        switch error.code {
        case .certificateChanged, .certificatePinMismatch:
            let presented = error.presentedFingerprint?.colonHex ?? "unknown"
            let text =
                error.code == .certificateChanged
                ? "printer certificate changed since it was first trusted (firmware update, or not the printer); "
                    + "connection refused before the access code was sent"
                : "printer certificate does not match the pinned fingerprint; connection refused before the access "
                    + "code was sent"
            logger.error(
                text,
                [
                    "new_fingerprint": presented,
                    "accept": "set \(path).certificateSHA256: \"\(presented)\" (or delete the stored pin) if the "
                        + "change is expected",
                    "detail": error.message,
                ])
        case .notAuthorized, .badCredentials:
            logger.error(
                "printer refused the access code; not retrying more often than every 30 s",
                ["fix": "check \(path).accessCode", "detail": error.message])
        default:
            if error.isConfigurationProblem {
                logger.error("cannot connect to the printer", ["detail": error.message])
            } else {
                logger.warning("printer unreachable; retrying with backoff", ["detail": error.message])
            }
        }
    }
}
