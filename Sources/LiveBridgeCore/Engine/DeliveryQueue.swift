/// What delivery tells its owner about each frame's fate.
public struct DeliveryObserver: Sendable {
    /// The service accepted the frame.
    public var delivered: @Sendable (ActivityFrame, DeliveryReceipt) async -> Void
    /// The frame was given up (refused for good, or out of attempts).
    public var dropped: @Sendable (ActivityFrame, SinkError) async -> Void
    /// Asked before sending a frame that waited: returns it with fresh anchors, or nil to keep it.
    public var refresh: @Sendable (ActivityFrame) async -> ActivityFrame?

    public init(
        delivered: @escaping @Sendable (ActivityFrame, DeliveryReceipt) async -> Void = { _, _ in },
        dropped: @escaping @Sendable (ActivityFrame, SinkError) async -> Void = { _, _ in },
        refresh: @escaping @Sendable (ActivityFrame) async -> ActivityFrame? = { _ in nil }
    ) {
        self.delivered = delivered
        self.dropped = dropped
        self.refresh = refresh
    }
}

/// Ordered, coalescing, retrying delivery of frames to one sink.
///
/// Per slug, frames go out strictly in order, one request at a time; a newer frame merges into
/// one still waiting (`ActivityFrame.merging`), so after an outage each activity costs one
/// request with its latest state instead of the backlog, and memory stays bounded. Due slugs are
/// delivered concurrently. Network errors and 5xx back off with jitter and, when they persist,
/// open a circuit breaker; a 429 waits its `Retry-After`; a spent quota stops spending until it
/// resets; refused frames are dropped and reported so the tracker resynchronises.
///
/// The retry schedule is data (`nextAttempt` per slug), not sleeping tasks: `pump()` delivers
/// whatever is due now and returns when to come back. `start()` runs a driver task that pumps and
/// sleeps on the injected clock; tests call `pump()` themselves after advancing a virtual clock.
public actor DeliveryQueue {
    /// Frames kept per slug at most; beyond it waiting frames collapse into the newest state.
    static let maximumFramesPerSlug = 4
    /// A frame that waited this long (seconds) gets fresh anchors before it is sent.
    static let refreshAge: Double = 5

    private struct SlugState {
        var frames: [ActivityFrame] = []
        var attempts = 0
        var nextAttempt: Double = -.infinity
    }

    public nonisolated let sink: any Sink
    private let policy: RetryPolicy
    private let clock: any TimeSource
    private let logger: Logger
    private let metrics: MetricsRegistry
    private let health: HealthReporter
    /// The sink's `/health` entry (the engine adds what it knows about the sink to it).
    public nonisolated var healthReporter: HealthReporter { health }
    private let ledger: BudgetLedger?
    private var observer = DeliveryObserver()
    /// Breaker, rate limit, quota and authentication gates: the one place faults are judged.
    private var faults: DeliveryFaults

    private var slugs: [String: SlugState] = [:]
    private var inFlight: Set<String> = []
    private var driver: Task<Void, Never>?
    private var wakeup: CheckedContinuation<Void, Never>?
    private var idleWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0

    public init(
        sink: any Sink, policy: RetryPolicy = RetryPolicy(), clock: any TimeSource, logger: Logger,
        metrics: MetricsRegistry, health: HealthReporter, ledger: BudgetLedger? = nil, jitterSeed: UInt64 = 0
    ) {
        self.sink = sink
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.health = health
        self.ledger = ledger
        faults = DeliveryFaults(
            policy: policy, sink: sink.name,
            jitter: JitterSource(seed: jitterSeed == 0 ? UInt64(abs(clock.now) * 1000) | 1 : jitterSeed),
            sinkKeepsQuota: sink.keepsOwnQuota, sinkReportsQuota: sink.reportsQuota)
    }

    /// Sets who hears about delivered and dropped frames.
    public func setObserver(_ observer: DeliveryObserver) {
        self.observer = observer
    }

    /// Frames waiting (including the ones in flight).
    public var pendingCount: Int { slugs.values.reduce(0) { $0 + $1.frames.count } }

    /// Frames waiting for one slug.
    public func pending(_ slug: String) -> [ActivityFrame] { slugs[slug]?.frames ?? [] }

    /// True while the monthly quota is spent.
    public var isQuotaExhausted: Bool { (faults.quotaUntil ?? -.infinity) > clock.now }

    /// True while the circuit breaker is open.
    public var isBreakerOpen: Bool { faults.breakerOpenUntil != nil }

    /// Queues a frame; it merges into the last waiting frame of its slug when it can.
    public func enqueue(_ frame: ActivityFrame) {
        var state = slugs[frame.slug] ?? SlugState()
        var queue = state.frames
        let headBusy = inFlight.contains(frame.slug)
        if let last = queue.last, !(headBusy && queue.count == 1) {
            if let merged = last.merging(frame) {
                queue[queue.count - 1] = merged
            } else if last.kind != .end && !(last.kind == .seed && frame.kind == .end) {
                // Patches RFC 7396 cannot compose: send the whole newer content instead.
                var resync = frame.resyncing()
                if last.kind == .seed { resync.kind = .seed }
                queue[queue.count - 1] = resync
            } else {
                queue.append(frame)
            }
        } else {
            queue.append(frame)
        }
        if queue.count > Self.maximumFramesPerSlug {
            // Keep the head (it may be in flight), the newest state, and the latest end before it
            // when the newest starts a new session: older ends are superseded by what followed
            // them (keeping every end let the queue grow by one frame per session the service
            // missed — without bound during a long outage or a spent quota).
            let newest = queue[queue.count - 1]
            var kept = [queue[0]]
            if newest.kind != .end, let lastEnd = queue.dropFirst().dropLast().last(where: { $0.kind == .end }) {
                kept.append(lastEnd)
            }
            kept.append(newest.resyncing())
            queue = kept
        }
        state.frames = queue
        slugs[frame.slug] = state
        metrics.set("livebridge_delivery_queue_frames", ["sink": sink.name], Double(pendingCount))
        wake()
    }

    // MARK: - Driving

    /// Starts the driver task that pumps whenever something is due.
    public func start() {
        guard driver == nil else { return }
        driver = Task { await self.drive() }
    }

    /// Stops the driver; frames still waiting stay in memory.
    public func stop() {
        driver?.cancel()
        driver = nil
        wake()
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters.values { waiter.resume() }
    }

    private func drive() async {
        while !Task.isCancelled {
            let next = await pump()
            if Task.isCancelled { return }
            await waitForWork(until: next)
        }
    }

    private func waitForWork(until deadline: Double?) async {
        let clock = self.clock
        let timer: Task<Void, Never>? = deadline.map { deadline in
            Task { [weak self] in
                try? await clock.sleep(until: deadline)
                await self?.wake()
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled || hasDueWork() {
                    continuation.resume()
                } else {
                    wakeup = continuation
                }
            }
        } onCancel: {
            Task { await self.wake() }
        }
        timer?.cancel()
    }

    private func wake() {
        wakeup?.resume()
        wakeup = nil
    }

    private func hasDueWork() -> Bool {
        let now = clock.now
        if let gate = faults.gate, gate > now { return false }
        return slugs.contains { slug, state in
            !state.frames.isEmpty && !inFlight.contains(slug) && state.nextAttempt <= now
        }
    }

    /// Delivers every slug whose head is due now (concurrently), handles the results, and
    /// returns when the next attempt is due (nil when nothing waits).
    @discardableResult
    public func pump() async -> Double? {
        if faults.takeQuotaCheck(now: clock.now) {
            // A spent quota may have been lifted (an upgrade): the sink asks without spending.
            let available = await sink.quotaAvailable()
            perform(faults.quotaChecked(available: available, now: clock.now))
        }
        let now = clock.now
        if let gate = faults.gate, gate > now { return nextWake() }
        let due = slugs.filter { slug, state in
            !state.frames.isEmpty && !inFlight.contains(slug) && state.nextAttempt <= now
        }.keys.sorted()
        // With the breaker open, one probe goes through; the rest wait for its verdict.
        let batch = faults.breakerOpenUntil != nil ? Array(due.prefix(1)) : due
        guard !batch.isEmpty else { return nextWake() }
        var heads: [(String, ActivityFrame)] = []
        for slug in batch {
            guard var head = slugs[slug]?.frames.first else { continue }
            inFlight.insert(slug)
            if now - head.time >= Self.refreshAge, let fresh = await observer.refresh(head) {
                head = fresh
                slugs[slug]?.frames[0] = fresh
            }
            heads.append((slug, head))
        }
        let sink = self.sink
        let results = await withTaskGroup(of: (String, ActivityFrame, Result<DeliveryReceipt, SinkError>).self) {
            group in
            for (slug, frame) in heads {
                group.addTask {
                    do throws(SinkError) {
                        return (slug, frame, .success(try await sink.deliver(frame)))
                    } catch {
                        return (slug, frame, .failure(error))
                    }
                }
            }
            var collected: [(String, ActivityFrame, Result<DeliveryReceipt, SinkError>)] = []
            for await result in group { collected.append(result) }
            return collected
        }
        for (slug, frame, result) in results.sorted(by: { $0.0 < $1.0 }) {
            inFlight.remove(slug)
            switch result {
            case .success(let receipt): await delivered(slug: slug, frame: frame, receipt: receipt)
            case .failure(let error): await failed(slug: slug, frame: frame, error: error)
            }
        }
        notifyIfIdle()
        return nextWake()
    }

    /// When something is next due, nil when nothing waits.
    private func nextWake() -> Double? {
        let waiting = slugs.filter { !$0.value.frames.isEmpty }
        guard !waiting.isEmpty else { return nil }
        let earliest = waiting.values.map(\.nextAttempt).min() ?? clock.now
        return max(earliest, faults.nextLook ?? -.infinity)
    }

    /// Waits until every frame is delivered or given up, or until `deadline`; true when idle.
    /// Returns false at once when no frame can be sent before `deadline`.
    public func waitUntilIdle(deadline: Double) async -> Bool {
        if pendingCount == 0 { return true }
        // Nothing can go out before the deadline (a spent quota, an open breaker, every frame
        // waiting for its retry): waiting would only hold up a shutdown.
        if let gate = faults.gate, gate > deadline { return false }
        if slugs.values.allSatisfy({ $0.frames.isEmpty || $0.nextAttempt > deadline }) { return false }
        let clock = self.clock
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForIdle() }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitForIdle() async -> Bool {
        let id = nextWaiterID
        nextWaiterID += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if pendingCount == 0 || Task.isCancelled {
                    continuation.resume()
                } else {
                    idleWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelIdleWaiter(id) }
        }
        return pendingCount == 0
    }

    private func cancelIdleWaiter(_ id: Int) {
        idleWaiters.removeValue(forKey: id)?.resume()
    }

    private func notifyIfIdle() {
        guard pendingCount == 0 else { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters.values { waiter.resume() }
    }

    // MARK: - Results

    private func removeHead(_ slug: String) {
        guard var state = slugs[slug], !state.frames.isEmpty else { return }
        state.frames.removeFirst()
        state.attempts = 0
        state.nextAttempt = -.infinity
        slugs[slug] = state.frames.isEmpty ? nil : state
    }

    private func delivered(slug: String, frame: ActivityFrame, receipt: DeliveryReceipt) async {
        removeHead(slug)
        health.noteEvent()
        perform(faults.accepted())
        metrics.increment("livebridge_pushes_sent_total", ["sink": sink.name, "slug": slug])
        metrics.increment("livebridge_requests_total", ["sink": sink.name], by: Double(receipt.requests))
        metrics.set("livebridge_delivery_queue_frames", ["sink": sink.name], Double(pendingCount))
        if let ledger {
            if let problem = ledger.record(frame, at: receipt.appliedAt) {
                health.noteError("budget counter not persisted: \(problem)")
            }
            metrics.set("livebridge_budget_used", ["sink": sink.name], Double(ledger.used(at: receipt.appliedAt)))
        }
        await observer.delivered(frame, receipt)
    }

    private func failed(slug: String, frame: ActivityFrame, error: SinkError) async {
        metrics.increment("livebridge_pushes_failed_total", ["sink": sink.name, "reason": Self.label(error.kind)])
        guard var state = slugs[slug] else { return }
        state.attempts += 1
        let (verdict, actions) = faults.failed(error, slug: slug, attempt: state.attempts, now: clock.now)
        perform(actions)
        switch verdict {
        case .retry(let time):
            state.nextAttempt = time
            slugs[slug] = state
        case .hold(let resettingAttempts):
            if resettingAttempts { state.attempts = 0 }
            slugs[slug] = state
        case .drop:
            slugs[slug] = state
            await drop(slug: slug, frame: frame, error: error)
        }
    }

    /// Does what the fault state machine says, in order.
    private func perform(_ actions: [DeliveryFaults.Action]) {
        for action in actions {
            switch action {
            case .health(let status, let message): health.set(status, message)
            case .detail(let key, let value): health.setDetail(key, value)
            case .log(let level, let message, let metadata): logger.log(level, message, metadata)
            }
        }
    }

    private func drop(slug: String, frame: ActivityFrame, error: SinkError) async {
        removeHead(slug)
        health.noteError("\(sink.name): frame for \(slug) dropped: \(error)")
        logger.error("frame dropped", ["sink": sink.name, "slug": slug, "error": error.description])
        await observer.dropped(frame, error)
    }

    private static func label(_ kind: SinkError.Kind) -> String {
        switch kind {
        case .unavailable: "unavailable"
        case .rateLimited: "rate_limited"
        case .quotaExhausted: "quota"
        case .authentication: "authentication"
        case .rejected: "rejected"
        }
    }
}

extension ActivityFrame {
    /// This frame carrying the whole content: every known field not in it is cleared.
    public func resyncing() -> ActivityFrame {
        var copy = self
        var full = content.objectValue ?? [:]
        for field in GenericContent.fieldNames where full[field] == nil { full[field] = .null }
        copy.patch = .object(full)
        copy.reason = .resync
        return copy
    }
}
