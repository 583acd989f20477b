/// What the engine reports about each decision, for the preview page and tests.
public struct EngineEvent: Sendable {
    public enum Kind: Sendable {
        /// The tracker decided to push this frame.
        case pushed(ActivityFrame)
        /// The tracker decided an observation was not worth a push.
        case skipped(slug: String)
        /// A frame failed validation and was not sent.
        case invalid(slug: String, problems: [String])
    }

    public var sink: String
    public var kind: Kind
    public var time: Double
}

/// The heart of the bridge: one tracker per (sink, slug), one delivery queue per sink.
///
/// Adapters call `emit`; the engine runs every sink's tracker, validates and queues the frames,
/// runs a timer for end frames, deadline re-anchors and heartbeats, feeds delivery results back
/// into the trackers, and persists tracker state so a restart resumes where it left off.
public actor ActivityEngine {
    /// A sink together with its delivery queue and budget ledger.
    public struct Binding: Sendable {
        public var sink: any Sink
        public var queue: DeliveryQueue
        public var ledger: BudgetLedger

        public init(sink: any Sink, queue: DeliveryQueue, ledger: BudgetLedger) {
            self.sink = sink
            self.queue = queue
            self.ledger = ledger
        }
    }

    static let stateKey = "trackers.json"

    public nonisolated let bindings: [Binding]
    private let settings: EconomySettings
    private let clock: any TimeSource
    private let store: any StateStore
    private let logger: Logger
    private let metrics: MetricsRegistry
    private let health: HealthReporter?
    private var trackers: [String: [String: ActivityTracker]] = [:]
    private var timer: Task<Void, Never>?
    private var timerDeadline: Double?
    private var dirty = false
    private var persistFailure: String?
    private var listeners: [@Sendable (EngineEvent) -> Void] = []
    private var running = true
    private let drivesItself: Bool

    /// Builds an engine around `bindings`; `health` is the data directory's health entry.
    public init(
        bindings: [Binding], settings: EconomySettings, clock: any TimeSource, store: any StateStore,
        logger: Logger, metrics: MetricsRegistry, health: HealthReporter? = nil, drivesItself: Bool = true
    ) {
        self.drivesItself = drivesItself
        self.bindings = bindings
        self.settings = settings
        self.clock = clock
        self.store = store
        self.logger = logger
        self.metrics = metrics
        self.health = health
        for binding in bindings { trackers[binding.sink.name] = [:] }
    }

    /// Wires delivery feedback and restores persisted trackers. Call once before `emit`.
    public func start() async {
        for binding in bindings {
            let sinkName = binding.sink.name
            await binding.queue.setObserver(
                DeliveryObserver(
                    delivered: { [weak self] frame, receipt in
                        await self?.acknowledge(sink: sinkName, frame: frame, receipt: receipt)
                    },
                    dropped: { [weak self] frame, error in
                        await self?.rejected(sink: sinkName, frame: frame, error: error)
                    },
                    refresh: { [weak self] frame in
                        await self?.refresh(sink: sinkName, frame: frame)
                    }))
            metrics.set("livebridge_budget_used", ["sink": sinkName], Double(binding.ledger.used(at: clock.now)))
            if let limit = binding.ledger.limit {
                metrics.set("livebridge_budget_limit", ["sink": sinkName], Double(limit))
            }
        }
        let recovery = restore()
        for (binding, frames) in recovery { await send(frames, to: binding) }
        if !recovery.isEmpty {
            dirty = true
            persistIfDue(force: false)
        }
        if drivesItself {
            for binding in bindings { await binding.queue.start() }
        }
        reschedule()
    }

    /// Performs every tracker deadline due now and delivers what is due (tests drive virtual
    /// time with this instead of the engine's own timer and queue drivers).
    public func runDue() async {
        await fire()
        for binding in bindings { await binding.queue.pump() }
    }

    /// Registers a listener for every push/skip decision (the preview page's push log).
    public func addListener(_ listener: @escaping @Sendable (EngineEvent) -> Void) {
        listeners.append(listener)
    }

    /// Hands one observation to every sink's tracker.
    public func emit(_ update: ActivityUpdate) async {
        guard running else { return }
        let now = clock.now
        if !ContentRules.isValidSlug(update.slug) {
            logger.error("update with an invalid slug ignored", ["slug": update.slug])
            return
        }
        for binding in bindings {
            let name = binding.sink.name
            var tracker =
                trackers[name]?[update.slug]
                ?? ActivityTracker(
                    slug: update.slug, name: update.name, model: binding.sink.displayModel, settings: settings)
            let before = tracker.lifecycle
            let frames = tracker.handle(update, at: now, budget: binding.ledger.pressure(at: now))
            trackers[name]?[update.slug] = tracker
            if frames.isEmpty {
                if before == .running || before == .ending {
                    metrics.increment("livebridge_pushes_skipped_total", ["sink": name, "slug": update.slug])
                    notify(EngineEvent(sink: name, kind: .skipped(slug: update.slug), time: now))
                }
            } else {
                await send(frames, to: binding)
            }
            if tracker.lifecycle != before || !frames.isEmpty { dirty = true }
        }
        persistIfDue(force: false)
        reschedule()
    }

    /// The tracker for `slug` on `sink`, for tests and diagnostics.
    public func tracker(sink: String, slug: String) -> ActivityTracker? { trackers[sink]?[slug] }

    /// Every slug with a tracker on any sink.
    public var slugs: [String] { Array(Set(trackers.values.flatMap(\.keys))).sorted() }

    /// Stops timers, waits (bounded) for deliveries, ends activities if asked, persists state.
    public func shutdown(endActivities: Bool, flushTimeout: Double = 5) async {
        if endActivities {
            for binding in bindings {
                let name = binding.sink.name
                for slug in (trackers[name] ?? [:]).keys.sorted() {
                    guard var tracker = trackers[name]?[slug], tracker.lifecycle == .running else { continue }
                    var update = ActivityUpdate(slug: slug, name: tracker.name, phase: .ended(.cancelled))
                    update.content = GenericContent(json: tracker.stored, ignoringUnknownOrEmpty: ())
                    update.content.state = .value("Bridge stopped")
                    var frames = tracker.handle(update, at: clock.now)
                    frames += tracker.drain(at: clock.now + settings.endDisplay)
                    trackers[name]?[slug] = tracker
                    // The final frame and the end leave as one request when one can carry both.
                    await send(Self.folded(frames), to: binding)
                }
            }
        }
        running = false
        timer?.cancel()
        timer = nil
        let deadline = clock.now + flushTimeout
        for binding in bindings {
            _ = await binding.queue.waitUntilIdle(deadline: deadline)
            await binding.queue.stop()
            await binding.sink.close()
        }
        persistIfDue(force: true)
    }

    // MARK: - Internals

    /// `frames` of one activity merged into as few requests as merge patches allow.
    static func folded(_ frames: [ActivityFrame]) -> [ActivityFrame] {
        var result: [ActivityFrame] = []
        for frame in frames {
            if let last = result.last, let merged = last.merging(frame) {
                result[result.count - 1] = merged
            } else {
                result.append(frame)
            }
        }
        return result
    }

    private func send(_ frames: [ActivityFrame], to binding: Binding) async {
        for frame in frames {
            if let problems = Self.validate(frame) {
                logger.error(
                    "frame failed validation and was not sent",
                    ["sink": binding.sink.name, "slug": frame.slug, "problems": problems.joined(separator: "; ")])
                notify(
                    EngineEvent(
                        sink: binding.sink.name, kind: .invalid(slug: frame.slug, problems: problems), time: clock.now))
                trackers[binding.sink.name]?[frame.slug]?.frameRejected(frame)
                continue
            }
            logger.debug(
                "push",
                [
                    "sink": binding.sink.name, "slug": frame.slug, "kind": frame.kind.rawValue,
                    "reason": frame.reason.rawValue,
                ])
            notify(EngineEvent(sink: binding.sink.name, kind: .pushed(frame), time: clock.now))
            await binding.queue.enqueue(frame)
        }
    }

    static func validate(_ frame: ActivityFrame) -> [String]? {
        do {
            try ContentRules.validateSlug(frame.slug)
            let content = try GenericContent(json: frame.content)
            try content.validate(asDocument: true)
            let patch = try GenericContent(json: frame.patch)
            try patch.validate(asDocument: false)
            return nil
        } catch let error as ContentValidationError {
            return error.problems
        } catch {
            return ["\(error)"]
        }
    }

    private func notify(_ event: EngineEvent) {
        for listener in listeners { listener(event) }
    }

    private func acknowledge(sink: String, frame: ActivityFrame, receipt: DeliveryReceipt) {
        trackers[sink]?[frame.slug]?.acknowledge(frame, appliedAt: receipt.appliedAt)
        // Persist what was delivered too: a restart resends only what may not have arrived.
        dirty = true
        persistIfDue(force: false)
        reschedule()
    }

    private func refresh(sink: String, frame: ActivityFrame) -> ActivityFrame? {
        guard var tracker = trackers[sink]?[frame.slug] else { return nil }
        let fresh = tracker.refreshed(frame, at: clock.now)
        trackers[sink]?[frame.slug] = tracker
        if fresh != nil { dirty = true }
        return fresh
    }

    private func rejected(sink: String, frame: ActivityFrame, error: SinkError) {
        trackers[sink]?[frame.slug]?.frameRejected(frame)
        dirty = true
    }

    private func reschedule() {
        guard running, drivesItself else { return }
        var earliest: Double?
        for sinkTrackers in trackers.values {
            for tracker in sinkTrackers.values {
                if let deadline = tracker.nextDeadline { earliest = min(earliest ?? deadline, deadline) }
            }
        }
        guard earliest != timerDeadline || timer == nil else { return }
        timer?.cancel()
        timer = nil
        timerDeadline = earliest
        guard let earliest else { return }
        let clock = self.clock
        timer = Task { [weak self] in
            do {
                try await clock.sleep(until: earliest)
            } catch {
                return
            }
            await self?.fire()
        }
    }

    private func fire() async {
        if drivesItself {
            timer = nil
            timerDeadline = nil
        }
        let now = clock.now
        for binding in bindings {
            let name = binding.sink.name
            for slug in (trackers[name] ?? [:]).keys.sorted() {
                guard var tracker = trackers[name]?[slug], let deadline = tracker.nextDeadline, deadline <= now else {
                    continue
                }
                let before = tracker.lifecycle
                let frames = tracker.tick(at: now, budget: binding.ledger.pressure(at: now))
                trackers[name]?[slug] = tracker
                if tracker.lifecycle != before || !frames.isEmpty { dirty = true }
                await send(frames, to: binding)
            }
        }
        persistIfDue(force: false)
        reschedule()
    }

    private func persistIfDue(force: Bool) {
        let now = clock.now
        // Pushes are rare by design, so every push is persisted at once: a crash right after
        // one never makes the restarted bridge push it again.
        guard dirty || force else { return }
        var sinks: [String: JSONValue] = [:]
        for (name, sinkTrackers) in trackers {
            var entries: [String: JSONValue] = [:]
            for (slug, tracker) in sinkTrackers where tracker.lifecycle != .idle { entries[slug] = tracker.snapshot }
            sinks[name] = .object(entries)
        }
        do {
            try store.writeJSON(Self.stateKey, ["version": 1, "savedAt": .number(now), "sinks": .object(sinks)])
            dirty = false
            if persistFailure != nil {
                persistFailure = nil
                health?.set(.ok)
                logger.info("state written again")
            }
        } catch {
            dirty = false
            if persistFailure == nil {
                logger.error("cannot persist state; continuing in memory", ["error": error.description])
            }
            persistFailure = error.description
            health?.set(.degraded, "cannot write state: \(error.description); bridging continues in memory")
        }
    }

    /// Restores persisted trackers; returns, per sink, the frames a restart must send again (ends
    /// decided before the restart that the service may never have received).
    private func restore() -> [(Binding, [ActivityFrame])] {
        let json: JSONValue?
        do {
            json = try store.readJSON(Self.stateKey)
        } catch {
            logger.warning("stored state unreadable; starting fresh", ["error": error.description])
            return []
        }
        guard let sinks = json?["sinks"]?.objectValue else { return [] }
        var restored = 0
        var recovery: [(Binding, [ActivityFrame])] = []
        for binding in bindings {
            guard let entries = sinks[binding.sink.name]?.objectValue else { continue }
            var frames: [ActivityFrame] = []
            for (slug, snapshot) in entries.sorted(by: { $0.key < $1.key }) {
                guard
                    var tracker = ActivityTracker(
                        snapshot: snapshot, model: binding.sink.displayModel, settings: settings)
                else {
                    logger.warning("stored tracker unreadable; it will be recreated", ["slug": slug])
                    continue
                }
                let resend = tracker.recoveryFrames(at: clock.now)
                if !resend.isEmpty {
                    logger.info("ending again an activity whose end may not have been delivered", ["slug": slug])
                }
                frames += resend
                trackers[binding.sink.name]?[slug] = tracker
                restored += 1
            }
            if !frames.isEmpty { recovery.append((binding, frames)) }
        }
        if restored > 0 { logger.info("resumed activities", ["count": String(restored)]) }
        return recovery
    }
}

extension GenericContent {
    /// Content read from a stored model, ignoring what cannot be read.
    init(json: JSONValue, ignoringUnknownOrEmpty: ()) {
        self = (try? GenericContent(json: json, ignoringUnknown: true)) ?? GenericContent()
    }
}
