import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization

@testable import LiveBridgeCore

/// One bridge on virtual time: the real engine, delivery queue and PushWard sink, talking over
/// real sockets to the strict `FakePushWardServer`. The test drives time (`play`, `advance`), so
/// a half-hour job with a ten-minute outage runs in about a second; every delivery attempt is a
/// real HTTP request (or a real refused connection).
///
/// After every step it records how many frames wait per slug, so a test can assert memory stays
/// bounded (`DeliveryQueue.maximumFramesPerSlug`) for the whole run, not only at the end.
final class VirtualBridge: Sendable {
    static let apiKey = "hlk_reliability0123456789abcdefghijklm"
    static let start = 1_781_517_600.0

    /// Frames a slug may hold at most (the delivery queue's cap).
    static var queueCap: Int { DeliveryQueue.maximumFramesPerSlug }

    let clock: VirtualClock
    let pushward: FakePushWardServer
    let sink: PushWardSink
    let queue: DeliveryQueue
    let engine: ActivityEngine
    let health = HealthRegistry()
    let metrics = MetricsRegistry()
    let logs = InMemoryLogHandler()
    let store: any StateStore
    let logger: Logger
    private let pendingMaxima = Mutex<[String: Int]>([:])
    /// The content of the newest frame the engine pushed per slug: what it intends the service to
    /// show once its tracker is forgotten (an ended activity whose end was delivered).
    private let lastPushed = Mutex<[String: JSONValue]>([:])

    /// A bridge at `clock`'s time. `baseURL` sends the sink elsewhere (a fault proxy in front of
    /// the fake); `store` lets a second bridge resume what a first one persisted.
    init(
        clock: VirtualClock = VirtualClock(start: VirtualBridge.start), pushward: FakePushWardServer? = nil,
        baseURL: String? = nil, sinkTimeout: Double = 5, store: any StateStore = MemoryStateStore(),
        settings: EconomySettings = EconomySettings(), jitterSeed: UInt64 = 11
    ) async throws {
        self.clock = clock
        let fake = try pushward ?? FakePushWardServer(apiKey: Self.apiKey, clock: clock)
        self.pushward = fake
        self.store = store
        logger = Logger(label: "reliability", level: .debug, handler: logs, now: { [clock] in clock.now })
        sink = PushWardSink(
            configuration: .init(
                name: "phone", baseURL: baseURL ?? fake.baseURL, apiKey: fake.apiKey, timeout: sinkTimeout,
                keyPath: "sinks[0].apiKey"),
            transport: HTTPClient.shared, clock: clock)
        queue = DeliveryQueue(
            sink: sink, clock: clock, logger: logger.child("sink.phone"), metrics: metrics,
            health: health.reporter(kind: "sink", name: "phone", type: "pushward", clock: clock), jitterSeed: jitterSeed
        )
        engine = ActivityEngine(
            bindings: [.init(sink: sink, queue: queue, ledger: BudgetLedger(sink: "phone", limit: nil, store: store))],
            settings: settings, clock: clock, store: store, logger: logger.child("engine"), metrics: metrics,
            health: health.reporter(kind: "state", name: "dataDir", type: "files", clock: clock))
        await engine.addListener { [weak self] event in
            if case .pushed(let frame) = event.kind { self?.lastPushed.withLock { $0[frame.slug] = frame.content } }
        }
        await engine.start()
    }

    // MARK: - Driving virtual time

    /// Hands one observation to the engine and delivers what became due.
    func emit(_ update: ActivityUpdate) async {
        await engine.emit(update)
        await deliver()
    }

    /// Delivers everything due now: tracker deadlines, then every due head, until nothing is due
    /// at the current virtual time (bounded).
    func deliver() async {
        for _ in 0..<16 {
            await engine.runDue()
            await notePending()
            guard let next = await queue.pump(), next <= clock.now else { break }
        }
        await notePending()
    }

    /// Moves time to `time` and delivers.
    func advance(to time: Double) async {
        clock.advance(to: time)
        await deliver()
    }

    /// Plays `updates` (sorted by `observedAt`) from the clock's time through `end`, one `step`
    /// of virtual seconds at a time; `before(t)` runs at the start of each step (fault injection).
    func play(
        _ updates: [ActivityUpdate], through end: Double, step: Double = 1,
        before: (Double) async throws -> Void = { _ in }
    ) async rethrows {
        var pending = updates.sorted { ($0.observedAt ?? 0) < ($1.observedAt ?? 0) }[...]
        var t = clock.now
        while t <= end {
            try await before(t)
            clock.advance(to: t)
            while let next = pending.first, (next.observedAt ?? 0) <= t {
                pending.removeFirst()
                await engine.emit(next)
            }
            await deliver()
            t += step
        }
    }

    // MARK: - Observations

    private func notePending() async {
        for slug in await engine.slugs {
            let count = await queue.pending(slug).count
            pendingMaxima.withLock { $0[slug] = max($0[slug] ?? 0, count) }
        }
    }

    /// The most frames each slug ever had waiting.
    var maximumPending: [String: Int] { pendingMaxima.withLock { $0 } }

    /// What the tracker believes the service shows for `slug` — after an ended activity's tracker
    /// was forgotten, the content of the last frame pushed for it.
    func intended(_ slug: String) async -> JSONValue? {
        if let tracker = await engine.tracker(sink: "phone", slug: slug) { return tracker.stored }
        return lastPushed.withLock { $0[slug] }
    }

    /// True when the fake shows exactly what the tracker intends for `slug`.
    func inSync(_ slug: String) async -> Bool {
        guard let intended = await intended(slug), let shown = pushward.activity(slug)?.content else { return false }
        return intended == shown
    }

    /// The sink's `/health` entry.
    var sinkHealth: ComponentHealth? { health.snapshot.first { $0.kind == "sink" && $0.name == "phone" } }

    /// `/health` as the control server would serve it.
    var healthText: String { JSONWriter.string(health.json(now: clock.now)) }

    /// Delivery attempts that failed, by reason label (`unavailable`, `rate_limited`, `quota`).
    func failedAttempts(_ reason: String) -> Int {
        Int(metrics.value("livebridge_pushes_failed_total", ["sink": "phone", "reason": reason]))
    }

    /// `POST /activities` requests for `slug` the fake accepted.
    func creates(_ slug: String) -> Int {
        pushward.records.filter { $0.method == "POST" && $0.body?["slug"]?.stringValue == slug && $0.status == 201 }
            .count
    }

    func shutdown() async {
        await engine.shutdown(endActivities: false, flushTimeout: 0)
        pushward.shutdown()
    }
}

extension VirtualBridge {
    /// The context a supervisor would give source `name`: updates go to this bridge's engine.
    func context(
        source name: String, type: String, store: any StateStore = MemoryStateStore(),
        onEmit: @escaping @Sendable (ActivityUpdate) -> Void = { _ in }
    ) -> AdapterContext {
        let engine = self.engine
        return AdapterContext(
            name: name,
            emit: { update in
                onEmit(update)
                await engine.emit(update)
            },
            logger: logger.child("\(type).\(name)"), clock: clock, store: store,
            health: health.reporter(kind: "source", name: name, type: type, clock: clock), metrics: metrics)
    }

    /// The source's `/health` entry.
    func sourceHealth(_ name: String) -> ComponentHealth? {
        health.snapshot.first { $0.kind == "source" && $0.name == name }
    }

    /// Follows an adapter that sleeps on this bridge's clock between polls: each time it sleeps,
    /// `before(t)` runs (fault injection), time moves to its wake-up and what is due is
    /// delivered — until `done()` holds. Bounded by `timeout` real seconds.
    func followSleeps(
        timeout: Double = 30, before: (Double) async throws -> Void = { _ in }, until done: () async -> Bool
    ) async throws {
        let started = ContinuousClock.now
        while true {
            try await clock.waitForSleeper(timeout: 15, "the adapter's next sleep")
            // Deliver what the adapter's last poll emitted, at the time it emitted it.
            await deliver()
            if await done() { return }
            guard seconds(since: started) < timeout else {
                throw TestTimeout("the adapter did not get there within \(timeout) s")
            }
            try await before(clock.now)
            if let wake = clock.nextDeadline { clock.advance(to: wake) }
        }
    }
}
