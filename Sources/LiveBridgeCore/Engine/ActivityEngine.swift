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
///
/// What it keeps is bounded by what is alive, not by the history: a tracker is forgotten once
/// its activity's end is delivered (or refused for good), leaving a tombstone that expires after
/// the longest of `endedTTL` and `dismissalTTL` and then takes the slug's `/metrics` series and
/// what sinks remember with it. Persisting an update appends one journal line for the tracker
/// that changed (`TrackerJournal`); the journal is folded into the checkpoint in the background.
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

    static let stateKey = TrackerJournal.checkpointKey
    /// The journal is folded into a new checkpoint this long after its first line …
    public static let checkpointDelay: Double = 1
    /// … or as soon as it holds this many bytes.
    static let journalLimit = 64 * 1024

    private struct TrackerKey: Hashable {
        var sink: String
        var slug: String
    }

    public nonisolated let bindings: [Binding]
    private let settings: EconomySettings
    private let clock: any TimeSource
    private var journal: TrackerJournal
    private let logger: Logger
    private let metrics: MetricsRegistry
    private let health: HealthReporter?
    private var trackers: [String: [String: ActivityTracker]] = [:]
    private var timer: Task<Void, Never>?
    private var timerDeadline: Double?
    /// Trackers changed since they were last written.
    private var dirty: Set<TrackerKey> = []
    /// Per sink, the highest sequence number a forgotten activity used: new trackers number after it.
    private var floors: [String: Int] = [:]
    /// Places on the phone another client of the account holds, per sink, as far as the service's
    /// preemptions told (one is given back each time one of this sink's activities ends).
    private var placesTaken: [String: Int] = [:]
    private var tombstones = Tombstones()
    /// When the journal is folded into the checkpoint next.
    private var checkpointDue: Double?
    /// A write failed: the next one is a whole checkpoint.
    private var needsCheckpoint = false
    private var persistFailure: String?
    private var listeners: [@Sendable (EngineEvent) -> Void] = []
    private var running = true
    /// True while `run()` drives the engine (its deadline timer and the delivery queues); tests
    /// that never call it drive time themselves with `runDue()`.
    private var driving = false

    /// Builds an engine around `bindings`; `health` is the data directory's health entry.
    public init(
        bindings: [Binding], settings: EconomySettings, clock: any TimeSource, store: any StateStore,
        logger: Logger, metrics: MetricsRegistry, health: HealthReporter? = nil
    ) {
        self.bindings = bindings
        self.settings = settings
        self.clock = clock
        self.journal = TrackerJournal(store: store)
        self.logger = logger
        self.metrics = metrics
        self.health = health
        for binding in bindings { trackers[binding.sink.name] = [:] }
    }

    /// Opens the sinks, wires delivery feedback and restores persisted trackers. Call once before `emit`.
    public func start() async {
        for binding in bindings { await binding.sink.open() }
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
        let (recovery, compact) = restore()
        for (binding, frames) in recovery {
            await send(frames, to: binding)
            for frame in frames { dirty.insert(TrackerKey(sink: binding.sink.name, slug: frame.slug)) }
        }
        // Jobs that waited for a place on the phone before the restart take the ones free now.
        for binding in bindings { await promote(binding) }
        // Start-up folds what the journal held into one checkpoint, so the next start reads as little.
        if compact {
            checkpoint()
        } else {
            persist()
        }
        reschedule()
    }

    /// Drives the engine until cancelled: each tracker deadline on the clock, and each sink's
    /// delivery queue. `shutdown` stops the queues after their flush; call `start()` first.
    public func run() async {
        guard running, !driving else { return }
        driving = true
        for binding in bindings { await binding.queue.start() }
        reschedule()
        await Task.waitForCancellation()
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
            let existing = trackers[name]?[update.slug]
            var tracker =
                existing
                ?? ActivityTracker(
                    slug: update.slug, name: update.name, model: binding.sink.displayModel, settings: settings,
                    numberedAfter: floors[name] ?? 0)
            tracker.follow(binding.sink)
            let before = tracker.lifecycle
            let frames = tracker.handle(update, at: now, budget: binding.ledger.pressure(at: now))
            // An end for an activity that is not running leaves nothing behind.
            if existing != nil || tracker.lifecycle != .idle || !frames.isEmpty {
                trackers[name]?[update.slug] = tracker
            }
            if frames.isEmpty {
                if before == .running || before == .ending {
                    metrics.increment("livebridge_pushes_skipped_total", ["sink": name, "slug": update.slug])
                    notify(EngineEvent(sink: name, kind: .skipped(slug: update.slug), time: now))
                }
            } else {
                await send(frames, to: binding)
            }
            if tracker.lifecycle != before || !frames.isEmpty {
                dirty.insert(TrackerKey(sink: name, slug: update.slug))
            }
        }
        persist()
        reschedule()
    }

    /// The tracker for `slug` on `sink`, for tests and diagnostics.
    public func tracker(sink: String, slug: String) -> ActivityTracker? { trackers[sink]?[slug] }

    /// Every slug with a tracker on any sink.
    public var slugs: [String] { Array(Set(trackers.values.flatMap(\.keys))).sorted() }

    /// Trackers in memory, over every sink.
    public var trackerCount: Int { trackers.values.reduce(0) { $0 + $1.count } }

    /// When `slug`'s tombstone expires, or nil when it has none (alive, never seen, or expired).
    public func tombstone(_ slug: String) -> Double? { tombstones.expiry(of: slug) }

    /// Tombstones alive.
    public var tombstoneCount: Int { tombstones.count }

    /// How long a forgotten activity's tombstone lasts: the longest of the TTLs it was created
    /// with (`endedTTL`, `dismissalTTL`) — while the service or the phone may still show it.
    public nonisolated var tombstoneTTL: Double { Double(max(settings.endedTTL, settings.dismissalTTL)) }

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
        checkpoint()
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
        await deliver(await admitted(frames, to: binding), to: binding)
    }

    // MARK: - Slots (`Sink.maxOngoing`)

    /// True when `a` ranks below `b` for a place on the phone: lower priority, or the same and
    /// started later (the one that started first keeps its place).
    static func ranksBelow(_ a: (priority: Int, startedAt: Double), _ b: (priority: Int, startedAt: Double)) -> Bool {
        a.priority != b.priority ? a.priority < b.priority : a.startedAt > b.startedAt
    }

    /// The slot gate: a waiting job's frames never leave; a job starting while every slot is
    /// taken waits — without spending a request — and, if its priority is higher than the
    /// lowest-ranked one shown, that one ends (and waits), so the new job starts as soon as the
    /// end is delivered.
    private func admitted(_ frames: [ActivityFrame], to binding: Binding) async -> [ActivityFrame] {
        let name = binding.sink.name
        guard let limit = places(binding), let slug = frames.first?.slug, var tracker = trackers[name]?[slug]
        else { return frames }
        if !tracker.waiting {
            guard frames.contains(where: { $0.kind == .seed && $0.reason != .renewal }) else { return frames }
            let others = (trackers[name] ?? [:]).filter { $0.key != slug && $0.value.holdsSlot }
            guard others.count >= limit else { return frames }
            if let lowest = others.min(by: { Self.ranksBelow($0.value.rank, $1.value.rank) }),
                tracker.rank.priority > lowest.value.rank.priority
            {
                var displaced = lowest.value
                let ends = displaced.displace(at: clock.now)
                trackers[name]?[lowest.key] = displaced
                dirty.insert(TrackerKey(sink: name, slug: lowest.key))
                logger.info(
                    "a job of higher priority takes this one's place on the phone; it waits for a slot",
                    ["sink": name, "slug": lowest.key, "for": slug])
                // The new job starts once that end is delivered (`promote`): asked for earlier, it
                // would be a sixth, and the service would preempt one itself.
                await deliver(ends, to: binding)
            } else {
                logger.info(
                    "every place on the phone is taken; the job waits for a slot",
                    ["sink": name, "slug": slug, "shown": String(others.count)])
            }
        }
        // A preempted activity is still on the service: its end closes it (it takes no place).
        let ends = tracker.openWhileWaiting ? frames.filter { $0.kind == .end } : []
        if !ends.isEmpty {
            tracker.closedWhileWaiting()
            trackers[name]?[slug] = tracker
            return ends
        }
        tracker.discardWhileWaiting()
        trackers[name]?[slug] = tracker
        dirty.insert(TrackerKey(sink: name, slug: slug))
        if tracker.isFinished { forget(sink: name, slug: slug) }
        updateSlots(binding)
        return []
    }

    /// Starts waiting jobs, best first, while the sink has free slots. The service is asked first
    /// which of ours it preempted since (a job at a steady pace may not have sent anything that
    /// would have told): those wait too, their places counted as taken.
    private func promote(_ binding: Binding) async {
        let name = binding.sink.name
        guard binding.sink.maxOngoing != nil else { return }
        if (trackers[name] ?? [:]).values.contains(where: \.holdsSlot),
            let preempted = await binding.sink.preemptedSlugs()
        {
            for slug in preempted {
                guard let tracker = trackers[name]?[slug], tracker.holdsSlot, tracker.lifecycle == .running else {
                    continue
                }
                notePreempted(sink: name, slug: slug)
            }
        }
        guard let limit = places(binding) else { return }
        while true {
            let current = trackers[name] ?? [:]
            guard current.values.filter(\.holdsSlot).count < limit,
                let best = current.filter({ $0.value.waiting && $0.value.lifecycle == .running })
                    .max(by: { Self.ranksBelow($0.value.rank, $1.value.rank) })
            else { break }
            var tracker = best.value
            let frames = tracker.show(at: clock.now)
            trackers[name]?[best.key] = tracker
            dirty.insert(TrackerKey(sink: name, slug: best.key))
            logger.info(
                "a place on the phone freed; the job that waited longest at its priority starts",
                ["sink": name, "slug": best.key])
            await deliver(frames, to: binding)
        }
        updateSlots(binding)
    }

    /// Another client's activity took `slug`'s place: it waits, and the place counts as taken.
    private func notePreempted(sink: String, slug: String) {
        trackers[sink]?[slug]?.preempted()
        placesTaken[sink, default: 0] += 1
        dirty.insert(TrackerKey(sink: sink, slug: slug))
        logger.warning(
            "the service preempted the activity for another one on the account; it waits for a place",
            ["sink": sink, "slug": slug])
    }

    /// The places on the phone this sink may use: `maxOngoing`, less those another client took.
    private func places(_ binding: Binding) -> Int? {
        binding.sink.maxOngoing.map { max(0, $0 - (placesTaken[binding.sink.name] ?? 0)) }
    }

    /// `livebridge_activities_shown` / `_waiting` and the sink's `/health` entry.
    private func updateSlots(_ binding: Binding) {
        let name = binding.sink.name
        guard let limit = binding.sink.maxOngoing else { return }
        let current = (trackers[name] ?? [:]).values
        let shown = current.filter(\.holdsSlot).count
        let waiting = current.filter { $0.waiting && $0.lifecycle != .ended }.count
        metrics.set("livebridge_activities_shown", ["sink": name], Double(shown))
        metrics.set("livebridge_activities_waiting", ["sink": name], Double(waiting))
        binding.queue.healthReporter.setDetail("shown", "\(shown) of \(limit)")
        binding.queue.healthReporter.setDetail("waiting", String(waiting))
    }

    private func deliver(_ frames: [ActivityFrame], to binding: Binding) async {
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

    private func acknowledge(sink: String, frame: ActivityFrame, receipt: DeliveryReceipt) async {
        guard trackers[sink]?[frame.slug] != nil else { return }
        trackers[sink]?[frame.slug]?.acknowledge(frame, appliedAt: receipt.appliedAt)
        // Persist what was delivered too: a restart resends only what may not have arrived.
        dirty.insert(TrackerKey(sink: sink, slug: frame.slug))
        if trackers[sink]?[frame.slug]?.isFinished == true { forget(sink: sink, slug: frame.slug) }
        // An ended activity frees its place on the phone for a job that waits.
        if frame.kind == .end, let binding = bindings.first(where: { $0.sink.name == sink }) {
            if let taken = placesTaken[sink], taken > 0 { placesTaken[sink] = taken - 1 }
            await promote(binding)
        }
        persist()
        reschedule()
    }

    private func refresh(sink: String, frame: ActivityFrame) -> ActivityFrame? {
        guard var tracker = trackers[sink]?[frame.slug] else { return nil }
        let fresh = tracker.refreshed(frame, at: clock.now)
        trackers[sink]?[frame.slug] = tracker
        if fresh != nil { dirty.insert(TrackerKey(sink: sink, slug: frame.slug)) }
        return fresh
    }

    private func rejected(sink: String, frame: ActivityFrame, error: SinkError) async {
        guard var tracker = trackers[sink]?[frame.slug] else { return }
        tracker.frameRejected(frame)
        if error.code == SinkError.preempted, let binding = bindings.first(where: { $0.sink.name == sink }) {
            trackers[sink]?[frame.slug] = tracker
            notePreempted(sink: sink, slug: frame.slug)
            updateSlots(binding)
            persist()
            return
        }
        trackers[sink]?[frame.slug] = tracker
        dirty.insert(TrackerKey(sink: sink, slug: frame.slug))
        // The service refused the end for good: nothing will be sent for this activity again.
        if frame.kind == .end, tracker.lifecycle == .ended, frame.sequence >= tracker.sequence {
            forget(sink: sink, slug: frame.slug)
            if let binding = bindings.first(where: { $0.sink.name == sink }) { await promote(binding) }
            persist()
            reschedule()
        }
    }

    /// Drops the tracker of an activity that is over on `sink`, keeping its numbering in the
    /// sink's floor; the slug gets a tombstone once no sink has a tracker for it.
    private func forget(sink: String, slug: String) {
        guard let tracker = trackers[sink]?.removeValue(forKey: slug) else { return }
        floors[sink] = max(floors[sink] ?? 0, tracker.sequence)
        dirty.insert(TrackerKey(sink: sink, slug: slug))
        if !bindings.contains(where: { trackers[$0.sink.name]?[slug] != nil }) {
            tombstones.add(slug, until: clock.now + tombstoneTTL)
        }
    }

    /// Expires tombstones due at `now`: the slugs leave `/metrics`, and sinks forget them.
    private func expireTombstones(at now: Double) async {
        let expired = tombstones.expire(at: now).filter { slug in
            !bindings.contains { trackers[$0.sink.name]?[slug] != nil }
        }
        guard !expired.isEmpty else { return }
        metrics.removeSeries(label: "slug", values: Set(expired))
        for binding in bindings {
            for slug in expired { await binding.sink.forget(slug) }
        }
    }

    private func reschedule() {
        guard running, driving else { return }
        var earliest = [checkpointDue, tombstones.nextExpiry].compactMap { $0 }.min()
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
        if driving {
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
                if tracker.lifecycle != before || !frames.isEmpty { dirty.insert(TrackerKey(sink: name, slug: slug)) }
                await send(frames, to: binding)
            }
        }
        persist()
        await expireTombstones(at: now)
        if let due = checkpointDue, due <= now { checkpoint() }
        reschedule()
    }

    /// Appends what changed since the last write to the journal: one line per tracker that
    /// changed (its snapshot, or that it was forgotten), one sync for all. Pushes are rare by
    /// design, so every push is persisted at once: a crash right after one never makes the
    /// restarted bridge push it again.
    private func persist() {
        guard !dirty.isEmpty else { return }
        if needsCheckpoint {
            checkpoint()
            return
        }
        var records: [TrackerJournal.Record] = []
        records.reserveCapacity(dirty.count)
        for key in dirty {
            if let tracker = trackers[key.sink]?[key.slug], tracker.lifecycle != .idle {
                records.append(.init(sink: key.sink, slug: key.slug, entry: .tracker(tracker.snapshot)))
            } else {
                records.append(
                    .init(sink: key.sink, slug: key.slug, entry: .forgotten(sequence: floors[key.sink] ?? 0)))
            }
        }
        dirty.removeAll()
        do {
            try journal.append(records)
            written()
        } catch {
            failed(error)
            return
        }
        let now = clock.now
        if journal.journalBytes >= Self.journalLimit {
            checkpointDue = now
        } else if checkpointDue == nil {
            checkpointDue = now + Self.checkpointDelay
        }
    }

    /// Writes every live tracker as the new checkpoint and empties the journal: a cost that
    /// depends on what is alive, paid about once a second while things change.
    private func checkpoint() {
        var snapshot: [String: [String: JSONValue]] = [:]
        for (name, sinkTrackers) in trackers {
            var entries: [String: JSONValue] = [:]
            for (slug, tracker) in sinkTrackers where tracker.lifecycle != .idle { entries[slug] = tracker.snapshot }
            snapshot[name] = entries
        }
        dirty.removeAll()
        checkpointDue = nil
        do {
            try journal.checkpoint(trackers: snapshot, floors: floors, savedAt: clock.now)
            needsCheckpoint = false
            written()
        } catch {
            failed(error)
        }
    }

    private func written() {
        guard persistFailure != nil else { return }
        persistFailure = nil
        health?.set(.ok)
        logger.info("state written again")
    }

    private func failed(_ error: StateStoreError) {
        needsCheckpoint = true
        if persistFailure == nil {
            logger.error("cannot persist state; continuing in memory", ["error": error.description])
        }
        persistFailure = error.description
        health?.set(.degraded, "cannot write state: \(error.description); bridging continues in memory")
    }

    /// Restores persisted trackers; returns, per sink, the frames a restart must send again (ends
    /// decided before the restart that the service may never have received), and whether the
    /// journal should be folded into a checkpoint now.
    private func restore() -> (recovery: [(Binding, [ActivityFrame])], compact: Bool) {
        let contents = journal.load()
        for problem in contents.problems {
            logger.warning("stored state partly unreadable; continuing with the rest", ["problem": problem])
        }
        for binding in bindings { floors[binding.sink.name] = contents.floors[binding.sink.name] ?? 0 }
        var restored = 0
        var finished = 0
        var recovery: [(Binding, [ActivityFrame])] = []
        for binding in bindings {
            let name = binding.sink.name
            guard let entries = contents.trackers[name] else { continue }
            var frames: [ActivityFrame] = []
            for (slug, snapshot) in entries.sorted(by: { $0.key < $1.key }) {
                guard
                    var tracker = ActivityTracker(
                        snapshot: snapshot, model: binding.sink.displayModel, settings: settings)
                else {
                    logger.warning("stored tracker unreadable; it will be recreated", ["slug": slug])
                    continue
                }
                tracker.follow(binding.sink)
                if tracker.isFinished {
                    // Ended and delivered (state written before ended activities were forgotten).
                    floors[name] = max(floors[name] ?? 0, tracker.sequence)
                    finished += 1
                    continue
                }
                let resend = tracker.recoveryFrames(at: clock.now)
                if !resend.isEmpty {
                    logger.info("ending again an activity whose end may not have been delivered", ["slug": slug])
                }
                frames += resend
                trackers[name]?[slug] = tracker
                restored += 1
            }
            if !frames.isEmpty { recovery.append((binding, frames)) }
        }
        if restored > 0 { logger.info("resumed activities", ["count": String(restored)]) }
        if finished > 0 { logger.info("forgot activities that had ended", ["count": String(finished)]) }
        return (recovery, contents.journalRecords > 0 || finished > 0 || !contents.problems.isEmpty)
    }
}

extension GenericContent {
    /// Content read from a stored model, ignoring what cannot be read.
    init(json: JSONValue, ignoringUnknownOrEmpty: ()) {
        self = (try? GenericContent(json: json, ignoringUnknown: true)) ?? GenericContent()
    }
}
