import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport

/// One bridge on real time, driving itself as `livebridge run` does (engine timer, queue driver),
/// delivering through the PushWard sink into the strict fake: for faults whose recovery is a
/// matter of real seconds (reconnects, keepalives).
final class RealTimeBridge: Sendable {
    let clock = SystemClock()
    let pushward: FakePushWardServer
    let engine: ActivityEngine
    /// The engine's own driving (`run()`), as in `livebridge run`.
    let driver: Task<Void, Never>
    let queue: DeliveryQueue
    let health = HealthRegistry()
    let metrics = MetricsRegistry()
    let logs = InMemoryLogHandler()
    let logger: Logger

    init(endDisplay: Double = 0.3) async throws {
        pushward = try FakePushWardServer(apiKey: VirtualBridge.apiKey)
        logger = Logger(label: "reliability", level: .debug, handler: logs)
        var settings = EconomySettings()
        settings.endDisplay = endDisplay
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: pushward.baseURL, apiKey: pushward.apiKey, timeout: 5),
            transport: HTTPClient.shared, clock: clock)
        queue = DeliveryQueue(
            sink: sink, clock: clock, logger: logger.child("sink.phone"), metrics: metrics,
            health: health.reporter(kind: "sink", name: "phone", type: "pushward", clock: clock))
        engine = ActivityEngine(
            bindings: [
                .init(
                    sink: sink, queue: queue, ledger: BudgetLedger(sink: "phone", limit: nil, store: MemoryStateStore())
                )
            ],
            settings: settings, clock: clock, store: MemoryStateStore(), logger: logger.child("engine"),
            metrics: metrics)
        await engine.start()
        driver = Task { [engine] in await engine.run() }
    }

    /// The context a supervisor would give source `name`.
    func context(source name: String, type: String, onEmit: @escaping @Sendable (ActivityUpdate) -> Void = { _ in })
        -> AdapterContext
    {
        let engine = self.engine
        return AdapterContext(
            name: name,
            emit: { update in
                onEmit(update)
                await engine.emit(update)
            },
            logger: logger.child("\(type).\(name)"), clock: clock, store: MemoryStateStore(),
            health: health.reporter(kind: "source", name: name, type: type, clock: clock), metrics: metrics)
    }

    func sourceHealth(_ name: String) -> ComponentHealth? {
        health.snapshot.first { $0.kind == "source" && $0.name == name }
    }

    func shutdown() async {
        await engine.shutdown(endActivities: false, flushTimeout: 1)
        driver.cancel()
        pushward.shutdown()
    }
}
