public import LiveBridgeCore
public import LiveBridgeNet

/// What an MQTT-based source's loop hears, one at a time: a message, a change of the connection,
/// or a tick of its timers.
public enum MQTTSourceInput: Sendable {
    case message(MQTTMessage)
    case status(MQTTSessionStatus)
    case tick
}

extension MQTTSession {
    /// Hands every message of this session, every change of `statuses` and a tick every
    /// `interval` seconds on `clock` to `handle`, in order and one at a time, until the session's
    /// messages end or the task is cancelled (a Bambu printer, the generic MQTT source).
    public func follow(
        statuses: AsyncStream<MQTTSessionStatus>, ticking interval: Double, on clock: any TimeSource,
        _ handle: (MQTTSourceInput) async -> Void
    ) async {
        let (inputs, input) = AsyncStream.makeStream(of: MQTTSourceInput.self, bufferingPolicy: .bufferingNewest(4096))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in self.messages { input.yield(.message(message)) }
                input.finish()
            }
            group.addTask {
                for await status in statuses { input.yield(.status(status)) }
            }
            group.addTask {
                while true {
                    do {
                        try await clock.sleep(for: interval)
                    } catch {
                        return
                    }
                    input.yield(.tick)
                }
            }
            for await event in inputs { await handle(event) }
            group.cancelAll()
        }
        input.finish()
    }
}

extension MQTTTransportSecurity {
    /// The security of an MQTT connection from its entry's keys: plaintext without `tls`; with
    /// it, the certificate pinned by `certificateSHA256`, no check with `insecure: true`, else a
    /// CA (`caFile`, or the system's) with the host name verified.
    public static func read(_ reader: ConfigReader, tls: Bool) -> MQTTTransportSecurity {
        guard tls else { return .plaintext }
        if CertificateFingerprint.given(reader) {
            let pin = CertificateFingerprint.read(reader, hint: "expected the certificate's SHA-256 as hex")
            return pin.map { .pinnedCertificate($0) } ?? .plaintext
        }
        if reader.bool("insecure", default: false) { return .insecure }
        return .certificateAuthority(caFile: reader.string("caFile"), verifyHostname: true)
    }
}
