import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport

/// The real engine delivering through the real PushWard sink into the strict fake PushWard.
struct EngineHarness {
    let pushward: FakePushWardServer
    let engine: ActivityEngine
    /// The engine's own driving (`run()`), as in `livebridge run`.
    let driver: Task<Void, Never>
    let settings: EconomySettings

    init(endDisplay: Double = 0.3, coalesceWindow: Double? = nil) async throws {
        let pushward = try FakePushWardServer()
        var settings = EconomySettings()
        settings.endDisplay = endDisplay
        if let coalesceWindow { settings.coalesceWindow = coalesceWindow }
        let clock = SystemClock()
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: pushward.baseURL, apiKey: pushward.apiKey),
            transport: HTTPClient.shared, clock: clock)
        let queue = DeliveryQueue(
            sink: sink, clock: clock, logger: .disabled, metrics: MetricsRegistry(), health: .detached(clock: clock))
        let engine = ActivityEngine(
            bindings: [
                ActivityEngine.Binding(
                    sink: sink, queue: queue, ledger: BudgetLedger(sink: "phone", limit: nil, store: MemoryStateStore())
                )
            ],
            settings: settings, clock: clock, store: MemoryStateStore(), logger: .disabled, metrics: MetricsRegistry())
        await engine.start()
        driver = Task { await engine.run() }
        self.pushward = pushward
        self.engine = engine
        self.settings = settings
    }

    /// A context whose updates go to the engine (and to `harness` for assertions).
    func context(_ harness: AdapterHarness) -> AdapterContext {
        var context = harness.context
        let engine = self.engine
        let collect = context.emit
        context.emit = { update in
            await collect(update)
            await engine.emit(update)
        }
        return context
    }

    func shutdown() async {
        await engine.shutdown(endActivities: false, flushTimeout: 1)
        driver.cancel()
        pushward.shutdown()
    }
}
