import LiveBridgeCore
import Synchronization
import Testing

/// An in-memory push service: applies each frame's merge patch to its stored document, fails
/// the test on an out-of-order frame, and can be told to fail.
final class RecordingSink: Sink {
    struct Request: Sendable {
        var time: Double
        var frame: ActivityFrame
    }

    struct State {
        var documents: [String: JSONValue] = [:]
        var activityStates: [String: String] = [:]
        var lastSequence: [String: Int] = [:]
        var accepted: [Request] = []
        var attempts: [Request] = []
        var failures: [SinkError] = []
        var outOfOrder: [String] = []
        /// How many frames had been accepted when the engine closed the sink (nil: still open).
        var closedAfter: Int?
    }

    let name = "fake"
    let type = "fake"
    let displayModel: DisplayModel
    let expiresStale: Bool
    let clock: any TimeSource
    let state = Mutex(State())

    init(model: DisplayModel = .interpolating, expiresStale: Bool = false, clock: any TimeSource) {
        self.displayModel = model
        self.expiresStale = expiresStale
        self.clock = clock
    }

    /// Queues errors to answer the next attempts with, in order.
    func fail(_ errors: [SinkError]) { state.withLock { $0.failures += errors } }

    func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        let now = clock.now
        let failure = state.withLock { state -> SinkError? in
            state.attempts.append(Request(time: now, frame: frame))
            return state.failures.isEmpty ? nil : state.failures.removeFirst()
        }
        if let failure { throw failure }
        state.withLock { state in
            if let last = state.lastSequence[frame.slug], frame.sequence <= last {
                state.outOfOrder.append("\(frame.slug): \(frame.sequence) after \(last)")
            }
            state.lastSequence[frame.slug] = frame.sequence
            let stored = state.documents[frame.slug] ?? .object([:])
            state.documents[frame.slug] = MergePatch.apply(frame.patch, to: frame.kind == .seed ? .object([:]) : stored)
            if let activityState = frame.activityState { state.activityStates[frame.slug] = activityState }
            state.accepted.append(Request(time: now, frame: frame))
        }
        return DeliveryReceipt(appliedAt: now)
    }

    func close() async { state.withLock { $0.closedAfter = $0.accepted.count } }
}

/// A sink that can say whether its spent quota was lifted (`available`), counting the checks.
final class QuotaReportingSink: Sink {
    let inner: RecordingSink
    let available = Mutex(false)
    let checks = Mutex(0)
    var name: String { inner.name }
    var type: String { inner.type }
    var displayModel: DisplayModel { inner.displayModel }
    var reportsQuota: Bool { true }

    init(_ inner: RecordingSink) { self.inner = inner }

    func quotaAvailable() async -> Bool? {
        checks.withLock { $0 += 1 }
        return available.withLock { $0 }
    }

    func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        try await inner.deliver(frame)
    }
}

/// A sink that is down (every call fails as unavailable) while `down` is true.
final class OutageSink: Sink {
    let inner: RecordingSink
    let down = Mutex(false)
    var name: String { inner.name }
    var type: String { inner.type }
    var displayModel: DisplayModel { inner.displayModel }

    init(_ inner: RecordingSink) { self.inner = inner }

    func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        if down.withLock({ $0 }) {
            inner.state.withLock { $0.attempts.append(.init(time: inner.clock.now, frame: frame)) }
            throw SinkError(.unavailable, message: "connection refused")
        }
        return try await inner.deliver(frame)
    }
}

@Suite("Delivery")
struct DeliveryTests {
    func makeQueue(_ sink: any Sink, clock: VirtualClock, policy: RetryPolicy = RetryPolicy()) -> DeliveryQueue {
        DeliveryQueue(
            sink: sink, policy: policy, clock: clock, logger: .disabled, metrics: MetricsRegistry(),
            health: .detached(clock: clock), jitterSeed: 1)
    }

    func frame(_ slug: String, _ sequence: Int, kind: FrameKind = .update, patch: JSONValue, time: Double = 0)
        -> ActivityFrame
    {
        ActivityFrame(
            slug: slug, name: slug, kind: kind, activityState: kind == .end ? "ended" : "ongoing", patch: patch,
            content: patch, time: time, reason: .structural, sequence: sequence)
    }

    @Test("delivers after three 503s, backing off on the injected clock")
    func retriesUnavailable() async {
        let clock = VirtualClock(start: 0)
        let sink = RecordingSink(clock: clock)
        sink.fail(Array(repeating: SinkError(.unavailable, status: 503, message: "service unavailable"), count: 3))
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, kind: .seed, patch: ["template": "generic", "progress": 0]))
        var next = await queue.pump()
        var waits: [Double] = []
        while let due = next {
            waits.append(due - clock.now)
            clock.advance(to: due)
            next = await queue.pump()
        }
        #expect(sink.state.withLock { $0.attempts.count } == 4)
        #expect(sink.state.withLock { $0.accepted.count } == 1)
        // Exponential: about 1 s, 2 s, 4 s (±20 % jitter).
        #expect(waits.count == 3)
        #expect(
            waits[0] >= 0.8 && waits[0] <= 1.2 && waits[1] >= 1.6 && waits[1] <= 2.4 && waits[2] >= 3.2
                && waits[2] <= 4.8)
    }

    @Test("waits at least Retry-After on a 429 rate limit")
    func honoursRetryAfter() async {
        let clock = VirtualClock(start: 0)
        let sink = RecordingSink(clock: clock)
        sink.fail([
            SinkError(.rateLimited(retryAfter: 42), code: "rate_limit.exceeded", status: 429, message: "slow down")
        ])
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        let next = await queue.pump()
        #expect(next == 42)
        clock.advance(to: 41.9)
        await queue.pump()
        #expect(sink.state.withLock { $0.attempts.count } == 1)
        clock.advance(to: 42)
        await queue.pump()
        #expect(sink.state.withLock { $0.accepted.count } == 1)
    }

    @Test("clamps an absurd Retry-After to two minutes")
    func clampsRetryAfter() async {
        let clock = VirtualClock(start: 0)
        let sink = RecordingSink(clock: clock)
        sink.fail([SinkError(.rateLimited(retryAfter: 86_400), status: 429, message: "slow down")])
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        #expect(await queue.pump() == 120)
    }

    @Test("does not retry an exhausted quota; holds the newest state until the reset")
    func quotaIsSticky() async {
        let clock = VirtualClock(start: 1_781_517_600)
        let sink = RecordingSink(clock: clock)
        let reset = 1_782_864_000.0
        sink.fail([SinkError(.quotaExhausted(until: reset), code: "quota.exceeded", status: 429, message: "quota")])
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        #expect(await queue.pump() == reset)
        for step in 2...50 {
            clock.advance(by: 60)
            await queue.enqueue(frame("a", step, patch: ["progress": .number(Double(step) / 100)]))
            await queue.pump()
        }
        #expect(sink.state.withLock { $0.attempts.count } == 1)
        #expect(await queue.isQuotaExhausted)
        #expect(await queue.pending("a").count == 1)
        clock.advance(to: reset)
        await queue.pump()
        #expect(sink.state.withLock { $0.documents["a"]?["progress"] } == 0.5)
    }

    @Test(
        "a spent quota lifted by an upgrade: the sink is asked hourly without a frame being sent, and the newest state goes out at the check that sees it"
    )
    func quotaLiftedBeforeReset() async {
        let clock = VirtualClock(start: 1_781_517_600)
        let sink = QuotaReportingSink(RecordingSink(clock: clock))
        let reset = 1_782_864_000.0
        sink.inner.fail([SinkError(.quotaExhausted(until: reset), code: "quota.exceeded", status: 429, message: "q")])
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        let start = clock.now
        #expect(await queue.pump() == start + 3600)
        for step in 2...5 {
            clock.advance(by: 600)
            await queue.enqueue(frame("a", step, patch: ["progress": .number(Double(step) / 10)]))
            await queue.pump()
        }
        clock.advance(to: start + 3600)
        #expect(await queue.pump() == start + 7200, "still spent: asked again in an hour")
        #expect(sink.checks.withLock { $0 } == 1)
        #expect(sink.inner.state.withLock { $0.attempts.count } == 1, "no frame sent to find out")
        #expect(await queue.isQuotaExhausted)
        sink.available.withLock { $0 = true }
        clock.advance(to: start + 7200)
        await queue.pump()
        #expect(sink.checks.withLock { $0 } == 2)
        #expect(!(await queue.isQuotaExhausted))
        #expect(sink.inner.state.withLock { $0.attempts.count } == 2, "the held state in one request")
        #expect(sink.inner.state.withLock { $0.documents["a"]?["progress"] } == 0.5)
    }

    @Test(
        "a quota reset the service states in the past is tried again five minutes on, not at once; one centuries ahead is held to the start of the month after next"
    )
    func quotaResetOutOfRange() async {
        let start = 1_781_517_600.0  // 2026-06-15
        let clock = VirtualClock(start: start)
        let sink = RecordingSink(clock: clock)
        // Every call refused with a reset a minute ago (the service's clock behind this one's).
        let refusal = SinkError(.quotaExhausted(until: start - 60), code: "quota.exceeded", status: 429, message: "q")
        sink.fail(Array(repeating: refusal, count: 10))
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        #expect(await queue.pump() == start + QuotaReset.recheck)
        for _ in 0..<20 { await queue.pump() }
        #expect(sink.state.withLock { $0.attempts.count } == 1, "no loop of refused requests")
        clock.advance(to: start + QuotaReset.recheck)
        await queue.pump()
        #expect(sink.state.withLock { $0.attempts.count } == 2, "tried again once the recheck is due")

        // A reset in the year 2500: held to 2026-08-01, the start of the month after next.
        let far = RecordingSink(clock: clock)
        far.fail([SinkError(.quotaExhausted(until: 16_725_225_600), status: 429, message: "q")])
        let held = makeQueue(far, clock: clock)
        await held.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        let august = Double(CivilTime.daysFromCivil(year: 2026, month: 8, day: 1)) * 86400
        #expect(await held.pump() == august)
    }

    @Test(
        "waiting for idle gives up at once when nothing can go out before the deadline (a spent quota, a retry later)",
        .timeLimit(.minutes(1)))
    func idleWaitWhenNothingCanGo() async {
        let clock = VirtualClock(start: 1_781_517_600)
        let sink = RecordingSink(clock: clock)
        sink.fail([SinkError(.quotaExhausted(until: 1_782_864_000), status: 429, message: "quota")])
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        await queue.pump()
        // The virtual clock never moves here: a wait for the deadline would not return.
        #expect(await queue.waitUntilIdle(deadline: clock.now + 5) == false)
        let retrying = RecordingSink(clock: clock)
        retrying.fail([SinkError(.unavailable, status: 503, message: "down")])
        var policy = RetryPolicy()
        policy.initialDelay = 30
        policy.jitter = 0
        let later = makeQueue(retrying, clock: clock, policy: policy)
        await later.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        #expect(await later.pump() == clock.now + 30)
        #expect(await later.waitUntilIdle(deadline: clock.now + 5) == false, "its retry is after the deadline")
        #expect(await later.pendingCount == 1, "nothing is dropped: it only stops waiting")
    }

    @Test("a refused frame is dropped and reported, not retried")
    func rejectedIsDropped() async {
        let clock = VirtualClock(start: 0)
        let sink = RecordingSink(clock: clock)
        sink.fail([
            SinkError(.rejected, code: "activity.content_invalid", status: 422, message: "progress out of range")
        ])
        let queue = makeQueue(sink, clock: clock)
        let dropped = Mutex<[Int]>([])
        await queue.setObserver(
            DeliveryObserver(dropped: { frame, _ in dropped.withLock { $0.append(frame.sequence) } }))
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1]))
        #expect(await queue.pump() == nil)
        #expect(dropped.withLock { $0 } == [1])
        #expect(sink.state.withLock { $0.attempts.count } == 1)
    }

    @Test("the circuit breaker opens after repeated faults and lets one probe through")
    func circuitBreaker() async {
        let clock = VirtualClock(start: 0)
        let sink = OutageSink(RecordingSink(clock: clock))
        sink.down.withLock { $0 = true }
        let queue = makeQueue(sink, clock: clock)
        for slug in ["a", "b", "c"] { await queue.enqueue(frame(slug, 1, patch: ["progress": 0.1])) }
        var next = await queue.pump()
        while let due = next, due < 600 {
            clock.advance(to: due)
            next = await queue.pump()
        }
        #expect(await queue.isBreakerOpen)
        // Without the breaker, 3 slugs retrying every ≤ 30 s for 600 s would make > 60 attempts.
        let attempts = sink.inner.state.withLock { $0.attempts.count }
        #expect(attempts < 30)
        sink.down.withLock { $0 = false }
        while let due = next {
            clock.advance(to: due)
            next = await queue.pump()
        }
        #expect(sink.inner.state.withLock { $0.accepted.count } == 3)
        #expect(!(await queue.isBreakerOpen))
    }

    @Test("newer frames merge into a waiting one; an end is never merged away")
    func coalescing() async {
        let clock = VirtualClock(start: 0)
        let sink = OutageSink(RecordingSink(clock: clock))
        sink.down.withLock { $0 = true }
        let queue = makeQueue(sink, clock: clock)
        await queue.enqueue(frame("a", 1, patch: ["progress": 0.1, "state": "Downloading"]))
        await queue.pump()
        await queue.enqueue(frame("a", 2, patch: ["progress": 0.2]))
        await queue.enqueue(
            frame("a", 3, kind: .final, patch: ["progress": 1, "state": "Complete", "end_date": .null]))
        await queue.enqueue(frame("a", 4, kind: .end, patch: [:]))
        await queue.enqueue(
            frame("a", 5, kind: .seed, patch: ["template": "generic", "progress": 0, "state": "Queued"]))
        let pending = await queue.pending("a")
        #expect(pending.map(\.kind) == [.end, .seed])
        #expect(pending[0].patch["state"] == "Complete")
        #expect(pending[0].patch["end_date"] == .null)
    }
}

@Suite("Engine")
struct EngineTests {
    /// An engine around `sink`, started; tests pump it with `runDue()`, or run it (`run()`: its own
    /// timer and queue drivers, as in `livebridge run`).
    func makeEngine(
        sink: any Sink, clock: VirtualClock, store: any StateStore = MemoryStateStore()
    ) async -> ActivityEngine {
        let metrics = MetricsRegistry()
        let queue = DeliveryQueue(
            sink: sink, clock: clock, logger: .disabled, metrics: metrics, health: .detached(clock: clock),
            jitterSeed: 3)
        let engine = ActivityEngine(
            bindings: [
                .init(sink: sink, queue: queue, ledger: BudgetLedger(sink: sink.name, limit: nil, store: store))
            ],
            settings: EconomySettings(), clock: clock, store: store, logger: .disabled, metrics: metrics)
        await engine.start()
        return engine
    }

    @Test(
        "a job paused for 10 hours gets heartbeats only on a sink whose service ends an activity without updates",
        arguments: [true, false])
    func heartbeatsOnlyWhereStaleExpires(expires: Bool) async {
        let clock = VirtualClock(start: 1_781_517_600)
        let sink = RecordingSink(expiresStale: expires, clock: clock)
        let engine = await makeEngine(sink: sink, clock: clock)
        var job = Trajectory(start: clock.now)
        job.progress = 0.3
        await engine.emit(job.update(.paused, state: "Paused", remaining: nil))
        await engine.runDue()
        for _ in 0..<600 {
            clock.advance(by: 60)
            await engine.runDue()
        }
        let accepted = sink.state.withLock { $0.accepted }
        let beats = accepted.filter { $0.frame.reason == .heartbeat }
        let stale = accepted.compactMap(\.frame.ttls.stale).first ?? 0
        if expires {
            // One before each `stale_ttl` (4 h while paused) runs out: two in ten hours.
            #expect(stale > 0)
            #expect(beats.count == Int(36_000 / Double(stale)), "\(beats.map { $0.time - 1_781_517_600 })")
        } else {
            #expect(beats.isEmpty, "\(beats.map { $0.time - 1_781_517_600 })")
        }
        #expect(accepted.first?.frame.kind == .seed)
    }

    @Test("a 10-minute outage: afterwards each activity's latest state arrives in order, one request per slug")
    func outage() async throws {
        let clock = VirtualClock(start: 1_781_517_600)
        let recorder = RecordingSink(clock: clock)
        let sink = OutageSink(recorder)
        let engine = await makeEngine(sink: sink, clock: clock)
        var finishing = Trajectory(start: clock.now)
        finishing.slug = "finishing"
        var running = Trajectory(start: clock.now)
        running.slug = "running"
        let outageStart = clock.now + 600
        let outageEnd = outageStart + 600
        var acceptedBeforeRecovery = 0
        for step in 0..<1200 {
            let t = clock.now
            if t >= outageStart && t < outageEnd {
                sink.down.withLock { $0 = true }
            } else {
                sink.down.withLock { $0 = false }
            }
            if t == outageEnd { acceptedBeforeRecovery = recorder.state.withLock { $0.accepted.count } }
            // "finishing" completes during the outage; "running" halves its speed during it.
            if finishing.progress < 1 {
                finishing.time = t
                await engine.emit(
                    finishing.update(.active, state: "Downloading", remaining: (1 - finishing.progress) * 900))
                finishing.progress = min(1, finishing.progress + 3.0 / 900)
            } else if step % 100 == 0 || t < outageEnd {
                finishing.time = t
                await engine.emit(finishing.update(.ended(.success), state: "Complete", remaining: nil))
            }
            let rate = t < outageStart + 200 ? 1.0 / 7200 : 0.5 / 7200
            running.time = t
            await engine.emit(running.update(.active, state: "Downloading", remaining: (1 - running.progress) / rate))
            running.progress += rate * 3
            await engine.runDue()
            clock.advance(by: 3)
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.outOfOrder.isEmpty)
        let afterRecovery = state.accepted.dropFirst(acceptedBeforeRecovery)
        // The backlog collapsed: "finishing" ended with one request, "running" caught up with one.
        let recoveryWindow = afterRecovery.filter { $0.time < outageEnd + 310 }
        #expect(recoveryWindow.filter { $0.frame.slug == "finishing" }.count == 1)
        #expect(recoveryWindow.filter { $0.frame.slug == "running" }.count == 1)
        #expect(state.activityStates["finishing"] == "ended")
        #expect(state.documents["finishing"]?["state"] == "Complete")
        #expect(state.documents["finishing"]?["live_progress"] == nil)
        let tracker = try #require(await engine.tracker(sink: "fake", slug: "running"))
        #expect(state.documents["running"] == tracker.stored)
        #expect(await engine.bindings[0].queue.pendingCount == 0)
    }

    @Test("a restarted engine resumes from the data directory without a second create")
    func resume() async throws {
        let clock = VirtualClock(start: 1_781_517_600)
        let store = MemoryStateStore()
        let recorder = RecordingSink(clock: clock)
        var job = Trajectory(start: clock.now)
        do {
            let engine = await makeEngine(sink: recorder, clock: clock, store: store)
            for _ in 0..<100 {
                job.time = clock.now
                await engine.emit(job.update(.active, state: "Downloading", remaining: (1 - job.progress) * 3600))
                job.progress += 3.0 / 3600
                await engine.runDue()
                clock.advance(by: 3)
            }
            await engine.shutdown(endActivities: false, flushTimeout: 1)
        }
        #expect(store.keys.contains("trackers.json"))
        let seedsBefore = recorder.state.withLock { $0.accepted.filter { $0.frame.kind == .seed }.count }
        #expect(seedsBefore == 1)
        let engine = await makeEngine(sink: recorder, clock: clock, store: store)
        for _ in 0..<100 {
            job.time = clock.now
            await engine.emit(job.update(.active, state: "Downloading", remaining: (1 - job.progress) * 3600))
            job.progress += 3.0 / 3600
            await engine.runDue()
            clock.advance(by: 3)
        }
        job.time = clock.now
        await engine.emit(job.update(.ended(.success), state: "Complete", remaining: nil))
        await engine.runDue()
        clock.advance(by: 5)
        await engine.runDue()
        let kinds = recorder.state.withLock { $0.accepted.map(\.frame.kind) }
        #expect(kinds == [.seed, .final, .end])
        #expect(recorder.state.withLock { $0.activityStates["job"] } == "ended")
    }

    @Test("shutdown closes each sink after its last frame was delivered")
    func shutdownClosesSinks() async throws {
        let clock = VirtualClock(start: 1_781_517_600)
        let recorder = RecordingSink(clock: clock)
        let engine = await makeEngine(sink: recorder, clock: clock)
        var job = Trajectory(start: clock.now)
        await engine.emit(job.update(.active, state: "Downloading", remaining: 3600))
        await engine.runDue()
        clock.advance(by: 3)
        job.time = clock.now
        await engine.emit(job.update(.ended(.success), state: "Complete", remaining: nil))
        await engine.runDue()
        clock.advance(by: 5)
        await engine.runDue()
        #expect(recorder.state.withLock { $0.closedAfter } == nil)
        await engine.shutdown(endActivities: false, flushTimeout: 1)
        let state = recorder.state.withLock { $0 }
        #expect(state.accepted.map(\.frame.kind) == [.seed, .final, .end])
        #expect(state.closedAfter == 3)
    }

    @Test(
        "endOnShutdown: a running activity is ended with a \"Bridge stopped\" frame before the sink closes",
        .timeLimit(.minutes(1)))
    func shutdownEndsActivities() async throws {
        let clock = VirtualClock(start: 1_781_517_600)
        let recorder = RecordingSink(clock: clock)
        let engine = await makeEngine(sink: recorder, clock: clock)
        let driver = Task { await engine.run() }
        defer { driver.cancel() }
        let queue = engine.bindings[0].queue
        let job = Trajectory(start: clock.now)
        await engine.emit(job.update(.active, state: "Downloading", remaining: 3600))
        #expect(await queue.waitUntilIdle(deadline: .infinity))
        #expect(recorder.state.withLock { $0.accepted.map(\.frame.kind) } == [.seed])
        await engine.shutdown(endActivities: true, flushTimeout: 5)
        let state = recorder.state.withLock { $0 }
        // The final frame and the end were both waiting: the queue sends them as one request.
        #expect(state.accepted.map(\.frame.kind) == [.seed, .end])
        #expect(state.documents["job"]?["state"] == "Bridge stopped")
        #expect(state.activityStates["job"] == "ended")
        #expect(state.closedAfter == 2)
        #expect(state.outOfOrder.isEmpty)
    }

    @Test("a data directory that cannot be written is reported and bridging continues")
    func unwritableStore() async throws {
        struct BrokenStore: StateStore {
            func read(_ key: String) throws(StateStoreError) -> [UInt8]? { nil }
            func write(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) {
                throw StateStoreError(key: key, message: "No space left on device")
            }
            func remove(_ key: String) throws(StateStoreError) {}
        }
        let clock = VirtualClock(start: 1_781_517_600)
        let recorder = RecordingSink(clock: clock)
        let registry = HealthRegistry()
        let health = registry.reporter(kind: "state", name: "dataDir", type: "files", clock: clock)
        let queue = DeliveryQueue(
            sink: recorder, clock: clock, logger: .disabled, metrics: MetricsRegistry(), health: .detached())
        let engine = ActivityEngine(
            bindings: [
                .init(
                    sink: recorder, queue: queue, ledger: BudgetLedger(sink: "fake", limit: nil, store: BrokenStore()))
            ],
            settings: EconomySettings(), clock: clock, store: BrokenStore(), logger: .disabled,
            metrics: MetricsRegistry(),
            health: health)
        await engine.start()
        let job = Trajectory(start: clock.now)
        await engine.emit(job.update(.active, state: "Downloading", remaining: 600))
        await engine.runDue()
        #expect(recorder.state.withLock { $0.accepted.count } == 1)
        let entry = try #require(health.current)
        #expect(entry.status == .degraded)
        #expect(entry.lastError?.contains("No space left on device") == true)
    }
}
