import Dispatch
import Glibc
public import LiveBridgeCore
public import LiveBridgeKit
public import LiveBridgeNet
import LiveBridgeSinks
import Synchronization

/// One running bridge: every configured source and sink, the engine between them, and the
/// control server. `run()` returns after SIGINT/SIGTERM (or task cancellation), with deliveries
/// flushed (bounded) and state persisted.
public final class LiveBridgeRuntime: Sendable {
    public let config: LiveBridgeConfig
    public let services: RuntimeServices
    public let engine: ActivityEngine
    public let routes: ControlRoutes
    let sources: [(ComponentConfig, SourceInstance, AsyncStream<WebhookEvent>)]
    let server: HTTPServer?

    /// Builds everything from `config`; throws configuration problems, or a message when the
    /// control server cannot listen.
    public init(
        config: LiveBridgeConfig, registry: ComponentRegistry = .standard, clock: any TimeSource = SystemClock(),
        http: any HTTPTransport = HTTPClient.shared, logHandler: any LogHandler = StandardErrorLogHandler(),
        store: (any StateStore)? = nil
    ) throws {
        NetworkLibraries.initialize()
        let logger = Logger(label: "livebridge", level: config.logLevel, handler: logHandler)
        for warning in config.warnings { logger.warning(warning) }
        let health = HealthRegistry()
        let metrics = MetricsRegistry()
        let dataHealth = health.reporter(kind: "state", name: "dataDir", type: "files", clock: clock)
        let store = store ?? FileStateStore(directory: config.dataDir)
        if let problem = Self.checkDataDirectory(config.dataDir, store: store) {
            // Said at start, not at the first push (an idle bridge would look healthy for hours).
            dataHealth.set(.degraded, "\(problem); state kept in memory only (no resume after a restart) — fix dataDir")
            logger.error(
                "data directory unusable; state kept in memory", ["dataDir": config.dataDir, "error": problem])
        } else {
            dataHealth.noteEvent()
        }
        let services = RuntimeServices(
            dataDir: config.dataDir, store: store, clock: clock, logger: logger, metrics: metrics, health: health,
            http: http, economy: config.economy)
        let built = try registry.build(config, services: services)
        for warning in config.problems.warnings { logger.warning(warning) }
        var bindings: [ActivityEngine.Binding] = []
        for sink in built.sinks {
            let reporter = health.reporter(kind: "sink", name: sink.name, type: sink.type, clock: clock)
            let ledger = BudgetLedger(
                sink: sink.name, limit: config.economy.monthlyBudget, store: store, settings: config.economy)
            let queue = DeliveryQueue(
                sink: sink, clock: clock, logger: logger.child("sink.\(sink.name)"), metrics: metrics, health: reporter,
                ledger: ledger)
            bindings.append(ActivityEngine.Binding(sink: sink, queue: queue, ledger: ledger))
        }
        let engine = ActivityEngine(
            bindings: bindings, settings: config.economy, clock: clock, store: store, logger: logger.child("engine"),
            metrics: metrics, health: dataHealth)
        let routes = ControlRoutes(
            health: health, metrics: metrics, clock: clock, logger: logger.child("http"), apiToken: config.apiToken,
            emit: { update in await engine.emit(update) })
        var server: HTTPServer?
        if let listen = config.listen {
            do {
                server = try HTTPServer(address: listen, logger: logger.child("http")) { request in
                    await routes.handle(request)
                }
            } catch {
                throw ConfigError(problems: [
                    ConfigProblem(path: "server.listen", message: "cannot listen on \(listen): \(error)")
                ])
            }
        }
        self.config = config
        self.services = services
        self.engine = engine
        self.routes = routes
        // Webhook inboxes exist from the start, so a wake-up that arrives before the adapter runs
        // waits for it instead of being refused.
        self.sources = built.sources.map { entry, instance in
            let stream: AsyncStream<WebhookEvent> =
                instance.acceptsWebhooks
                ? routes.webhookStream(for: entry.name, secret: instance.webhookSecret) : AsyncStream { $0.finish() }
            return (entry, instance, stream)
        }
        self.server = server
    }

    /// Creates the data directory if needed and proves it can be written; the problem, if any.
    static func checkDataDirectory(_ path: String, store: any StateStore) -> String? {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { return "\(path) is not a directory" }
        } else if let problem = FileStateStore.makeDirectories(path, permissions: 0o777) {
            return "cannot create \(path): \(problem)"
        }
        let probe = ".write-check"
        do {
            try store.write(probe, [])
            try store.remove(probe)
        } catch {
            return "cannot write in \(path): \(error.message)"
        }
        return nil
    }

    /// The control server's port (nil when `server.listen` is off).
    public var port: UInt16? { server?.port }

    /// Runs until SIGINT or SIGTERM (or cancellation), then shuts down cleanly: what a program
    /// embedding LiveBridge calls from `main`.
    public func runUntilTerminated() async {
        let task = Task { await self.run() }
        let traps = SignalTrap.cancelOnTermination(task)
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        withExtendedLifetime(traps) {}  // the signal sources must outlive the wait
    }

    /// Runs until cancelled; then shuts down cleanly. The parts are services in one group,
    /// started in this order and stopped in the reverse one: the control server (it shows
    /// `/health` to the end), the engine with its preview pages (it flushes, bounded, and
    /// persists), the control routes (no update is taken from the API once stopping), the
    /// adapters under their supervisor.
    public func run() async {
        let logger = services.logger
        var entries: [Supervisor.Entry] = []
        for (entry, instance, webhooks) in sources {
            let reporter = services.health.reporter(
                kind: "source", name: entry.name, type: entry.type, clock: services.clock)
            let engine = self.engine
            let metrics = services.metrics
            let name = entry.name
            let context = AdapterContext(
                name: entry.name,
                emit: { update in
                    metrics.increment("livebridge_adapter_events_total", ["source": name])
                    var update = update
                    update.source = name
                    await engine.emit(update)
                },
                logger: logger.child("\(entry.type).\(entry.name)"), clock: services.clock, store: services.store,
                health: reporter, metrics: services.metrics, webhooks: webhooks)
            entries.append(Supervisor.Entry(adapter: instance.adapter, context: context))
        }
        let group = ServiceGroup(
            [
                ControlServerService(server: server),
                EngineService(engine: engine, endActivities: config.endOnShutdown, logger: logger),
                RoutesService(routes: routes),
                SupervisorService(
                    supervisor: Supervisor(entries: entries), logger: logger,
                    started: [
                        "sources": String(entries.count), "sinks": String(engine.bindings.count),
                        "listen": server.map { "\($0.address)" } ?? "off",
                    ],
                    endActivities: config.endOnShutdown),
            ], logger: logger)
        try? await group.run()
        logger.info("stopped")
    }
}

/// The control server: it binds when the runtime is built; stopping closes it.
struct ControlServerService: Service {
    let server: HTTPServer?
    var name: String { "control server" }

    func stop() async { server?.shutdown() }
}

/// The engine: restores its state and opens the sinks, serves the preview pages, drives the
/// deadlines and deliveries; stopping ends the activities when asked, flushes (bounded) and persists.
final class EngineService: Service {
    let engine: ActivityEngine
    let endActivities: Bool
    let logger: Logger
    private let previews = Mutex<[PreviewSink]>([])
    var name: String { "engine" }

    init(engine: ActivityEngine, endActivities: Bool, logger: Logger) {
        self.engine = engine
        self.endActivities = endActivities
        self.logger = logger
    }

    func start() async throws {
        await engine.start()
        let pages = await StandardComponents.startPreviewPages(of: engine, logger: logger)
        previews.withLock { $0 = pages }
    }

    func run() async throws { await engine.run() }

    func stop() async {
        await engine.shutdown(endActivities: endActivities, flushTimeout: 5)
        for preview in previews.withLock({ $0 }) { preview.shutdown() }
    }
}

/// The control routes: stopping refuses further updates from the activities API and webhooks.
struct RoutesService: Service {
    let routes: ControlRoutes
    var name: String { "control routes" }

    func stop() async { routes.close() }
}

/// Every adapter under the supervisor, which restarts the ones that fail.
struct SupervisorService: Service {
    let supervisor: Supervisor
    let logger: Logger
    /// What the start line says.
    let started: [String: String]
    let endActivities: Bool
    var name: String { "adapters" }

    func start() async throws { logger.info("livebridge running", started) }

    /// Returns when cancelled (an API-only bridge has no adapter and waits for it).
    func run() async throws {
        await supervisor.run()
        await Task.waitForCancellation()
    }

    func stop() async { logger.info("shutting down", ["endActivities": String(endActivities)]) }
}

/// Turns SIGINT and SIGTERM into cancellation of one task.
///
/// The dispatch sources are made here, in a nonisolated function, never in `main.swift`'s
/// MainActor code (a handler written there traps when Dispatch calls it).
enum SignalTrap {
    static func cancelOnTermination<Success: Sendable>(_ task: Task<Success, Never>) -> [any DispatchSourceSignal] {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in task.cancel() }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
