import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Waits until the session's status satisfies `predicate`; returns that status.
@discardableResult
func waitForMQTTStatus(
    _ session: MQTTSession, timeout: Double = 10, _ what: String,
    where predicate: @escaping @Sendable (MQTTSessionStatus) -> Bool
) async throws -> MQTTSessionStatus {
    try await withTestDeadline(timeout, "\(what); last status: \(session.status)") {
        for await status in session.statusUpdates() where predicate(status) {
            return status
        }
        throw TestTimeout("status stream ended while waiting for \(what): \(session.status)")
    }
}

/// Counts on-connect hook runs and lets tests wait for the n-th.
final class MQTTHookRecorder: Sendable {
    let runs = TestInbox<Int>()
    private let count = Mutex(0)

    /// The hook to pass to `MQTTSession`.
    var hook: MQTTSession.ConnectHook {
        { [self] _ in
            let run = count.withLock { count -> Int in
                count += 1
                return count
            }
            runs.append(run)
        }
    }

    /// Waits until the hook ran at least `n` times.
    func waitForRun(_ n: Int, timeout: Double = 10) async throws {
        _ = try await runs.first(timeout: timeout, "on-connect hook run #\(n)") { $0 >= n }
    }

    var runCount: Int { count.withLock { $0 } }
}

/// A test broker session configuration (client id unique per test).
func mqttConfiguration(
    _ broker: MosquittoBroker, security: MQTTTransportSecurity, username: String = "bblp",
    password: String? = "12345678", subscriptions: [MQTTSubscription] = [], port: Int? = nil,
    tlsVersions: TLSVersionRange = .tls12OrNewer, clientPrefix: String = "lb-test"
) -> MQTTSessionConfiguration {
    MQTTSessionConfiguration(
        host: "127.0.0.1", port: port ?? broker.port,
        clientID: MQTTSessionConfiguration.uniqueClientID(prefix: clientPrefix),
        username: username, password: password, keepAlive: 30, security: security, tlsVersions: tlsVersions,
        subscriptions: subscriptions, connectTimeout: 10)
}

/// The broker's current certificate fingerprint, computed by our OpenSSL helper.
func brokerFingerprint(of broker: MosquittoBroker) throws -> CertificateFingerprint {
    try CertificateFingerprint(pemCertificateFile: broker.certificate.serverCertificatePath)
}

/// Publishes with the `mosquitto_pub` CLI over TLS (verified against the test CA).
func mosquittoPublish(
    _ broker: MosquittoBroker, topic: String, message: String, qos: Int = 1, retain: Bool = false,
    username: String = "bblp", password: String = "12345678"
) throws {
    var arguments = [
        "-h", "127.0.0.1", "-p", "\(broker.port)", "--cafile", broker.certificate.caCertificatePath,
        "-u", username, "-P", password, "-t", topic, "-m", message, "-q", "\(qos)", "-i",
        MQTTSessionConfiguration.uniqueClientID(prefix: "mosquitto-pub"),
    ]
    if retain { arguments.append("-r") }
    try ChildProcess.run("mosquitto_pub", arguments)
}

/// A logger that keeps every line (trace level) for redaction checks.
func mqttRecordingLogger(_ handler: InMemoryLogHandler) -> Logger {
    Logger(label: "test", level: .trace, handler: handler, redactor: Redactor())
}
