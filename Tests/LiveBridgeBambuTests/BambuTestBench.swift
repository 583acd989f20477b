import Foundation
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

/// One bridge process in a test: a virtual clock, the real engine and PushWard sink in front of a
/// strict fake PushWard server, health and metrics registries, and any number of printers.
final class BambuTestBench: Sendable {
    static let apiKey = "hlk_bambuCANARY0000000000000000000000"

    let clock = VirtualClock()
    let fake: FakePushWardServer
    let engine: ActivityEngine
    let queue: DeliveryQueue
    let health = HealthRegistry()
    let metrics = MetricsRegistry()
    let logs = InMemoryLogHandler()
    let store = MemoryStateStore()
    let logger: Logger

    init() async throws {
        fake = try FakePushWardServer(apiKey: Self.apiKey, clock: clock)
        logger = Logger(label: "test", level: .trace, handler: logs, now: { [clock] in clock.now })
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: fake.baseURL, apiKey: Self.apiKey),
            transport: HTTPClient.shared,
            clock: clock)
        queue = DeliveryQueue(
            sink: sink, clock: clock, logger: logger.child("sink"), metrics: metrics,
            health: health.reporter(kind: "sink", name: "phone", type: "pushward", clock: clock), jitterSeed: 1)
        var settings = EconomySettings()
        settings.endDisplay = 4
        engine = ActivityEngine(
            bindings: [.init(sink: sink, queue: queue, ledger: BudgetLedger(sink: "phone", limit: nil, store: store))],
            settings: settings, clock: clock, store: store, logger: logger.child("engine"), metrics: metrics)
        await engine.start()
    }

    /// Delivers everything due now to the fake.
    func deliver() async {
        for _ in 0..<8 {
            await engine.runDue()
            if await queue.pendingCount == 0 { return }
        }
    }

    /// Moves virtual time on and delivers what became due (end frames, re-anchors).
    func advance(by seconds: Double) async {
        clock.advance(by: seconds)
        await deliver()
    }

    private let printers = Mutex<[BenchPrinter]>([])
    private let cleanups = Mutex<[@Sendable () -> Void]>([])

    /// Runs `body` with a fresh bench and always tears everything down afterwards (adapters,
    /// simulators, brokers — off the task pool — and the fake), even when the test failed.
    static func run(_ body: (BambuTestBench) async throws -> Void) async throws {
        let bench = try await BambuTestBench()
        let outcome: Result<Void, any Error>
        do {
            try await body(bench)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        for printer in bench.printers.withLock({ $0 }) { await printer.close() }
        let cleanups = bench.cleanups.withLock { $0 }
        _ = try? await HTTPBlockingWork.run { for cleanup in cleanups { cleanup() } }
        bench.fake.shutdown()
        try outcome.get()
    }

    /// Registers a printer for teardown.
    func register(_ printer: BenchPrinter) {
        printers.withLock { $0.append(printer) }
    }

    /// Registers blocking teardown work (run off the task pool at the end).
    func addCleanup(_ work: @escaping @Sendable () -> Void) {
        cleanups.withLock { $0.append(work) }
    }

    /// The `state` texts the fake received for `slug` in PATCH bodies, in order, repeats collapsed
    /// and every `Layer 12/40` written as `Layer N/M` (with `layerText: "state"`).
    func states(_ slug: String) -> [String] {
        var texts: [String] = []
        for record in fake.records where record.path.hasSuffix("/\(slug)") && record.method == "PATCH" {
            guard var text = record.body?["content"]?["state"]?.stringValue else { continue }
            if text.hasPrefix("Layer ") { text = "Layer N/M" }
            if texts.last != text { texts.append(text) }
        }
        return texts
    }

    /// `POST /activities` requests for `slug`.
    func creates(_ slug: String) -> Int {
        fake.records.filter { $0.method == "POST" && $0.body?["slug"]?.stringValue == slug }.count
    }

    /// The source's `/health` entry.
    func health(of name: String) -> ComponentHealth? {
        health.snapshot.first { $0.kind == "source" && $0.name == name }
    }

    /// Every log line so far.
    var logText: String { logs.lines.joined(separator: "\n") }
}

/// One printer in a bench: its broker (the printer's own), the simulated firmware publishing on
/// it, and the adapter under test.
final class BenchPrinter: Sendable {
    static let accessCode = "Bambu-Canary-2718"

    let bench: BambuTestBench
    let name: String
    let broker: MosquittoBroker
    let simulator: PrinterSimulator
    let configuration: BambuPrinterConfiguration
    let events = TestInbox<BambuAdapterEvent>()
    let updates = TestInbox<ActivityUpdate>()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// A printer with its broker running and the simulator connected; the adapter is not started.
    ///
    /// - Parameters:
    ///   - security: nil = pin the broker's certificate; else `.trustOnFirstUse`, `.insecure`, or a
    ///     `.pinnedCertificate` of the caller's choice.
    ///   - accessCode: what the adapter sends (the broker accepts `BenchPrinter.accessCode`).
    init(
        _ bench: BambuTestBench, name: String, serial: String, model: SimulatedPrinterModel,
        security: MQTTTransportSecurity? = nil, accessCode: String = BenchPrinter.accessCode,
        mapper: BambuActivityMapper.Settings = .init()
    ) async throws {
        self.bench = bench
        self.name = name
        // Certificates and the password file are made by blocking tool runs: keep them off the task pool.
        broker = try await HTTPBlockingWork.run {
            try MosquittoBroker(commonName: serial, users: ["bblp": Self.accessCode, "printer-sim": "simsecret"])
        }
        try await broker.start()
        simulator = try PrinterSimulator(broker: broker, model: model)
        try await simulator.start()
        var configuration = BambuPrinterConfiguration(
            name: name, host: "127.0.0.1", port: broker.port, serial: serial, accessCode: accessCode,
            configPath: "sources[\(name)]", mapper: mapper)
        switch security {
        case nil:
            configuration.fingerprint = try CertificateFingerprint(
                pemCertificateFile: broker.certificate.serverCertificatePath)
        case .pinnedCertificate(let pin)?:
            configuration.fingerprint = pin
        case .insecure?:
            configuration.insecure = true
        default:
            break
        }
        configuration.connectTimeout = 10
        self.configuration = configuration
        bench.register(self)
    }

    var slug: String { configuration.slug }

    /// Starts the adapter (as the supervisor would run it).
    func startAdapter() {
        let events = self.events
        let updates = self.updates
        let adapter = BambuAdapter(configuration: configuration, observer: { events.append($0) })
        let engine = bench.engine
        let context = AdapterContext(
            name: name,
            emit: { update in
                updates.append(update)
                await engine.emit(update)
            }, logger: bench.logger.child("bambu.\(name)"), clock: bench.clock, store: bench.store,
            health: bench.health.reporter(kind: "source", name: name, type: "bambu", clock: bench.clock),
            metrics: bench.metrics)
        let running = Task {
            do {
                try await adapter.run(context)
            } catch {
                Issue.record("the adapter threw: \(error)")
            }
        }
        task.withLock { $0 = running }
    }

    /// Starts the adapter and waits until it asked for the full state and handled the answer.
    func connect() async throws {
        let before = simulator.pushallRequests
        let isAnswer: @Sendable (BambuAdapterEvent) -> Bool = { event in
            if case .report(let report, _, _) = event { return report.isFull }
            return false
        }
        let answered = events.items.filter(isAnswer).count
        startAdapter()
        try await simulator.waitForPushallRequests(before + 1)
        try await events.waitForCount(answered + 1, "the pushall answer handled", where: isAnswer)
        await bench.deliver()
    }

    /// Publishes one scripted report `after` virtual seconds and waits until the adapter handled
    /// it (and its updates reached the engine); then delivers.
    @discardableResult
    func play(_ step: SimulatedPrintStep, after seconds: Double = 60) async throws -> [ActivityUpdate] {
        bench.clock.advance(by: seconds)
        await bench.deliver()
        let report = try await simulator.play(step)
        let sequence = report["print"]?["sequence_id"]?.stringValue
        let handled = try await events.first("report \(sequence ?? "?") (\(step.label)) handled") { event in
            if case .report(let report, _, _) = event { return report.sequenceID == sequence }
            return false
        }
        await bench.deliver()
        guard case .report(_, _, let produced) = handled else { return [] }
        return produced
    }

    /// Plays several steps.
    func play(_ steps: some Sequence<SimulatedPrintStep>, after seconds: Double = 60) async throws {
        for step in steps { try await play(step, after: seconds) }
    }

    /// Waits for the adapter's connection event matching `predicate`.
    @discardableResult
    func connection(
        timeout: Double = 15, _ what: String, where predicate: @escaping @Sendable (MQTTSessionStatus) -> Bool
    ) async throws -> MQTTSessionStatus {
        let event = try await events.first(timeout: timeout, what) { event in
            if case .connection(let status) = event { return predicate(status) }
            return false
        }
        guard case .connection(let status) = event else { throw TestTimeout(what) }
        return status
    }

    /// Stops the adapter (task cancellation, as the supervisor does).
    func stopAdapter() async {
        let running = task.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }

    /// Stops the broker (the printer reboots or drops off the network), off the task pool.
    func stopBroker() async {
        let broker = self.broker
        _ = try? await HTTPBlockingWork.run { broker.stop() }
    }

    /// Stops everything of this printer.
    func close() async {
        await stopAdapter()
        await simulator.shutdown()
        let broker = self.broker
        _ = try? await HTTPBlockingWork.run { broker.remove() }
    }
}
