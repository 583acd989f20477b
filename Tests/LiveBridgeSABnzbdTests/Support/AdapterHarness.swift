import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import Synchronization

/// Runs a `SABnzbdAdapter` with an in-memory log, a health entry and an update collector, and
/// stops it once a condition holds (checked after every update and every fake request).
final class AdapterHarness: Sendable {
    let logs = InMemoryLogHandler()
    let healthRegistry = HealthRegistry()
    let metrics = MetricsRegistry()
    private let collected = Mutex<[ActivityUpdate]>([])
    private let ticks: AsyncStream<Void>
    /// Makes the running condition be checked again (for events the harness does not see).
    let tick: AsyncStream<Void>.Continuation

    init() {
        (ticks, tick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    var updates: [ActivityUpdate] { collected.withLock { $0 } }
    var lines: [String] { logs.lines }

    func health(_ name: String = "home") -> ComponentHealth? {
        healthRegistry.snapshot.first { $0.name == name }
    }

    func context(
        name: String = "home", clock: any TimeSource, store: any StateStore,
        webhooks: AsyncStream<WebhookEvent> = AsyncStream { $0.finish() },
        forward: (@Sendable (ActivityUpdate) async -> Void)? = nil
    ) -> AdapterContext {
        let reporter = healthRegistry.reporter(kind: "source", name: name, type: "sabnzbd", clock: clock)
        let logger = Logger(label: "sabnzbd.\(name)", level: .debug, handler: TickingLogHandler(logs: logs, tick: tick))
        return AdapterContext(
            name: name,
            emit: { [self] update in
                await forward?(update)
                self.collected.withLock { $0.append(update) }
                self.tick.yield()
            },
            logger: logger, clock: clock, store: store, health: reporter, metrics: metrics, webhooks: webhooks)
    }

    /// Runs `adapter` until `done()` or `timeout` real seconds; returns whether `done()` held.
    @discardableResult
    func run(
        _ adapter: SABnzbdAdapter, context: AdapterContext, fake: FakeSABnzbd?, timeout: Double = 20,
        until done: @escaping @Sendable (AdapterHarness) -> Bool
    ) async -> Bool {
        let running = Task { try? await adapter.run(context) }
        let forward = Task { [tick] in
            guard let fake else { return }
            for await _ in fake.requestTicks() { tick.yield() }
        }
        let timedOut = Mutex(false)
        let timer = Task { [tick] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            timedOut.withLock { $0 = true }
            tick.yield()
        }
        var satisfied = done(self)
        if !satisfied {
            for await _ in ticks {
                if done(self) {
                    satisfied = true
                    break
                }
                if timedOut.withLock({ $0 }) { break }
            }
        }
        running.cancel()
        await running.value
        forward.cancel()
        timer.cancel()
        return satisfied
    }
}

/// Keeps log records in memory and ticks the harness on each, so conditions on logs and health
/// are checked as soon as something is reported.
struct TickingLogHandler: LogHandler {
    let logs: InMemoryLogHandler
    let tick: AsyncStream<Void>.Continuation

    func log(_ record: LogRecord) {
        logs.log(record)
        tick.yield()
    }
}
