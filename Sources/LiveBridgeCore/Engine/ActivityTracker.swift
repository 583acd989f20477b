/// The life of one activity on one sink: create → seed → updates → two-phase end, with the push
/// economy (`EconomyPolicy`) deciding which observations are worth a push and coalescing the
/// frames of one event into one request.
///
/// A value type with no I/O and no clock: every method takes the time, and returns the frames to
/// deliver. The owner performs them (async-http-client's state-machine shape), which is what lets
/// tests and `livebridge replay` run hours of virtual time in milliseconds.
public struct ActivityTracker: Sendable {
    /// Where the activity is on the service.
    public enum Lifecycle: String, Sendable, Codable {
        /// Never started here, or ended and forgotten.
        case idle
        /// Ongoing on the service.
        case running
        /// The final `ongoing` frame went out; `ended` follows after `endDisplay`.
        case ending
        /// Ended on the service.
        case ended
    }

    /// Content fields the tracker owns; adapters' values for them are ignored.
    static let anchorFields = ["progress", "end_date", "live_progress", "remaining_time", "duration", "start_date"]

    public let slug: String
    public let model: DisplayModel
    public var settings: EconomySettings
    public private(set) var name: String
    public private(set) var lifecycle: Lifecycle = .idle
    /// The content as the service stores it after our pushes (our model of it).
    public private(set) var stored: JSONValue = .object([:])
    /// What the phone was last told about the bar.
    public private(set) var anchor: DisplayAnchor? {
        didSet { refreshOnTrack() }
    }
    public private(set) var lastPushAt: Double?
    /// The latest truth.
    public private(set) var truth: TruthSample?
    /// What the policy remembers about this job (its pace, the ETA hysteresis).
    private(set) var memory = EconomyPolicy.Memory()
    /// A frame decided but held for the coalescing window, and when it leaves.
    private var held: ActivityFrame?
    private var heldUntil: Double?
    /// The anchor the phone shows while `held` waits (the one before it was decided).
    private var heldOver: DisplayAnchor?
    /// The anchor before the latest frame was made.
    private var anchorBefore: DisplayAnchor?
    /// True while `held` is a correction waiting for a card text to join it (`mayWait`).
    private var heldAhead = false
    /// When the last frame left (for the coalescing window).
    private var lastReleaseAt: Double?
    /// The latest observation's volatile details (without the template).
    private var latestDetails: JSONValue = .object([:])
    /// The card's text and phase as the latest observation has them (a text may wait for a push
    /// that happens anyway: see `EconomySettings.labelKeptCorrections`).
    private var latestStable: (content: JSONValue, phase: String)?
    private var lastStable: JSONValue = .object([:])
    private var lastPhaseKind = "none"
    private var lastDetailsAt: Double?
    private var endDue: Double?
    /// The outcome the `ended` frame carries when no final frame went out (the card already
    /// showed the final content).
    private var endOutcome: ActivityOutcome?
    private var staleTTL: Double = 0
    private var suppressedDeadline: Double?
    /// The latest observation says the job ends by the anchor's `end_date` (`refreshOnTrack`).
    private var onTrack = false
    private var needsResync = false
    /// The monthly budget's pressure as the latest `handle`/`tick` was given it: `exhausted` allows
    /// only starts and ends, `limited` rations this job.
    private var spending = BudgetPressure.none
    /// Whether this job's bar has glided yet (a live anchor was pushed since the seed).
    private var hasGlided = false
    /// The next frame is one the budget's reserve keeps room for: the job's first glide (part of
    /// its start), a pause or a resume.
    private var essentialPending = false
    /// When the activity was seeded (its job started), for windows that scale with the job.
    private var startedAt: Double?
    /// When the current Live Activity started: the seed, or the last renewal.
    private var lifecycleStartedAt: Double?
    /// The age at which the service's display ends an ongoing activity (iOS: 8 h), nil when it
    /// never does; set by the engine from the sink (`Sink.lifecycleLimit`).
    public var lifecycleLimit: Double?
    /// The service ends an activity without updates after its `stale_ttl` (`Sink.expiresStale`):
    /// heartbeats keep it. True for a tracker on its own (the economy's simulations model PushWard).
    public var expiresStale = true
    /// Kept off the phone while more jobs run than it shows (`Sink.maxOngoing`): what this tracker
    /// decides is dropped, and it starts with the whole card when a slot frees.
    public private(set) var waiting = false
    /// Preempted by the service: the activity is still there, preempted, until an end closes it.
    public private(set) var openWhileWaiting = false
    private var priority: Int?
    /// The source that reported this job (carried into every frame).
    public private(set) var source: String?
    public private(set) var sequence = 0
    /// The newest frame the service acknowledged; below `sequence` while frames are in flight or
    /// waiting. Persisted, so a restart knows what it decided but never delivered.
    public private(set) var deliveredSequence = 0

    public init(slug: String, name: String? = nil, model: DisplayModel, settings: EconomySettings) {
        self.slug = slug
        self.name = name ?? slug
        self.model = model
        self.settings = settings
    }

    /// Takes the limits of the display `sink` drives: when it ends an ongoing activity by itself,
    /// and whether it ends one that gets no update for its `stale_ttl`.
    public mutating func follow(_ sink: any Sink) {
        lifecycleLimit = sink.lifecycleLimit
        expiresStale = sink.expiresStale
    }

    // MARK: - Handling observations

    /// Takes one observation; returns the frames to deliver now (often none).
    public mutating func handle(
        _ update: ActivityUpdate, at now: Double, budget: BudgetPressure = .none
    ) -> [ActivityFrame] {
        let t = min(update.observedAt ?? now, now)
        spending = budget
        // An update that names the activity only by its slug (the activities API without `name`,
        // an `{"end": true}`) keeps the display name the activity already has.
        if update.name != slug { name = update.name }
        if let priority = update.priority { self.priority = priority }
        if let source = update.source { self.source = source }
        // A finish `end_date` cannot carry (a garbled ETA: not a number, or beyond the year 9999)
        // counts as unknown; turned into an integer end_date it would trap.
        let finish = (update.eta?.finish(observedAt: t)).flatMap { abs($0) <= ActivityETA.latestFinish ? $0 : nil }
        var fixed = false
        if case .finishesAt = update.eta { fixed = true }
        let progress = update.progress.map { $0.isFinite ? min(1, max(0, $0)) : 0 }
        // A progress carries the time it was true; an observation without one keeps the last
        // value with its own (older) time, never restamped as the truth now.
        let progressTime = progress != nil ? min(t, update.progressObservedAt ?? t) : (truth?.progressTime ?? t)
        truth = TruthSample(
            progress: progress ?? truth?.progress, time: t, progressTime: progressTime, finish: finish,
            fixedFinish: fixed, resolution: update.progressResolution ?? truth?.resolution ?? 0,
            finishResolution: update.etaResolution ?? 0, holds: update.progressHolds)
        if lifecycle == .idle || lifecycle == .ended { memory = EconomyPolicy.Memory() }
        if progress != nil, let truth {
            policy.observe(truth, paused: update.phase == .paused, startedAt: startedAt ?? t, memory: &memory)
        }
        refreshOnTrack()
        let stable = Self.stableContent(update.content)
        let phaseKind = Self.phaseKind(update.phase)
        var details = Self.stableContent(update.details)
        details["template"] = nil
        latestDetails = details
        latestStable = (stable, phaseKind)

        switch update.phase {
        case .ended(let outcome):
            switch lifecycle {
            case .idle, .ended, .ending:
                return []
            case .running:
                let frames = end(update, outcome: outcome, stable: stable, at: now)
                // A seed still waiting for its estimate has nothing left to wait for: it leaves one
                // window from now (its end right behind), not when its wait would have run out.
                if held != nil { heldUntil = min(heldUntil ?? .infinity, now + settings.coalesceWindow) }
                return frames.flatMap { coalesce($0, at: now) }
            }
        case .active, .paused:
            switch lifecycle {
            case .idle, .ended:
                let seed = start(update, stable: stable, phaseKind: phaseKind, at: now)
                // Under a monthly budget the first glide may be the only one the month affords this
                // job (a correction, even a re-anchor before `end_date` passes, waits for a share it
                // may not have): it waits for the pace like a seed without an estimate, so it glides
                // at what the job does rather than at a source's first guess (SABnzbd's time left a
                // second into a download, from a speed it has barely measured). A glide aimed short
                // falls back to its pushed progress when `end_date` passes — a one-minute download
                // at 0 % for its last seconds. Anything worth a push still ends the wait at once.
                if settings.startWait > 0, !update.immediate, held == nil, anchor?.endDate == nil || budget.limited,
                    phaseKind == "active", (truth?.progress).map({ $0 < 1 }) ?? true
                {
                    // No estimate yet: the seed waits for the first glide (see `startWait`), and so
                    // does one with no progress yet (OctoPrint's `PrintStarted` a second before its
                    // first progress and time left); up to `estimateWait` when the source states a
                    // finish of its own that has not come yet. A seed under a budget with a finish
                    // already waits for the pace only (`seedWaitsForPace`).
                    held = seed
                    heldOver = nil
                    heldAhead = false
                    let wait =
                        update.statesFinish && anchor?.endDate == nil
                        ? max(settings.startWait, settings.estimateWait) : settings.startWait
                    heldUntil = now + wait
                    return []
                }
                return coalesce(seed, at: now)
            case .ending:
                lifecycle = .running
                endDue = nil
                endOutcome = nil
                return coalesce(push(update, stable: stable, phaseKind: phaseKind, reason: .restart, at: now), at: now)
            case .running:
                guard let decision = pushDecision(update, stable: stable, phaseKind: phaseKind, at: now, budget: budget)
                else { return [] }
                let frame = push(update, stable: stable, phaseKind: phaseKind, reason: decision.reason, at: now)
                return coalesce(frame, at: now, mayWait: decision.mayWait)
            }
        }
    }

    /// When `tick` next has something to do (Unix seconds), or nil.
    public var nextDeadline: Double? {
        var deadline: Double?
        switch lifecycle {
        case .ending:
            // A held frame leaves before the end (at `heldUntil`, below).
            if held == nil {
                deadline = endDue.map { max($0, (lastReleaseAt ?? -.infinity) + settings.coalesceWindow) }
            }
        case .running:
            deadline = heartbeatDue
            if let anchorDeadline { deadline = min(deadline ?? .infinity, anchorDeadline) }
            if let renewalDue { deadline = min(deadline ?? .infinity, renewalDue) }
        case .idle, .ended:
            break
        }
        if let heldUntil { deadline = min(deadline ?? .infinity, heldUntil) }
        return deadline
    }

    /// Until when a seed still waiting for its estimate after `startWait` waits on: a progress that
    /// keeps moving gives one from its pace once the pace spans `paceWindowMinimum` (a Moonraker
    /// print's file position, which states no time left), so the card still appears once, gliding.
    /// A progress that stands still, or moved fewer than `seedPaceAdvances` times, gives none, and
    /// its card appears after `startWait`; so does a seed something worth a push was folded into (a
    /// card text, a pause, a bar off by ε: its `reason` is no longer `.start`). Under a monthly
    /// budget a seed with an estimate waits for its pace the same way.
    private func seedWaitsForPace(_ frame: ActivityFrame, budget: BudgetPressure, at now: Double) -> Double? {
        guard lifecycle == .running, frame.kind == .seed, frame.reason == .start,
            frame.patch["end_date"]?.doubleValue == nil || budget.limited, let startedAt,
            (truth?.progress).map({ $0 < 1 }) == true, memory.pace.corners.count > settings.seedPaceAdvances
        else { return nil }
        let until = startedAt + settings.startWait + settings.paceWindowMinimum
        return now < until ? until : nil
    }

    /// Performs what is due at `now`: the `ended` half of a two-phase end, a re-anchor before
    /// `end_date` passes while the job still runs, or a heartbeat before `stale_ttl` expires.
    public mutating func tick(at now: Double, budget: BudgetPressure = .none) -> [ActivityFrame] {
        spending = budget
        var released: [ActivityFrame] = []
        if let heldUntil, now >= heldUntil, let frame = held {
            if let until = seedWaitsForPace(frame, budget: budget, at: now) {
                self.heldUntil = until
            } else {
                released.append(release(frame, at: now))
            }
        }
        switch lifecycle {
        case .ending:
            // The end follows the final frame by `endDisplay`, and never within the coalescing
            // window after it (a short `endDisplay` must not fold the two-phase end into one).
            guard let endDue, held == nil, now >= max(endDue, (lastReleaseAt ?? -.infinity) + settings.coalesceWindow)
            else { return released }
            return released + coalesce(finishEnd(at: now), at: now)
        case .running:
            if let due = renewalDue, now >= due {
                return released + renew(at: now)
            }
            if let deadline = anchorDeadline, now >= deadline {
                if budget.exhausted {
                    guard memory.essentialDeadlines < settings.essentialDeadlines else {
                        suppressedDeadline = anchor?.endDate
                        return released
                    }
                    memory.essentialDeadlines += 1
                    essentialPending = true
                }
                return released + coalesce(repush(reason: .deadline, at: now), at: now)
            }
            if let due = heartbeatDue, now >= due {
                return released + coalesce(repush(reason: .heartbeat, at: now), at: now)
            }
            return released
        case .idle, .ended:
            return released
        }
    }

    /// Everything still to send, now, whatever the coalescing window says: a held frame and, in a
    /// two-phase end, the end (shutdown).
    public mutating func drain(at now: Double) -> [ActivityFrame] {
        var frames: [ActivityFrame] = []
        if let frame = held { frames.append(release(frame, at: now)) }
        if lifecycle == .ending { frames.append(finishEnd(at: now)) }
        return frames
    }

    // MARK: - Coalescing

    /// One event, one push: a frame decided within `coalesceWindow` after the last one that left
    /// (the estimate a second after a seed, the progress a few ms after a card text) waits for the
    /// window to pass, and frames waiting together leave as one request; an end never waits. A
    /// frame that `mayWait` (a correction made before the bar drifts past its tolerance) waits
    /// its own window too, for a card text arriving right behind it.
    private mutating func coalesce(_ frame: ActivityFrame, at now: Double, mayWait: Bool = false) -> [ActivityFrame] {
        let window = settings.coalesceWindow
        if let waiting = held {
            // A seed and its end stay two requests (the card was started; the end says how it went).
            let startThenEnd = waiting.kind == .seed && (frame.kind == .final || frame.kind == .end)
            if !startThenEnd, waiting.kind != .final || frame.kind != .end, let merged = waiting.merging(frame) {
                held = merged
                // A seed waiting for its estimate leaves one window after the frame that ends the wait.
                heldUntil = min(heldUntil ?? .infinity, now + window)
                return window > 0 ? [] : [release(merged, at: now)]
            }
            // Frames one request cannot carry (a seed, then its end): the waiting one leaves now,
            // and the newer one waits its own window (an end goes right behind it).
            let released = release(waiting, at: now)
            if frame.kind == .end || window <= 0 { return [released, frame] }
            held = frame
            heldOver = anchorBefore
            heldUntil = now + window
            return [released]
        }
        guard window > 0 else {
            lastReleaseAt = now
            return [frame]
        }
        let earliest = (lastReleaseAt ?? -.infinity) + window
        // An end never waits; nothing else waits when the last frame left long enough ago (a
        // push the bar needs now is never delayed for an event that may not come).
        if frame.kind == .end || (now >= earliest && !mayWait) {
            lastReleaseAt = now
            return [frame]
        }
        held = frame
        heldOver = anchorBefore
        // A correction made ahead of the bar's drift waits a whole window for a card text.
        heldAhead = mayWait && now >= earliest
        heldUntil = mayWait ? max(earliest, now + window) : earliest
        return []
    }

    /// The held frame as it leaves at `now`: its anchor recomputed for the moment it leaves
    /// when it is still this tracker's latest word.
    private mutating func release(_ frame: ActivityFrame, at now: Double) -> ActivityFrame {
        let shown = heldOver
        let ahead = heldAhead
        held = nil
        heldUntil = nil
        heldOver = nil
        heldAhead = false
        lastReleaseAt = now
        var copy: ActivityFrame
        if ahead, frame.sequence == sequence, frame.time < now, let decided = anchor, decided.time == frame.time,
            decided.live, (truth?.time ?? now) <= frame.time
        {
            // A correction that waited for a card text, with no observation since, leaves with the
            // glide it was decided with, from where that glide is by now: the bar was within its
            // tolerance all the while, and nothing new is known. (One observation later it is
            // planned again, below: a reading that came meanwhile must not leave a stale bar.)
            copy = frame
            let progress = decided.shown(at: now, model: model)
            copy.content["progress"] = .number(Self.round(progress))
            copy.patch["progress"] = copy.content["progress"]
            stored = copy.content
            anchor?.progress = progress
            anchorApplied(at: now)
        } else if let fresh = refreshed(frame, shown: shown, at: now) {
            copy = fresh
        } else {
            copy = frame
            // The phone anchors the glide when the frame arrives, not when it was decided.
            if frame.sequence == sequence, frame.time < now, anchor?.time == frame.time { anchorApplied(at: now) }
        }
        copy.time = now
        // The volatile details as the latest observation has them: a number on the card is true
        // when its push goes out.
        if copy.kind != .end, lifecycle == .running || lifecycle == .ending {
            for (key, value) in latestDetails.objectValue ?? [:] where stored[key] != value {
                copy.patch[key] = value
                copy.content[key] = value
                stored[key] = value
            }
        }
        return copy
    }

    // MARK: - Delivery feedback

    /// The service applied `frame` at `appliedAt`; if that was late (after an outage) the phone
    /// anchored then, so the model follows.
    public mutating func acknowledge(_ frame: ActivityFrame, appliedAt: Double) {
        deliveredSequence = max(deliveredSequence, frame.sequence)
        guard frame.sequence == sequence, let anchor, appliedAt > anchor.time + 1 else { return }
        anchorApplied(at: appliedAt)
    }

    /// The latest frame reached the phone at `time`, later than it was decided: the glide it
    /// carries starts then (and has ended if its `end_date` has passed).
    private mutating func anchorApplied(at time: Double) {
        guard var shown = anchor else { return }
        shown.time = time
        if let endDate = shown.endDate, endDate <= time { shown.live = false }
        anchor = shown
        lastPushAt = max(lastPushAt ?? time, time)
    }

    /// The service refused a frame for good: our model of its content is no longer reliable, so
    /// the next push carries the whole content.
    public mutating func frameRejected(_ frame: ActivityFrame) {
        needsResync = true
        if frame.kind == .seed { lifecycle = .running }
    }

    // MARK: - Decisions

    /// The push policy for this tracker's sink and settings.
    var policy: EconomyPolicy { EconomyPolicy(settings: settings, model: model) }

    /// When the glide must be re-anchored because `end_date` is about to pass with the job running.
    private var anchorDeadline: Double? {
        policy.anchorDeadline(
            anchor, truth: truth, phase: lastPhaseKind,
            suppressed: onTrack ? anchor?.endDate : suppressedDeadline)
    }

    /// A job on track to end by its `end_date` needs no re-anchor before it: the deadline stays
    /// away while the latest observation says so, and comes back when one says it is late. Read
    /// when the observation or the anchor changes, not at every look at the deadline.
    private mutating func refreshOnTrack() {
        onTrack =
            truth.map { policy.onTrack(anchor, truth: $0, memory: memory, budget: spending, at: $0.time) } ?? false
    }

    private var heartbeatDue: Double? {
        guard expiresStale else { return nil }
        return policy.heartbeatDue(lastPushAt: lastPushAt, staleTTL: staleTTL, renewal: renewalDue)
    }

    /// When the current Live Activity must be ended and started afresh: `renewalMargin` before
    /// `lifecycleLimit`, or `renewalLastMoment` before it when the job should end before the
    /// limit (then one that does needs no renewal at all).
    var renewalDue: Double? {
        guard let limit = lifecycleLimit, let started = lifecycleStartedAt else { return nil }
        let expires = started + limit
        let early = expires - settings.renewalMargin
        let late = expires - max(0, min(settings.renewalMargin, settings.renewalLastMoment))
        if let finish = anchor?.endDate ?? truth?.finish, finish < late, lastPhaseKind == "active" { return late }
        return early
    }

    /// Ends the Live Activity and starts the next one for the same job at once (same slug, so
    /// automations and the service's records keep pointing at it): the end, then a start with the
    /// whole card and a fresh `end_date`. Two requests that leave together, never coalesced.
    private mutating func renew(at now: Double) -> [ActivityFrame] {
        var end = liveActivityEnd(reason: .renewal, at: now)
        end.paused = lastPhaseKind == "paused"
        return [end, restartFrame(reason: .renewal, at: now)]
    }

    /// Ends the current Live Activity of a job that goes on (a renewal, a displacement): the card
    /// as it stands, `state: ended`.
    private mutating func liveActivityEnd(reason: PushReason, at now: Double) -> ActivityFrame {
        sequence += 1
        var end = ActivityFrame(
            slug: slug, name: name, kind: .end, activityState: "ended", patch: .object([:]), content: stored,
            priority: priority, truthProgress: truth?.progress, time: now, reason: reason, sequence: sequence)
        end.source = source
        end.essential = true
        return end
    }

    /// A start of a fresh Live Activity for the running job: the whole card from the latest
    /// observation and a fresh anchor.
    private mutating func restartFrame(reason: PushReason, at now: Double) -> ActivityFrame {
        lifecycleStartedAt = now
        needsResync = true
        var seed = repush(reason: reason, at: now)
        seed.kind = .seed
        seed.activityState = "ongoing"
        seed.patch = seed.content
        seed.ttls = ActivityTTLs(stale: Int(staleTTL), ended: settings.endedTTL, dismissal: settings.dismissalTTL)
        seed.essential = true
        lastReleaseAt = now
        return seed
    }

    // MARK: - Slots (`Sink.maxOngoing`)

    /// The frames just decided never leave (the job waits for a slot): as far as delivery goes
    /// they are done, and the next frame shown carries the whole card.
    public mutating func discardWhileWaiting() {
        waiting = true
        held = nil
        heldUntil = nil
        heldOver = nil
        heldAhead = false
        deliveredSequence = sequence
        needsResync = true
    }

    /// The service preempted the activity for another one on the account: the job waits; its end,
    /// when it comes, still closes the preempted activity there.
    public mutating func preempted() {
        discardWhileWaiting()
        openWhileWaiting = lifecycle == .running || lifecycle == .ending
    }

    /// The end of a preempted activity left (see `preempted()`).
    public mutating func closedWhileWaiting() { openWhileWaiting = false }

    /// A slot is free: a running job starts its Live Activity with the whole card (nothing for a
    /// job that ended while it waited).
    public mutating func show(at now: Double) -> [ActivityFrame] {
        waiting = false
        openWhileWaiting = false
        guard lifecycle == .running else { return [] }
        return [restartFrame(reason: .start, at: now)]
    }

    /// A job of higher priority takes this one's place: its Live Activity ends, and it waits.
    public mutating func displace(at now: Double) -> [ActivityFrame] {
        waiting = true
        guard lifecycle == .running else { return [] }
        let end = liveActivityEnd(reason: .displaced, at: now)
        needsResync = true
        return [end]
    }

    /// Priority on the phone (0…10), and when the job started: the slot gate's order.
    var rank: (priority: Int, startedAt: Double) { (priority ?? 0, startedAt ?? 0) }

    /// True while the service may count this activity as ongoing: running, ending, or ended with
    /// the end not yet delivered; never while waiting.
    var holdsSlot: Bool {
        guard !waiting else { return false }
        switch lifecycle {
        case .running, .ending: return true
        case .ended: return deliveredSequence < sequence
        case .idle: return false
        }
    }

    private mutating func pushDecision(
        _ update: ActivityUpdate, stable: JSONValue, phaseKind: String, at now: Double, budget: BudgetPressure
    ) -> EconomyPolicy.Decision? {
        guard let truth else { return EconomyPolicy.Decision(reason: .resync, firstGlide: false) }
        let situation = EconomyPolicy.Situation(
            truth: truth, anchor: anchor, phase: phaseKind, pushedPhase: lastPhaseKind,
            cardChanged: stable != lastStable,
            carriesProgress: update.progress != nil, hasGlided: hasGlided, needsResync: needsResync,
            lastPushAt: lastPushAt, startedAt: startedAt, heartbeatDue: heartbeatDue, anchorDeadline: anchorDeadline,
            pushedRemaining: stored["remaining_time"]?.doubleValue, now: now, rationed: budget.limited)
        guard let decision = policy.decide(situation, budget: budget, frozen: spending.exhausted, memory: &memory)
        else { return nil }
        if decision.firstGlide { hasGlided = true }  // one attempt per job, whatever the anchor turns out to be
        if decision.firstGlide || decision.essential { essentialPending = true }
        return decision
    }

    // MARK: - Frames

    private mutating func start(_ update: ActivityUpdate, stable: JSONValue, phaseKind: String, at now: Double)
        -> ActivityFrame
    {
        lifecycle = .running
        endDue = nil
        endOutcome = nil
        stored = .object([:])
        needsResync = false
        startedAt = now
        lifecycleStartedAt = now
        hasGlided = false
        var frame = push(update, stable: stable, phaseKind: phaseKind, reason: .start, at: now, forceDetails: true)
        frame.kind = .seed
        frame.activityState = "ongoing"
        frame.patch = frame.content
        frame.ttls = ActivityTTLs(
            stale: Int(staleTTL), ended: settings.endedTTL, dismissal: settings.dismissalTTL)
        return frame
    }

    private mutating func push(
        _ update: ActivityUpdate, stable: JSONValue, phaseKind: String, reason: PushReason, at now: Double,
        forceDetails: Bool = false
    ) -> ActivityFrame {
        let refreshDetails =
            forceDetails || reason == .structural || reason == .resync || reason == .restart
            || now - (lastDetailsAt ?? -.infinity) >= settings.detailInterval
        var desired = stable
        for (key, value) in Self.stableContent(update.details).objectValue ?? [:] where key != "template" {
            if refreshDetails || stored[key] == nil || lastStable[key] != stable[key] {
                desired[key] = value
            } else if let kept = stored[key] {
                desired[key] = kept
            }
        }
        if refreshDetails { lastDetailsAt = now }
        adoptCard(stable, phaseKind: phaseKind, at: now)
        let isPaused = phaseKind == "paused"
        return emitFrame(desired: desired, paused: isPaused, reason: reason, at: now)
    }

    /// The card text and phase the frame being made shows; the economy learns of a change.
    private mutating func adoptCard(_ stable: JSONValue, phaseKind: String, at now: Double) {
        if stable != lastStable || phaseKind != lastPhaseKind {
            policy.cardChanged(
                memory: &memory, truth: truth, samePhase: lastPhaseKind != "none" && phaseKind == lastPhaseKind,
                at: now)
        }
        lastStable = stable
        lastPhaseKind = phaseKind
    }

    /// A re-anchor from the latest truth (deadline, heartbeat): the card as last pushed, or with
    /// a text of the same phase that waited for a push (it goes out with this one).
    private mutating func repush(reason: PushReason, at now: Double) -> ActivityFrame {
        if let latest = latestStable, latest.phase == lastPhaseKind, latest.content.objectValue?.isEmpty == false {
            adoptCard(latest.content, phaseKind: latest.phase, at: now)
        }
        // The card, with the volatile details as the latest observation has them.
        var desired = lastStable.objectValue?.isEmpty == false ? lastStable : stored
        for field in Self.anchorFields { desired[field] = nil }
        for (key, value) in latestDetails.objectValue ?? [:] { desired[key] = value }
        return emitFrame(desired: desired, paused: lastPhaseKind == "paused", reason: reason, at: now)
    }

    /// The anchor fields (`progress`, `end_date`, `live_progress`, `remaining_time`) for a push at
    /// `now` from the latest truth, and the anchor the phone will then draw from.
    private func anchorFields(paused: Bool, current: DisplayAnchor? = nil, at now: Double) -> (
        fields: [String: JSONValue], anchor: DisplayAnchor, finish: Double?
    ) {
        let current = current ?? anchor
        let plan = policy.plan(
            truth, memory: memory, paused: paused, startedAt: startedAt, frozen: spending.exhausted,
            rationed: spending.limited, fallbackProgress: current?.progress, current: current, at: now)
        var fields: [String: JSONValue] = ["progress": .number(Self.round(plan.progress))]
        if let endDate = plan.endDate {
            fields["end_date"] = .int(Int64(endDate))
            if plan.live { fields["live_progress"] = .bool(true) }
        }
        if let remaining = plan.remaining { fields["remaining_time"] = .int(Int64(remaining)) }
        return (fields, plan.anchor, plan.finish)
    }

    private mutating func emitFrame(desired base: JSONValue, paused: Bool, reason: PushReason, at now: Double)
        -> ActivityFrame
    {
        var desired = base
        let (fields, newAnchor, finish) = anchorFields(paused: paused, at: now)
        for (key, value) in fields { desired[key] = value }
        let requiredStale = policy.requiredStaleTTL(finish: finish, at: now)
        var ttls = ActivityTTLs()
        if requiredStale > staleTTL || reason == .start {
            staleTTL = requiredStale.rounded()
            ttls.stale = Int(staleTTL)
        }
        return record(
            desired: desired, anchor: newAnchor, kind: .update, state: nil, ttls: ttls, reason: reason, at: now)
    }

    /// The frame with its anchor fields recomputed for `now`, when it waited `refreshAge` or more
    /// (an outage) and is still this tracker's latest: delivery calls this right before sending,
    /// so a late push never re-anchors the phone from a stale progress.
    public mutating func refreshed(_ frame: ActivityFrame, at now: Double) -> ActivityFrame? {
        refreshed(frame, shown: nil, at: now)
    }

    /// `refreshed`, planned against `shown`, the anchor the phone draws from while the frame waits
    /// (the one before a held frame; nil: the tracker's latest).
    private mutating func refreshed(_ frame: ActivityFrame, shown: DisplayAnchor?, at now: Double) -> ActivityFrame? {
        guard lifecycle == .running, frame.sequence == sequence, frame.kind == .update || frame.kind == .seed,
            lastPhaseKind == "active" || lastPhaseKind == "paused", now - frame.time >= settings.refreshAge
        else { return nil }
        let (fields, newAnchor, _) = anchorFields(
            paused: lastPhaseKind == "paused", current: shown ?? anchor, at: now)
        var copy = frame
        for key in Self.anchorFields where key != "duration" && key != "start_date" {
            if let value = fields[key] {
                copy.patch[key] = value
                copy.content[key] = value
            } else if copy.content[key] != nil {
                copy.patch[key] = copy.kind == .seed ? nil : .null
                copy.content[key] = nil
            }
        }
        copy.time = now
        copy.finishesAt = newAnchor.endDate ?? truth?.finish
        stored = copy.content
        // The phone sees this anchor, not the one decided: a countdown it moves is a move.
        policy.pushed(memory: &memory, from: anchor, to: newAnchor, at: now)
        anchor = newAnchor
        lastPushAt = now
        return copy
    }

    private mutating func end(_ update: ActivityUpdate, outcome: ActivityOutcome, stable: JSONValue, at now: Double)
        -> [ActivityFrame]
    {
        var desired = stable
        for (key, value) in Self.stableContent(update.details).objectValue ?? [:] where key != "template" {
            desired[key] = value
        }
        let finalProgress = outcome == .success ? 1.0 : (truth?.progress ?? anchor?.progress ?? 0)
        desired["progress"] = .number(Self.round(finalProgress))
        lastStable = stable
        lastPhaseKind = "ended"
        let anchor = DisplayAnchor(progress: finalProgress, time: now, endDate: nil, live: false)
        if settings.effectiveEndFrames >= 2 {
            lifecycle = .ending
            endDue = now + settings.endDisplay
            if !needsResync, let shown = self.anchor, let shownAt = lastPushAt, !shown.live,
                abs(shown.progress - finalProgress) < 1e-9, MergePatch.diff(from: stored, to: desired) == .object([:])
            {
                // The card already shows the final content (the source showed it while it waited
                // to be sure the job was over): no final frame, and the end follows `endDisplay`
                // after that content went out.
                endDue = max(now, shownAt + settings.endDisplay)
                endOutcome = outcome
                return []
            }
            var frame = record(
                desired: desired, anchor: anchor, kind: .final, state: "ongoing", ttls: ActivityTTLs(), reason: .final,
                at: now)
            frame.outcome = outcome
            return [frame]
        }
        lifecycle = .ended
        var frame = record(
            desired: desired, anchor: anchor, kind: .end, state: "ended", ttls: ActivityTTLs(), reason: .end, at: now)
        frame.outcome = outcome
        return [frame]
    }

    private mutating func finishEnd(at now: Double) -> ActivityFrame {
        lifecycle = .ended
        endDue = nil
        let outcome = endOutcome
        endOutcome = nil
        sequence += 1
        lastPushAt = now
        // After a restart that lost the final frame, the end carries the whole final content.
        let patch = needsResync ? Self.fullPatch(stored) : .object([:])
        needsResync = false
        var frame = ActivityFrame(
            slug: slug, name: name, kind: .end, activityState: "ended", patch: patch, content: stored,
            priority: priority, outcome: outcome, truthProgress: truth?.progress, time: now, reason: .end,
            sequence: sequence)
        frame.source = source
        return frame
    }

    /// Frames to send right after a restart: an ended activity whose end the service may never
    /// have received is ended again, with its whole final content. (A running one needs nothing
    /// here: its next push is a full resync, see `init(snapshot:)`; an ending one resends the
    /// final content with its end.)
    public mutating func recoveryFrames(at now: Double) -> [ActivityFrame] {
        guard lifecycle == .ended, deliveredSequence < sequence else { return [] }
        sequence += 1
        lastPushAt = now
        needsResync = false
        var frame = ActivityFrame(
            slug: slug, name: name, kind: .end, activityState: "ended", patch: Self.fullPatch(stored),
            content: stored, priority: priority, outcome: nil, truthProgress: truth?.progress, time: now,
            reason: .resync, sequence: sequence)
        frame.source = source
        return [frame]
    }

    /// `content` as a patch that replaces whatever the service holds: every field not in it is cleared.
    static func fullPatch(_ content: JSONValue) -> JSONValue {
        var full = content.objectValue ?? [:]
        for field in GenericContent.fieldNames where full[field] == nil { full[field] = .null }
        return .object(full)
    }

    private mutating func record(
        desired: JSONValue, anchor newAnchor: DisplayAnchor, kind: FrameKind, state: String?, ttls: ActivityTTLs,
        reason: PushReason, at now: Double
    ) -> ActivityFrame {
        var patch: JSONValue
        if needsResync {
            patch = Self.fullPatch(desired)
            needsResync = false
        } else {
            patch = MergePatch.diff(from: stored, to: desired)
        }
        // Every push carries a fresh progress, even when it equals the stored one.
        if patch["progress"] == nil, let progress = desired["progress"] { patch["progress"] = progress }
        stored = MergePatch.apply(patch, to: stored)
        policy.pushed(memory: &memory, from: anchor, to: newAnchor, at: now)
        anchorBefore = anchor
        anchor = newAnchor
        if newAnchor.live { hasGlided = true }
        let essential = kind == .seed || kind == .final || kind == .end || essentialPending
        essentialPending = false
        lastPushAt = now
        suppressedDeadline = nil
        sequence += 1
        var frame = ActivityFrame(
            slug: slug, name: name, kind: kind, activityState: state ?? (kind == .update ? "ongoing" : nil),
            patch: patch, content: stored, ttls: ttls, priority: priority, outcome: nil,
            truthProgress: truth?.progress, finishesAt: anchor?.endDate ?? truth?.finish,
            fixedFinish: truth?.fixedFinish ?? false, time: now, reason: reason, sequence: sequence)
        frame.essential = essential
        frame.paused = lastPhaseKind == "paused"
        frame.source = source
        return frame
    }

    // MARK: - Snapshot support

    var lastStableContent: JSONValue { lastStable }
    var lastPhase: String { lastPhaseKind }
    var currentStaleTTL: Double { staleTTL }
    var resyncPending: Bool { needsResync }
    var detailsRefreshedAt: Double? { lastDetailsAt }
    var endDueAt: Double? { endDue }
    var pendingEndOutcome: ActivityOutcome? { endOutcome }
    var activityPriority: Int? { priority }
    var jobStartedAt: Double? { startedAt }
    var liveActivityStartedAt: Double? { lifecycleStartedAt }
    var glided: Bool { hasGlided }
    var observationGap: Double? { memory.observationGap }

    mutating func restore(
        lifecycle: Lifecycle, stored: JSONValue, lastStable: JSONValue, phase: String, anchor: DisplayAnchor?,
        truth: TruthSample?, lastPushAt: Double?, lastDetailsAt: Double?, endDue: Double?, staleTTL: Double,
        priority: Int?, sequence: Int, needsResync: Bool, startedAt: Double? = nil, deliveredSequence: Int? = nil,
        glided: Bool? = nil, source: String? = nil, lifecycleStartedAt: Double? = nil, waiting: Bool = false,
        endOutcome: ActivityOutcome? = nil, observationGap: Double? = nil
    ) {
        self.waiting = waiting
        self.endOutcome = endOutcome
        self.source = source
        self.startedAt = startedAt
        // Snapshots from before renewals count the Live Activity from the job's start.
        self.lifecycleStartedAt = lifecycleStartedAt ?? startedAt
        self.hasGlided = glided ?? (anchor?.endDate != nil || lifecycle != .running)
        // A seed that never reached the service (it waited for its estimate when the process
        // stopped) started nothing there: the next observation starts the activity afresh.
        let neverStarted = lifecycle == .running && deliveredSequence == 0 && sequence > 0
        self.lifecycle = neverStarted ? .idle : lifecycle
        self.stored = stored
        self.lastStable = lastStable
        self.lastPhaseKind = phase
        self.anchor = anchor
        self.truth = truth
        self.lastPushAt = lastPushAt
        self.lastDetailsAt = lastDetailsAt
        self.endDue = endDue
        self.staleTTL = staleTTL
        self.priority = priority
        self.sequence = sequence
        // Snapshots from before delivery was tracked count everything as delivered.
        self.deliveredSequence = deliveredSequence ?? sequence
        // Frames decided but never acknowledged may not have reached the service (they waited in
        // memory when the process stopped): the next push carries the whole content.
        self.needsResync = needsResync || self.deliveredSequence < sequence
        // The source's interval between observations is kept (it says when the end will be
        // seen; the restart's own pause is not one of them), the pace is measured afresh. Whether
        // the job is on track, from the restored truth's finish: a restart otherwise re-anchored
        // a glide at its deadline before the next observation.
        memory.observationGap = observationGap.flatMap { $0 > 0 ? $0 : nil }
        refreshOnTrack()
    }

    // MARK: - Helpers

    /// The adapter's content without the fields the tracker owns, with the template set.
    static func stableContent(_ content: GenericContent) -> JSONValue {
        var json = content.json
        for field in anchorFields { json[field] = nil }
        json = MergePatch.stripNulls(json)
        json["template"] = "generic"
        return json
    }

    static func phaseKind(_ phase: ActivityPhase) -> String {
        switch phase {
        case .active: "active"
        case .paused: "paused"
        case .ended: "ended"
        }
    }

    static func round(_ progress: Double) -> Double {
        (min(1, max(0, progress)) * 10000).rounded() / 10000
    }
}
