import CMosquitto
import Glibc

/// Turns libmosquitto return codes, `errno`, CONNACK codes, certificate verdicts and OpenSSL log
/// lines into user-facing `MQTTSessionError`s for one endpoint.
///
/// libmosquitto reports most failures as a bare code (`MOSQ_ERR_TLS`, `MOSQ_ERR_ERRNO`); the
/// useful detail lives elsewhere — in `errno`, in the CONNACK code passed to `on_connect`, in our
/// certificate verifier, or only in its log callback (OpenSSL errors). This gathers them.
struct MQTTFailureClassifier: Sendable {
    /// Which part of the connection failed.
    enum Phase: Sendable {
        /// TCP connect, TLS handshake, CONNECT/CONNACK.
        case connecting
        /// After CONNACK 0.
        case connected
    }

    /// The configured host, for DNS messages.
    var host: String
    /// `host:port`.
    var endpoint: String
    /// The configured user name, for refusal messages.
    var username: String?
    /// Keepalive seconds, for timeout messages.
    var keepAlive: Int
    /// Maximum reconnect delay, for refusal messages ("retrying every 30 s").
    var maximumDelay: Double

    /// Classifies a failed `mosquitto_connect`.
    func connectFailed(
        code: Int32, errno savedErrno: Int32, verification: TLSPeerVerification?, libraryErrors: [String]
    ) -> MQTTSessionError {
        switch code {
        case Int32(MOSQ_ERR_EAI.rawValue):
            return MQTTSessionError(
                code: .hostNotFound,
                message:
                    "cannot resolve the MQTT host \"\(host)\" — check the host name, or use the device's IP address")
        case Int32(MOSQ_ERR_ERRNO.rawValue):
            return socketError(savedErrno, phase: .connecting)
        case Int32(MOSQ_ERR_TLS.rawValue):
            return tlsFailed(verification: verification, libraryErrors: libraryErrors)
        case Int32(MOSQ_ERR_INVAL.rawValue):
            return MQTTSessionError(
                code: .invalidConfiguration,
                message: "libmosquitto rejected the connection settings for \(endpoint)"
                    + detail(libraryErrors, prefix: ": "))
        default:
            return MQTTSessionError(
                code: .networkError,
                message: "cannot connect to \(endpoint): \(Self.libraryMessage(code))"
                    + detail(libraryErrors, prefix: "; "))
        }
    }

    /// Classifies a `mosquitto_loop` failure.
    func loopFailed(
        code: Int32, errno savedErrno: Int32, phase: Phase, connackCode: Int?, verification: TLSPeerVerification?,
        libraryErrors: [String]
    ) -> MQTTSessionError {
        switch code {
        case Int32(MOSQ_ERR_TLS.rawValue):
            return tlsFailed(verification: verification, libraryErrors: libraryErrors)
        case Int32(MOSQ_ERR_CONN_REFUSED.rawValue):
            return refused(connackCode: connackCode ?? -1)
        case Int32(MOSQ_ERR_KEEPALIVE.rawValue):
            return MQTTSessionError(
                code: .timedOut,
                message: "no answer from \(endpoint) within the keepalive (\(keepAlive) s); the link is considered dead"
            )
        case Int32(MOSQ_ERR_ERRNO.rawValue):
            return socketError(savedErrno, phase: phase)
        case Int32(MOSQ_ERR_PROTOCOL.rawValue), Int32(MOSQ_ERR_MALFORMED_PACKET.rawValue):
            return MQTTSessionError(
                code: .protocolError,
                message: "\(endpoint) sent data that is not valid MQTT 3.1.1 — is this port an MQTT broker?")
        case Int32(MOSQ_ERR_CONN_LOST.rawValue), Int32(MOSQ_ERR_NO_CONN.rawValue):
            if verification?.rejection != nil {
                return tlsFailed(verification: verification, libraryErrors: libraryErrors)
            }
            return connectionClosed(phase: phase, libraryErrors: libraryErrors)
        default:
            return MQTTSessionError(
                code: phase == .connecting ? .networkError : .connectionLost,
                message: "connection to \(endpoint) failed: \(Self.libraryMessage(code))"
                    + detail(libraryErrors, prefix: "; "))
        }
    }

    /// The peer closed the socket (FIN or RST) before or after CONNACK.
    func connectionClosed(phase: Phase, libraryErrors: [String]) -> MQTTSessionError {
        switch phase {
        case .connecting:
            return MQTTSessionError(
                code: .connectionLost,
                message: "\(endpoint) closed the connection during the handshake"
                    + detail(libraryErrors, prefix: " (", suffix: ")")
                    + " — check that the port and the TLS setting match the broker (MQTT over TLS is usually 8883)")
        case .connected:
            return MQTTSessionError(code: .connectionLost, message: "\(endpoint) closed the connection")
        }
    }

    /// TLS handshake plus CONNACK took longer than the connect timeout.
    func handshakeTimedOut(after seconds: Double) -> MQTTSessionError {
        MQTTSessionError(
            code: .timedOut,
            message: "\(endpoint) accepted the TCP connection but the TLS/MQTT handshake did not finish within "
                + "\(Self.seconds(seconds)) s — is it an MQTT broker, and is the TLS setting right?")
    }

    /// A CONNACK refusal.
    func refused(connackCode: Int) -> MQTTSessionError {
        let user = username.map { "user \"\($0)\"" } ?? "an anonymous login"
        let retry = "Retrying only every \(Self.seconds(maximumDelay)) s until the configuration is fixed."
        switch connackCode {
        case 5:
            return MQTTSessionError(
                code: .notAuthorized,
                message: "\(endpoint) refused the login (CONNACK 5 \"not authorised\"): the password (access code) "
                    + "is wrong or \(user) is not allowed. \(retry)",
                connackCode: 5)
        case 4:
            return MQTTSessionError(
                code: .badCredentials,
                message:
                    "\(endpoint) refused the login (CONNACK 4 \"bad user name or password\") for \(user). \(retry)",
                connackCode: 4)
        case 2:
            return MQTTSessionError(
                code: .identifierRejected,
                message: "\(endpoint) rejected the client id (CONNACK 2); use a shorter id of letters and digits. "
                    + retry,
                connackCode: 2)
        case 1:
            return MQTTSessionError(
                code: .brokerRefused,
                message: "\(endpoint) does not accept MQTT 3.1.1 (CONNACK 1 \"unacceptable protocol version\")",
                connackCode: 1)
        case 3:
            return MQTTSessionError(
                code: .brokerRefused,
                message: "\(endpoint) is up but its MQTT service is unavailable (CONNACK 3); retrying",
                connackCode: 3)
        default:
            return MQTTSessionError(
                code: .brokerRefused, message: "\(endpoint) refused the connection (CONNACK \(connackCode))",
                connackCode: connackCode)
        }
    }

    /// A TLS failure: our verifier's verdict when it refused, else OpenSSL's words from the log.
    func tlsFailed(verification: TLSPeerVerification?, libraryErrors: [String]) -> MQTTSessionError {
        let unsent = "The connection was refused during the TLS handshake, before any credentials were sent."
        switch verification?.rejection {
        case .untrusted(let reason)?:
            let pinHint = verification?.presented.map { " or pin its fingerprint \"\($0.colonHex)\"" } ?? ""
            return MQTTSessionError(
                code: .certificateUntrusted,
                message: "the TLS certificate of \(endpoint) failed verification: \(reason). \(unsent) "
                    + "Check the CA file and host name\(pinHint).",
                presentedFingerprint: verification?.presented)
        case .pinMismatch(let expected, let presented)?:
            return MQTTSessionError(
                code: .certificatePinMismatch,
                message: "the TLS certificate of \(endpoint) does not match the pinned fingerprint: expected "
                    + "\(expected.colonHex), presented \(presented.colonHex). \(unsent) If the device's certificate "
                    + "changed legitimately (firmware update, reset), set certificateSHA256: \"\(presented.colonHex)\" "
                    + "in the config.",
                presentedFingerprint: presented)
        case .changedSinceFirstUse(let pinned, let presented, let location)?:
            return MQTTSessionError(
                code: .certificateChanged,
                message: "the TLS certificate of \(endpoint) changed since it was first trusted: pinned "
                    + "\(pinned.colonHex), now presented \(presented.colonHex). \(unsent) If the change is expected "
                    + "(firmware update, device reset), set certificateSHA256: \"\(presented.colonHex)\" in the config "
                    + "or delete \(location).",
                presentedFingerprint: presented)
        case .pinStoreUnreadable(let reason)?:
            return MQTTSessionError(
                code: .pinStoreFailed, message: reason + " (\(endpoint))",
                presentedFingerprint: verification?.presented)
        case .noCertificate?:
            return MQTTSessionError(
                code: .tlsHandshakeFailed, message: "\(endpoint) presented no TLS certificate. \(unsent)")
        case nil:
            let openSSL = libraryErrors.isEmpty ? "no details from OpenSSL" : libraryErrors.joined(separator: "; ")
            return MQTTSessionError(
                code: .tlsHandshakeFailed,
                message: "TLS handshake with \(endpoint) failed: \(openSSL) — check that the port speaks MQTT over "
                    + "TLS (usually 8883) and that the TLS version setting suits the device",
                presentedFingerprint: verification?.presented)
        }
    }

    /// A socket error by `errno`.
    func socketError(_ number: Int32, phase: Phase) -> MQTTSessionError {
        let reason = String(cString: strerror(number))
        switch number {
        case ECONNREFUSED:
            return MQTTSessionError(
                code: .connectionRefused,
                message: "connection to \(endpoint) refused — nothing listens there (broker not running, device still "
                    + "booting, or wrong port)")
        case EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN:
            return MQTTSessionError(
                code: .networkUnreachable,
                message: "\(endpoint) is unreachable (\(reason)) — is the device powered on and on this network?")
        case ETIMEDOUT:
            return MQTTSessionError(
                code: .timedOut,
                message: "connecting to \(endpoint) timed out — is the device powered on and reachable?")
        default:
            return MQTTSessionError(
                code: phase == .connected ? .connectionLost : .networkError,
                message: "network error with \(endpoint): \(reason)")
        }
    }

    private func detail(_ lines: [String], prefix: String, suffix: String = "") -> String {
        lines.isEmpty ? "" : prefix + lines.joined(separator: "; ") + suffix
    }

    /// Seconds for messages: whole numbers from 10 s up, one decimal below (`0.5`, `30`).
    static func seconds(_ value: Double) -> String {
        if value >= 10 || value == value.rounded() { return String(Int(value.rounded())) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `mosquitto_strerror` text.
    static func libraryMessage(_ code: Int32) -> String {
        mosquitto_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
