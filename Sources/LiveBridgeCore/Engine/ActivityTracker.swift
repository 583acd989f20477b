/// Budget state the tracker takes into account when deciding whether a push is worth it.
public struct BudgetPressure: Sendable, Hashable {
    /// ε and the ETA tolerance are multiplied by this (1 = no pressure).
    public var widening: Double
    /// The month's budget is spent: only starts and ends go out.
    public var exhausted: Bool

    public init(widening: Double = 1, exhausted: Bool = false) {
        self.widening = widening
        self.exhausted = exhausted
    }

    /// No budget configured.
    public static let none = BudgetPressure()
}

/// One observation of the truth, kept to extrapolate and to estimate the display error.
public struct TruthSample: Sendable, Hashable, Codable {
    public var progress: Double?
    public var time: Double
    /// Absolute finish time, when known.
    public var finish: Double?
    /// True when `finish` is a fixed timestamp from the source.
    public var fixedFinish: Bool

    public init(progress: Double?, time: Double, finish: Double?, fixedFinish: Bool) {
        self.progress = progress
        self.time = time
        self.finish = finish
        self.fixedFinish = fixedFinish
    }

    /// The progress expected at `t`, assuming the job keeps to its finish estimate.
    func extrapolated(to t: Double, maximumAge: Double) -> Double? {
        guard let progress else { return nil }
        guard t > time, t - time <= maximumAge, let finish, finish > t else { return progress }
        return min(1, progress + (1 - progress) * (t - time) / (finish - time))
    }
}

/// The life of one activity on one sink: create → seed → updates → two-phase end, and the push
/// economy that decides which observations are worth a push.
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
    public private(set) var anchor: DisplayAnchor?
    public private(set) var lastPushAt: Double?
    /// The latest truth.
    public private(set) var truth: TruthSample?
    private var previousTruth: TruthSample?
    private var lastStable: JSONValue = .object([:])
    private var lastPhaseKind = "none"
    private var lastDetailsAt: Double?
    private var endDue: Double?
    private var staleTTL: Double = 0
    private var suppressedDeadline: Double?
    private var needsResync = false
    private var etaDeviationSince: Double?
    /// The monthly budget allows only starts and ends right now (set by `handle`/`tick`).
    private var spendingFrozen = false
    /// Whether this job's bar has glided yet (a live anchor was pushed since the seed).
    private var hasGlided = false
    /// The next frame is the job's first glide, which counts as part of its start.
    private var firstGlidePending = false
    /// When the activity was seeded (its job started), for windows that scale with the job.
    private var startedAt: Double?
    private var priority: Int?
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

    // MARK: - Handling observations

    /// Takes one observation; returns the frames to deliver now (often none).
    public mutating func handle(
        _ update: ActivityUpdate, at now: Double, budget: BudgetPressure = .none
    ) -> [ActivityFrame] {
        let t = min(update.observedAt ?? now, now)
        spendingFrozen = budget.exhausted
        name = update.name
        if let priority = update.priority { self.priority = priority }
        // A finish `end_date` cannot carry (a garbled ETA: not a number, or beyond the year 9999)
        // counts as unknown; turned into an integer end_date it would trap.
        let finish = (update.eta?.finish(observedAt: t)).flatMap { abs($0) <= ActivityETA.latestFinish ? $0 : nil }
        var fixed = false
        if case .finishesAt = update.eta { fixed = true }
        let progress = update.progress.map { $0.isFinite ? min(1, max(0, $0)) : 0 }
        if let current = truth, current.time < t { previousTruth = current }
        truth = TruthSample(progress: progress ?? truth?.progress, time: t, finish: finish, fixedFinish: fixed)
        let stable = Self.stableContent(update.content)
        let phaseKind = Self.phaseKind(update.phase)

        switch update.phase {
        case .ended(let outcome):
            switch lifecycle {
            case .idle, .ended, .ending:
                return []
            case .running:
                return end(update, outcome: outcome, stable: stable, at: now)
            }
        case .active, .paused:
            switch lifecycle {
            case .idle, .ended:
                return [start(update, stable: stable, phaseKind: phaseKind, at: now)]
            case .ending:
                lifecycle = .running
                endDue = nil
                return [push(update, stable: stable, phaseKind: phaseKind, reason: .restart, at: now)]
            case .running:
                guard let reason = pushReason(update, stable: stable, phaseKind: phaseKind, at: now, budget: budget)
                else { return [] }
                return [push(update, stable: stable, phaseKind: phaseKind, reason: reason, at: now)]
            }
        }
    }

    /// When `tick` next has something to do (Unix seconds), or nil.
    public var nextDeadline: Double? {
        switch lifecycle {
        case .ending:
            return endDue
        case .running:
            var deadline = heartbeatDue
            if let anchorDeadline { deadline = min(deadline ?? .infinity, anchorDeadline) }
            return deadline
        case .idle, .ended:
            return nil
        }
    }

    /// Performs what is due at `now`: the `ended` half of a two-phase end, a re-anchor before
    /// `end_date` passes while the job still runs, or a heartbeat before `stale_ttl` expires.
    public mutating func tick(at now: Double, budget: BudgetPressure = .none) -> [ActivityFrame] {
        spendingFrozen = budget.exhausted
        switch lifecycle {
        case .ending:
            guard let endDue, now >= endDue else { return [] }
            return [finishEnd(at: now)]
        case .running:
            if let deadline = anchorDeadline, now >= deadline {
                if budget.exhausted {
                    suppressedDeadline = anchor?.endDate
                    return []
                }
                return [repush(reason: .deadline, at: now)]
            }
            if let due = heartbeatDue, now >= due {
                return [repush(reason: .heartbeat, at: now)]
            }
            return []
        case .idle, .ended:
            return []
        }
    }

    // MARK: - Delivery feedback

    /// The service applied `frame` at `appliedAt`; if that was late (after an outage) the phone
    /// anchored then, so the model follows.
    public mutating func acknowledge(_ frame: ActivityFrame, appliedAt: Double) {
        deliveredSequence = max(deliveredSequence, frame.sequence)
        guard frame.sequence == sequence, var anchor, appliedAt > anchor.time + 1 else { return }
        anchor.time = appliedAt
        if let endDate = anchor.endDate, endDate <= appliedAt { anchor.live = false }
        self.anchor = anchor
        lastPushAt = max(lastPushAt ?? appliedAt, appliedAt)
    }

    /// The service refused a frame for good: our model of its content is no longer reliable, so
    /// the next push carries the whole content.
    public mutating func frameRejected(_ frame: ActivityFrame) {
        needsResync = true
        if frame.kind == .seed { lifecycle = .running }
    }

    // MARK: - Decisions

    /// When the glide must be re-anchored because `end_date` is about to pass with the job running.
    private var anchorDeadline: Double? {
        guard lastPhaseKind == "active", let anchor, anchor.isGliding(at: anchor.time, model: model),
            let endDate = anchor.endDate, suppressedDeadline != endDate
        else { return nil }
        if let truth, truth.fixedFinish, truth.finish?.rounded() == endDate {
            return endDate + settings.fixedFinishGrace
        }
        return endDate - settings.deadlineLead
    }

    /// Seconds since the activity started (the seed), 0 before.
    func jobAge(at t: Double) -> Double { max(0, t - (startedAt ?? t)) }

    /// The shortest remaining time worth a glide: `liveMinimumWindow`, shorter for short jobs (a
    /// fifth of the job so far, at least two re-anchor leads), so a one-minute download does not
    /// stand still for its last third.
    func liveWindow(at t: Double) -> Double {
        min(settings.liveMinimumWindow, max(2 * settings.deadlineLead, 0.2 * jobAge(at: t)))
    }

    /// The `end_date` pushed for a finish estimate: padded slightly (see `finishPad`) unless the
    /// finish is a fixed timestamp.
    func endDate(forFinish finish: Double, progress: Double, fixed: Bool, at now: Double) -> Double {
        guard !fixed else { return finish.rounded() }
        let window = max(0, finish - now)
        if spendingFrozen {
            // No re-anchor can be afforded before the month resets: aim late enough that a job
            // running a little behind its estimate still ends before the bar would fall back.
            return (finish + 0.15 * window).rounded()
        }
        let allowed = 0.3 * settings.maxDisplayError * window / max(0.01, 1 - progress)
        return (finish + min(settings.finishPad, allowed)).rounded()
    }

    private var heartbeatDue: Double? {
        guard let lastPushAt, staleTTL > 0 else { return nil }
        let margin = max(300, staleTTL * 0.05)
        return lastPushAt + max(staleTTL - margin, staleTTL / 2)
    }

    private mutating func pushReason(
        _ update: ActivityUpdate, stable: JSONValue, phaseKind: String, at now: Double, budget: BudgetPressure
    ) -> PushReason? {
        if needsResync { return .resync }
        // The first glide of a job belongs to its start: a job seeded before its source knew a
        // finish time would otherwise stand at its first progress for its whole life when the
        // budget leaves room for nothing but starts and ends.
        if !hasGlided, model == .interpolating, phaseKind == "active", let truth, let finish = truth.finish,
            truth.progress.map({ $0 < 1 }) ?? true, finish - truth.time >= max(60, 3 * liveWindow(at: truth.time))
        {
            hasGlided = true  // one attempt per job, whatever the anchor turns out to be
            firstGlidePending = true
            if budget.exhausted { return .start }
            return phaseKind != lastPhaseKind || stable != lastStable ? .structural : .etaMoved
        }
        if phaseKind != lastPhaseKind {
            return budget.exhausted ? nil : .structural
        }
        if stable != lastStable {
            // A new card text within the same phase (a washer going from "Washing" to "Rinsing"):
            // under budget pressure it waits for a push that happens anyway.
            if budget.exhausted || budget.widening >= settings.labelDeferralWidening { return nil }
            return .structural
        }
        if budget.exhausted { return nil }
        guard let truth, let anchor else { return .resync }
        let t = truth.time
        let epsilon = (model == .static ? settings.staticMaxDisplayError : settings.maxDisplayError) * budget.widening
        if let due = heartbeatDue, now >= due { return .heartbeat }
        let sinceLastPush = now - (lastPushAt ?? 0)
        let staticSpacingOK = model == .interpolating || sinceLastPush >= settings.staticMinimumInterval

        if phaseKind == "paused" {
            if let p = truth.progress, abs(anchor.progress - p) > epsilon, staticSpacingOK { return .displayError }
            return nil
        }

        // Countdown-capable static display of a fixed finish: the device ticks the clock itself.
        let countdownOnly = model == .static && truth.fixedFinish && update.progress == nil

        if let p = truth.progress, !countdownOnly {
            let shownNow = anchor.shown(at: t, model: model)
            let errorNow = abs(shownNow - p)
            if errorNow > epsilon, staticSpacingOK { return .displayError }
            if errorNow > epsilon / 2, let previous = previousTruth, let previousProgress = previous.progress,
                t > previous.time
            {
                let interval = min(t - previous.time, 30)
                let rate = (p - previousProgress) / (t - previous.time)
                let predicted = abs(anchor.shown(at: t + interval, model: model) - min(1, p + rate * interval))
                if predicted > epsilon, staticSpacingOK { return .displayError }
            }
        }

        guard model == .interpolating else {
            // Static: the remaining-time label does not tick on the device.
            if !countdownOnly, let finish = truth.finish, let pushed = stored["remaining_time"]?.doubleValue {
                let trueRemaining = max(0, finish - t)
                let pushedMinutes = (pushed / 60).rounded(.up)
                let trueMinutes = (trueRemaining / 60).rounded(.up)
                let tolerance =
                    max(settings.staticETAToleranceMinimum, settings.staticETAToleranceFraction * trueRemaining)
                    * budget.widening
                if pushedMinutes != trueMinutes, abs(pushed - trueRemaining) > tolerance {
                    if etaPersisted(since: t), staticSpacingOK { return .etaMoved }
                } else {
                    etaDeviationSince = nil
                }
            } else if !countdownOnly, truth.finish != nil, stored["remaining_time"] == nil, staticSpacingOK {
                return .etaMoved
            }
            return nil
        }

        let gliding = anchor.isGliding(at: t, model: model)
        if let deadline = anchorDeadline, now >= deadline { return .deadline }
        if let finish = truth.finish, truth.progress.map({ $0 < 1 }) ?? true {
            let remaining = finish - t
            if gliding, let endDate = anchor.endDate {
                let tolerance =
                    max(settings.etaToleranceMinimum, settings.etaToleranceFraction * max(0, remaining))
                    * budget.widening
                let expected = self.endDate(
                    forFinish: finish, progress: truth.progress ?? anchor.progress, fixed: truth.fixedFinish, at: t)
                if abs(expected - endDate) > tolerance,
                    trendDisagrees(with: endDate, tolerance: tolerance, truth: truth)
                {
                    if etaPersisted(since: t) { return .etaMoved }
                } else {
                    etaDeviationSince = nil
                }
            } else if !gliding, remaining >= max(3 * liveWindow(at: t), min(60, 0.3 * jobAge(at: t))) {
                // An estimate appeared (or came back): start gliding instead of standing still.
                return .etaMoved
            }
        }
        return nil
    }

    /// Whether the progress the job actually made since the last push also says the pushed
    /// `end_date` is off. A source's own estimate wanders with its speed readings; when the bar is
    /// moving at the pace the pushed `end_date` implies, the countdown on the phone is right and a
    /// push for the wandering estimate would be spent for nothing. A fixed finish (a timer) is
    /// exact, so it needs no second opinion, and neither does a source without a progress value.
    private func trendDisagrees(with endDate: Double, tolerance: Double, truth: TruthSample) -> Bool {
        guard !truth.fixedFinish, let anchor, let progress = truth.progress else { return true }
        let elapsed = truth.time - anchor.time
        // Too soon after the push to judge a pace: trust the source unless it moved a lot.
        guard elapsed >= settings.etaTrendMinimum else { return true }
        let advanced = progress - anchor.progress
        guard advanced > 0 else { return true }
        let trendFinish = truth.time + (1 - progress) * elapsed / advanced
        return abs(self.endDate(forFinish: trendFinish, progress: progress, fixed: false, at: truth.time) - endDate)
            > tolerance
    }

    /// True once an ETA deviation first seen at or before `t` has lasted `etaPersistence`: a
    /// source's estimate jitters, and a push for a blip would be spent for nothing.
    private mutating func etaPersisted(since t: Double) -> Bool {
        let since = etaDeviationSince ?? t
        etaDeviationSince = since
        return t - since >= settings.etaPersistence
    }

    // MARK: - Frames

    private mutating func start(_ update: ActivityUpdate, stable: JSONValue, phaseKind: String, at now: Double)
        -> ActivityFrame
    {
        lifecycle = .running
        endDue = nil
        stored = .object([:])
        needsResync = false
        startedAt = now
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
        lastStable = stable
        lastPhaseKind = phaseKind
        let isPaused = phaseKind == "paused"
        return emitFrame(desired: desired, paused: isPaused, reason: reason, at: now)
    }

    /// A re-anchor from the latest truth with unchanged text (deadline, heartbeat).
    private mutating func repush(reason: PushReason, at now: Double) -> ActivityFrame {
        var desired = stored
        for field in Self.anchorFields { desired[field] = nil }
        return emitFrame(desired: desired, paused: lastPhaseKind == "paused", reason: reason, at: now)
    }

    /// The anchor fields (`progress`, `end_date`, `live_progress`, `remaining_time`) for a push at
    /// `now` from the latest truth, and the anchor the phone will then draw from.
    private func anchorFields(paused: Bool, at now: Double) -> (
        fields: [String: JSONValue], anchor: DisplayAnchor, finish: Double?
    ) {
        let sample = truth ?? TruthSample(progress: 0, time: now, finish: nil, fixedFinish: false)
        let stale = now - sample.time > settings.truthMaximumAge
        let progress = sample.extrapolated(to: now, maximumAge: settings.truthMaximumAge) ?? anchor?.progress ?? 0
        let finish = stale && !sample.fixedFinish ? nil : sample.finish
        var fields: [String: JSONValue] = ["progress": .number(Self.round(progress))]
        var newAnchor = DisplayAnchor(progress: progress, time: now, endDate: nil, live: false)
        if !paused, let finish {
            let endDate = self.endDate(forFinish: finish, progress: progress, fixed: sample.fixedFinish, at: now)
            let remaining = finish - now
            switch model {
            case .interpolating:
                if remaining >= liveWindow(at: now), progress < 1 {
                    fields["end_date"] = .int(Int64(endDate))
                    fields["live_progress"] = .bool(true)
                    newAnchor = DisplayAnchor(progress: progress, time: now, endDate: endDate, live: true)
                }
            case .static:
                fields["end_date"] = .int(Int64(finish.rounded()))
                fields["remaining_time"] = .int(Int64(max(0, remaining).rounded()))
                newAnchor = DisplayAnchor(progress: progress, time: now, endDate: finish.rounded(), live: false)
            }
        }
        return (fields, newAnchor, finish)
    }

    private mutating func emitFrame(desired base: JSONValue, paused: Bool, reason: PushReason, at now: Double)
        -> ActivityFrame
    {
        var desired = base
        let (fields, newAnchor, finish) = anchorFields(paused: paused, at: now)
        for (key, value) in fields { desired[key] = value }
        let requiredStale = Self.clamp(
            finish.map { 2 * max(0, $0 - now) + 1800 } ?? settings.staleTTLUnknown,
            settings.staleTTLMinimum, settings.staleTTLMaximum)
        var ttls = ActivityTTLs()
        if requiredStale > staleTTL || reason == .start {
            staleTTL = requiredStale.rounded()
            ttls.stale = Int(staleTTL)
        }
        return record(
            desired: desired, anchor: newAnchor, kind: .update, state: nil, ttls: ttls, reason: reason, at: now)
    }

    /// The frame with its anchor fields recomputed for `now`, when it waited (an outage) and is
    /// still this tracker's latest: delivery calls this right before sending, so a late push
    /// never re-anchors the phone from a stale progress.
    public mutating func refreshed(_ frame: ActivityFrame, at now: Double) -> ActivityFrame? {
        guard lifecycle == .running, frame.sequence == sequence, frame.kind == .update || frame.kind == .seed,
            lastPhaseKind == "active" || lastPhaseKind == "paused", now - frame.time >= 1
        else { return nil }
        let (fields, newAnchor, _) = anchorFields(paused: lastPhaseKind == "paused", at: now)
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
        sequence += 1
        lastPushAt = now
        // After a restart that lost the final frame, the end carries the whole final content.
        let patch = needsResync ? Self.fullPatch(stored) : .object([:])
        needsResync = false
        return ActivityFrame(
            slug: slug, name: name, kind: .end, activityState: "ended", patch: patch, content: stored,
            priority: priority, outcome: nil, truthProgress: truth?.progress, time: now, reason: .end,
            sequence: sequence)
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
        return [
            ActivityFrame(
                slug: slug, name: name, kind: .end, activityState: "ended", patch: Self.fullPatch(stored),
                content: stored, priority: priority, outcome: nil, truthProgress: truth?.progress, time: now,
                reason: .resync, sequence: sequence)
        ]
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
        anchor = newAnchor
        if newAnchor.live { hasGlided = true }
        let essential = kind == .seed || kind == .final || kind == .end || firstGlidePending
        firstGlidePending = false
        lastPushAt = now
        suppressedDeadline = nil
        etaDeviationSince = nil
        sequence += 1
        var frame = ActivityFrame(
            slug: slug, name: name, kind: kind, activityState: state ?? (kind == .update ? "ongoing" : nil),
            patch: patch, content: stored, ttls: ttls, priority: priority, outcome: nil,
            truthProgress: truth?.progress, finishesAt: anchor?.endDate ?? truth?.finish,
            fixedFinish: truth?.fixedFinish ?? false, time: now, reason: reason, sequence: sequence)
        frame.essential = essential
        return frame
    }

    // MARK: - Snapshot support

    var lastStableContent: JSONValue { lastStable }
    var lastPhase: String { lastPhaseKind }
    var currentStaleTTL: Double { staleTTL }
    var resyncPending: Bool { needsResync }
    var detailsRefreshedAt: Double? { lastDetailsAt }
    var endDueAt: Double? { endDue }
    var activityPriority: Int? { priority }
    var jobStartedAt: Double? { startedAt }
    var glided: Bool { hasGlided }

    mutating func restore(
        lifecycle: Lifecycle, stored: JSONValue, lastStable: JSONValue, phase: String, anchor: DisplayAnchor?,
        truth: TruthSample?, lastPushAt: Double?, lastDetailsAt: Double?, endDue: Double?, staleTTL: Double,
        priority: Int?, sequence: Int, needsResync: Bool, startedAt: Double? = nil, deliveredSequence: Int? = nil,
        glided: Bool? = nil
    ) {
        self.startedAt = startedAt
        self.hasGlided = glided ?? (anchor?.endDate != nil || lifecycle != .running)
        self.lifecycle = lifecycle
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

    static func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double { min(high, max(low, value)) }
}
