import Foundation
import Glibc
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The printer's MQTT broker restarted mid-print, then frozen (SIGSTOP: the TCP connection stays
/// open, nothing comes back — a network silently dropping packets): a real TLS mosquitto, the
/// printer simulator publishing on it, the real Bambu adapter, the engine on virtual time and the
/// strict fake PushWard.
@Suite("Fault: Bambu printer's broker", .serialized, .timeLimit(.minutes(1)))
struct BambuBrokerFaultTests {
    static let accessCode = "Bambu-Reliab-31415"

    @Test("broker restarted, then frozen (SIGSTOP) mid-print: reconnect, pushall, same activity; recovery measured")
    func restartThenFreeze() async throws {
        let serial = Recordings.bambuSerial
        let broker = try await HTTPBlockingWork.run {
            try MosquittoBroker(commonName: serial, users: ["bblp": Self.accessCode, "printer-sim": "simsecret"])
        }
        let simulator = try await Self.startPrinter(broker)
        let bridge = try await VirtualBridge()
        let events = TestInbox<BambuAdapterEvent>()
        var configuration = BambuPrinterConfiguration(
            name: "p1s", host: "127.0.0.1", port: broker.port, serial: serial, accessCode: Self.accessCode,
            fingerprint: try CertificateFingerprint(pemCertificateFile: broker.certificate.serverCertificatePath),
            configPath: "sources[0]")
        configuration.keepAlive = 5
        configuration.connectTimeout = 10
        let adapter = BambuAdapter(configuration: configuration, observer: { events.append($0) })
        let running = Task { try? await adapter.run(bridge.context(source: "p1s", type: "bambu")) }
        do {
            try await Self.run(bridge, broker: broker, simulator: simulator, events: events, slug: configuration.slug)
        } catch {
            Issue.record(error)
        }
        running.cancel()
        await running.value
        await simulator.shutdown()
        let pid = broker.pid
        if let pid { kill(pid, SIGCONT) }
        _ = try? await HTTPBlockingWork.run { broker.remove() }
        await bridge.shutdown()
    }

    static func startPrinter(_ broker: MosquittoBroker) async throws -> PrinterSimulator {
        try await broker.start()
        let simulator = try PrinterSimulator(broker: broker, model: .p1)
        try await simulator.start()
        return simulator
    }

    static func isReport(_ event: BambuAdapterEvent) -> Bool {
        if case .report = event { return true }
        return false
    }

    static func isFullReport(_ event: BambuAdapterEvent) -> Bool {
        if case .report(let report, _, _) = event { return report.isFull }
        return false
    }

    static func connection(_ event: BambuAdapterEvent) -> MQTTSessionStatus? {
        if case .connection(let status) = event { return status }
        return nil
    }

    static func run(
        _ bridge: VirtualBridge, broker: MosquittoBroker, simulator: PrinterSimulator,
        events: TestInbox<BambuAdapterEvent>,
        slug: String
    ) async throws {
        try await events.first(timeout: 15, "the pushall answer", where: isFullReport)
        let steps = SimulatedPrintScript(model: .p1, name: "Bracket", printMinutes: 20).steps()
        let third = steps.count / 3

        /// Publishes one report a virtual minute later and waits until the adapter handled it.
        func play(_ step: SimulatedPrintStep) async throws {
            await bridge.advance(to: bridge.clock.now + 60)
            let report = try await simulator.play(step)
            let sequence = report["print"]?["sequence_id"]?.stringValue
            try await events.first(timeout: 15, "report \(sequence ?? "?") (\(step.label))") { event in
                if case .report(let report, _, _) = event { return report.sequenceID == sequence }
                return false
            }
            await bridge.deliver()
        }

        for step in steps.prefix(third) { try await play(step) }
        #expect(bridge.pushward.activity(slug)?.state == "ongoing")

        // 1. Restart: stop, let the adapter notice and fail one reconnect, start again.
        var mark = events.count
        _ = try await HTTPBlockingWork.run { broker.stop() }
        try await events.first(from: mark, "the drop") { connection($0)?.state.error != nil }
        try await events.first(from: mark, "a refused reconnect") {
            connection($0)?.state.error?.code == .connectionRefused
        }
        mark = events.count
        try await broker.start()
        let restarted = ContinuousClock.now
        try await simulator.waitForBrokerConnections(2)
        try await events.first(from: mark, timeout: 20, "the first report after the restart", where: isReport)
        let restartToReport = seconds(since: restarted)
        #expect(bridge.sourceHealth("p1s")?.status == .ok)

        for step in steps.dropFirst(third).prefix(third) { try await play(step) }

        // 2. Freeze: the broker stops answering without closing anything.
        await bridge.advance(to: bridge.clock.now + 60)
        mark = events.count
        let pid = try #require(broker.pid)
        kill(pid, SIGSTOP)
        let frozen = ContinuousClock.now
        let dropped = try await events.first(from: mark, timeout: 25, "the keepalive noticing the silence") {
            connection($0)?.state.error != nil
        }
        let silenceDetected = seconds(since: frozen)
        let reason = connection(dropped)?.state.error?.message ?? ""
        #expect(reason.contains("keepalive") || reason.contains("no answer"), "\(reason)")
        #expect(bridge.sourceHealth("p1s")?.status == .degraded)
        mark = events.count
        kill(pid, SIGCONT)
        let thawed = ContinuousClock.now
        try await events.first(from: mark, timeout: 25, "the pushall answer after the freeze", where: isFullReport)
        let thawToReport = seconds(since: thawed)

        for step in steps.dropFirst(2 * third) { try await play(step) }
        await bridge.advance(to: bridge.clock.now + 60)

        let activity = try #require(bridge.pushward.activity(slug))
        #expect(activity.state == "ended" && activity.content["state"] == "Complete")
        #expect(bridge.creates(slug) == 1, "the same activity through both faults")
        #expect(await bridge.inSync(slug))
        let states = bridge.pushward.records.compactMap { $0.body?["content"]?["state"]?.stringValue }
        #expect(!states.contains("Printer offline"), "short blips are not shown")
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        Figures.record(
            "MQTT broker restart → first report",
            "\(Figures.seconds(restartToReport)) real (reconnect backoff + pushall)")
        Figures.record(
            "MQTT broker frozen (SIGSTOP) → detected",
            "\(Figures.seconds(silenceDetected)) real with keepalive 5 s (about 2 × the keepalive; the default 30 s: about a minute)"
        )
        Figures.record("MQTT broker thawed (SIGCONT) → first report", "\(Figures.seconds(thawToReport)) real")
    }
}
