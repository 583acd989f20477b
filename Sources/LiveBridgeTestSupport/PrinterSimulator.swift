import Foundation
public import LiveBridgeCore
public import LiveBridgeNet
import Synchronization

/// A Bambu Lab printer on a real MQTT broker, as far as a bridge can tell: it publishes
/// `push_status` reports on `device/<serial>/report` (full on X1, deltas on P1/A1) and answers
/// `pushall` requests on `device/<serial>/request` with its full state.
///
/// On a real printer the broker runs inside the printer; here the broker is a `MosquittoBroker`
/// with the printer's certificate (`CN=<serial>`) and the simulator logs in as a second user. The
/// test drives time: `play(_:)` applies one scripted step and publishes the report, so a test
/// knows exactly which report the bridge is handling.
public final class PrinterSimulator: Sendable {
    /// The family played.
    public let model: SimulatedPrinterModel
    /// The serial (upper case).
    public let serial: String
    private let session: MQTTSession
    private let firmware: Mutex<SimulatedPrinterFirmware>
    private let pushalls = PrinterSimulatorCounter()
    private let connections = PrinterSimulatorCounter()
    private let server = Mutex<Task<Void, Never>?>(nil)

    /// A printer publishing through the broker at `127.0.0.1:port`, whose certificate has the
    /// SHA-256 `fingerprint`, logging in as `username`/`password`.
    public init(
        port: Int, fingerprint: CertificateFingerprint, serial: String, model: SimulatedPrinterModel,
        username: String = "printer-sim", password: String = "simsecret", seed: UInt64 = 1
    ) throws {
        self.model = model
        self.serial = serial.uppercased()
        let firmware = SimulatedPrinterFirmware(model: model, serial: serial, seed: seed)
        self.firmware = Mutex(firmware)
        let connections = self.connections
        session = try MQTTSession(
            configuration: MQTTSessionConfiguration(
                host: "127.0.0.1", port: port,
                clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "printer-sim-\(serial.lowercased())"),
                username: username, password: password, keepAlive: 30, security: .pinnedCertificate(fingerprint),
                subscriptions: [MQTTSubscription(firmware.requestTopic)],
                // The printer's broker is always there before any client: reconnect at once.
                reconnect: MQTTReconnectPolicy(initialDelay: 0.02, maximumDelay: 0.2, stableConnectionDuration: 0),
                connectTimeout: 10),
            onConnect: { _ in connections.increment() })
    }

    /// A printer on `broker`, pinned to the broker's current certificate.
    public convenience init(
        broker: MosquittoBroker, model: SimulatedPrinterModel, username: String = "printer-sim",
        password: String = "simsecret", seed: UInt64 = 1
    ) throws {
        try self.init(
            port: broker.port,
            fingerprint: try CertificateFingerprint(pemCertificateFile: broker.certificate.serverCertificatePath),
            serial: broker.commonName, model: model, username: username, password: password, seed: seed)
    }

    /// Connects and subscribes to the request topic; returns once requests can arrive.
    public func start(timeout: Double = 10) async throws {
        let requests = session.messages
        let task = Task { [self] in
            for await message in requests { await self.handleRequest(message) }
        }
        server.withLock { $0 = task }
        try session.start()
        try await connections.wait(atLeast: 1, timeout: timeout, "the printer simulator connecting")
    }

    /// Applies one step and publishes the report it causes; returns that report.
    @discardableResult
    public func play(_ step: SimulatedPrintStep, noise: Bool = true) async throws -> JSONValue {
        let report = firmware.withLock { firmware -> JSONValue in
            firmware.apply(step.changes)
            return firmware.nextReport(noise: noise)
        }
        try await publish(report)
        return report
    }

    /// Applies `changes` and publishes the next report.
    @discardableResult
    public func publishReport(changing changes: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await play(SimulatedPrintStep(time: 0, changes: changes, label: "manual"))
    }

    /// Publishes the full state (what a pushall answer looks like).
    @discardableResult
    public func publishFullReport() async throws -> JSONValue {
        let report = firmware.withLock { $0.fullReport() }
        try await publish(report)
        return report
    }

    /// Publishes arbitrary bytes on the report topic (malformed payloads).
    public func publishRaw(_ text: String) async throws {
        try await session.publish(topic: "device/\(serial)/report", text: text)
    }

    /// `pushall` (or `start`) requests answered so far.
    public var pushallRequests: Int { pushalls.value }

    /// Connections the simulator made to the broker (2 after a broker restart).
    public var brokerConnections: Int { connections.value }

    /// Waits until at least `count` pushall requests were answered.
    public func waitForPushallRequests(_ count: Int, timeout: Double = 15) async throws {
        try await pushalls.wait(atLeast: count, timeout: timeout, "pushall request #\(count)")
    }

    /// Waits until the simulator has (re)connected `count` times in all.
    public func waitForBrokerConnections(_ count: Int, timeout: Double = 15) async throws {
        try await connections.wait(atLeast: count, timeout: timeout, "printer simulator connection #\(count)")
    }

    /// The printer's current state value.
    public var firmwareState: SimulatedPrinterFirmware { firmware.withLock { $0 } }

    /// Disconnects.
    public func shutdown() async {
        await session.shutdown()
        server.withLock { $0 }?.cancel()
    }

    private func publish(_ report: JSONValue) async throws {
        try await session.publish(topic: "device/\(serial)/report", text: JSONWriter.string(report))
    }

    private func handleRequest(_ message: MQTTMessage) async {
        guard let request = try? JSONParser.parse(message.payload) else { return }
        let command = request["pushing"]?["command"]?.stringValue
        guard command == "pushall" || command == "start" else { return }
        do {
            try await publishFullReport()
            pushalls.increment()
        } catch {
            // The link dropped while answering; the bridge asks again after it reconnects.
        }
    }
}

/// A counter tests can wait on (event-driven; the timeout is a failure bound only).
final class PrinterSimulatorCounter: Sendable {
    private struct Waiter {
        var target: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value = 0
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
    }

    private let state = Mutex(State())

    var value: Int { state.withLock { $0.value } }

    func increment() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.value += 1
            let value = state.value
            let ready = state.waiters.filter { $0.value.target <= value }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    func wait(atLeast count: Int, timeout: Double, _ what: String) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let reached = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = state.withLock { state -> Bool in
                        if state.value >= count { return true }
                        state.waiters[id] = Waiter(target: count, continuation: continuation)
                        return false
                    }
                    if done { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Release our waiter so the group can finish.
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
            }
            group.cancelAll()
            return first
        }
        if !reached {
            throw PrinterSimulatorTimeout(description: "timed out after \(timeout) s waiting for \(what)")
        }
    }
}

/// A bounded wait of the printer simulator expired.
public struct PrinterSimulatorTimeout: Error, CustomStringConvertible {
    /// What was awaited.
    public var description: String
}
