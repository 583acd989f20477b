import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// A bounded wait expired.
struct MQTTTestTimeout: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body`; fails with `MQTTTestTimeout(what)` after `seconds` (a failure bound, not a delay).
func withMQTTDeadline<T: Sendable>(
    _ seconds: Double, _ what: @autoclosure @escaping @Sendable () -> String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw MQTTTestTimeout(description: "timed out after \(seconds) s: \(what())")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw MQTTTestTimeout(description: what()) }
        return first
    }
}

/// Waits until the session's status satisfies `predicate`; returns that status.
@discardableResult
func waitForMQTTStatus(
    _ session: MQTTSession, timeout: Double = 10, _ what: String,
    where predicate: @escaping @Sendable (MQTTSessionStatus) -> Bool
) async throws -> MQTTSessionStatus {
    try await withMQTTDeadline(timeout, "\(what); last status: \(session.status)") {
        for await status in session.statusUpdates() where predicate(status) {
            return status
        }
        throw MQTTTestTimeout(description: "status stream ended while waiting for \(what): \(session.status)")
    }
}

/// Collects values from a producer and lets tests wait for one matching a predicate, event-driven.
final class MQTTTestInbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var predicate: @Sendable (Element) -> Bool
        var continuation: CheckedContinuation<Element?, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Consumes `stream` in the background into this inbox.
    convenience init(consuming stream: AsyncStream<Element>) {
        self.init()
        Task { [self] in
            for await element in stream { self.append(element) }
        }
    }

    /// Every value so far.
    var items: [Element] { state.withLock { $0.items } }

    func append(_ element: Element) {
        let ready = state.withLock { state -> [CheckedContinuation<Element?, Never>] in
            state.items.append(element)
            let matching = state.waiters.filter { $0.value.predicate(element) }
            for id in matching.keys { state.waiters.removeValue(forKey: id) }
            return matching.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: element) }
    }

    /// The first value (already received or future) matching `predicate`, within `timeout` seconds.
    func first(
        timeout: Double = 10, _ what: String, where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        try await withMQTTDeadline(timeout, what) { [self] in
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            let found: Element? = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                    let existing = state.withLock { state -> Element? in
                        if let match = state.items.first(where: predicate) { return match }
                        if Task.isCancelled { return nil }
                        state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                        return nil
                    }
                    if let existing {
                        continuation.resume(returning: existing)
                    } else if Task.isCancelled {
                        continuation.resume(returning: nil)
                    }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: nil)
            }
            guard let found else { throw CancellationError() }
            return found
        }
    }
}

/// Counts on-connect hook runs and lets tests wait for the n-th.
final class MQTTHookRecorder: Sendable {
    let runs = MQTTTestInbox<Int>()
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
