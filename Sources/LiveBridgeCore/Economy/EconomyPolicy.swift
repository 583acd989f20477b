/// Budget state the policy takes into account when deciding whether a push is worth it.
public struct BudgetPressure: Sendable, Hashable {
    /// ε and the ETA tolerance are multiplied by this (1 = no pressure).
    public var widening: Double
    /// The month's budget is spent: only starts, ends, pauses and resumes go out.
    public var exhausted: Bool
    /// Updates beyond its start, first glide and end that one job may use (the month's share per
    /// job); nil = no limit.
    public var jobAllowance: Int?
    /// The month's projected use over `EconomySettings.budgetProjectionShare` of the budget (0
    /// without a budget).
    public var projection: Double

    public init(widening: Double = 1, exhausted: Bool = false, jobAllowance: Int? = nil, projection: Double = 0) {
        self.widening = widening
        self.exhausted = exhausted
        self.jobAllowance = jobAllowance
        self.projection = projection
    }

    /// No budget configured.
    public static let none = BudgetPressure()

    /// A monthly budget rations this job: a share per job, or only the reserve left.
    public var limited: Bool { exhausted || jobAllowance != nil }
}

/// The push economy, whole: given the observations so far, what the phone shows now, the budget
/// pressure and the settings, whether to push, and with which progress and `end_date`.
///
/// A pure value: no clock, no I/O, no lifecycle. `ActivityTracker` owns the lifecycle (create,
/// seed, two-phase end, resume) and builds the frames; every decision about *when* a push is worth
/// it and *what* the bar is anchored to is made here, from `EconomySettings` alone.
///
/// The rules, in order (`decide`):
/// 1. A resync, the job's first glide, a phase change or a new card text push (the last two wait
///    under budget pressure; a card text also while the job's share must keep a correction, and
///    the next push carries it).
/// 2. A heartbeat before the service's `stale_ttl`.
/// 3. The bar is off by more than ε from the progress *at the time it was true*, or is off by
///    half of ε and will be off by ε within `errorLookaheadGaps` of its usual gaps at the measured pace,
///    or past its tolerance before the next reading at the speed of the last (`readingLookaheadGaps`).
///    A correction that follows one on the same side of the count, the count a step off the pace
///    of the first, restarts the pace there (`noteCorrection`) before the push is planned.
/// 4. A gliding bar about to pass its `end_date` while the job runs is re-anchored (deadline).
/// 5. The pushed `end_date` is off from the robust finish (below) by more than the ETA tolerance
///    (never less than the source's own resolution), for `etaPersistence`, the measured pace
///    agrees, and — when the move would reverse the previous one within `etaReversalWindow` — by
///    `etaReversalFactor` times the tolerance.
/// 6. A bar standing still gets a glide once an estimate exists and the job moves again.
///
/// Why this cannot oscillate: rule 5 always moves the anchor *to* the robust finish, which blends
/// the source's estimate with the pace measured over a window of at least `paceWindowMinimum`
/// seconds; two consecutive moves in opposite directions within the reversal window need that
/// estimate to move by more than twice the tolerance and back, for `etaPersistence` each time, with
/// the measured pace agreeing both times. A source alternating between two values cannot satisfy
/// that (the pace averages over both), so the limit cycle the old per-observation rule fell into
/// (a par2 repair growing the remaining bytes, `end_date` flipping every ~40 s) has no path.
///
/// The anchor (`plan`): progress extrapolated from the time it was true at the measured pace
/// (leaning up to `driftAnchorShare` × ε to the side the truth heads when the bar's slope and the
/// pace differ, see `leaning`), `end_date` from the robust finish, no glide while
/// the job is stalled, paused, or when no estimate the recent pace supports exists (nothing past
/// `maximumCountdown` unless the source states a fixed finish).
public struct EconomyPolicy: Sendable {
    public var settings: EconomySettings
    public var model: DisplayModel

    public init(settings: EconomySettings, model: DisplayModel) {
        self.settings = settings
        self.model = model
    }

    /// What the policy remembers between decisions about one job.
    public struct Memory: Sendable, Hashable {
        public internal(set) var pace = PaceEstimate()
        /// The track records of the source's estimate and of the pace.
        public internal(set) var score = ForecastScore()
        var etaDeviationSince: Double?
        var lastETAMoveAt: Double?
        var lastETAMoveLater: Bool?
        /// The finishes the source stated recently.
        public internal(set) var finishes = FinishTrack()
        /// The rate the source's estimate implies, for a change of speed it sees first, and such a
        /// change until the count confirms it.
        var statedRate = StatedRateShift()
        var pendingShift: PendingShift?
        /// When the card's text or phase last changed in a push: a new stretch of the job.
        var cardChangedAt: Double?
        /// The latest observation's time, and the smoothed time between two observations (the
        /// source's poll or report interval).
        var lastObservationAt: Double?
        var observationGap: Double?
        /// The latest gaps between observations, newest last (at most `EconomySettings.endSeenGaps`).
        var recentGaps: [Double] = []
        /// When the source last stated a finish of its own.
        var sourceFinishAt: Double?
        /// When the card's text last changed within one phase (a download joining a session, a
        /// washer's rinse): the progress may run at another rate from then on (see `stretchShare`).
        var stretchStartedAt: Double?
        /// Updates this job used beyond its start, first glide and end (see `jobAllowance`).
        var discretionary = 0
        /// When the job was first seen paused, while it is.
        var pausedAt: Double?
        /// Pauses and resumes this job pushed as essential (see `essentialPauses`).
        var essentialPhaseChanges = 0
        /// Deadline re-anchors this job pushed as essential (see `essentialDeadlines`).
        var essentialDeadlines = 0
        /// When the progress first moved again after a stall, until the pace of before is the
        /// job's again (see rule 6, `resumeSettled`).
        var movedAgainAt: Double?
        /// The first of the bar's recent corrections on one side of the count (`noteCorrection`).
        var correction: Correction?

        public init() {}
    }

    /// A correction of the bar: the count `progress` true at `time`, the pace `rate` then, and
    /// whether the bar was ahead of the count.
    struct Correction: Sendable, Hashable {
        var time: Double
        var progress: Double
        var rate: Double
        var ahead: Bool
    }

    /// A change of speed the source's estimate showed (`StatedRateShift`), from the pace's corner
    /// at or before it, at the pace measured until then.
    struct PendingShift: Sendable, Hashable {
        var time: Double
        var progress: Double
        var rate: Double
        var faster: Bool
    }

    /// Everything one decision looks at.
    public struct Situation: Sendable {
        public var truth: TruthSample
        /// What the phone draws from now (nil: nothing pushed yet).
        public var anchor: DisplayAnchor?
        /// `active` or `paused`, and what was last pushed.
        public var phase: String
        public var pushedPhase: String
        /// The card's stable text differs from the pushed one.
        public var cardChanged: Bool
        /// The observation carried a progress value.
        public var carriesProgress: Bool
        public var hasGlided: Bool
        public var needsResync: Bool
        public var lastPushAt: Double?
        public var startedAt: Double?
        public var heartbeatDue: Double?
        public var anchorDeadline: Double?
        /// Static sinks: the `remaining_time` last pushed.
        public var pushedRemaining: Double?
        public var now: Double
        /// A monthly budget rations the job (`BudgetPressure.limited`): every push may be one its
        /// share cannot afford again.
        public var rationed = false
    }

    /// A push and why; `firstGlide` marks the job's first glide (part of its start for the budget).
    public struct Decision: Sendable, Hashable {
        public var reason: PushReason
        public var firstGlide: Bool
        /// A push the monthly budget's reserve keeps room for, as for starts and ends (a pause
        /// and a resume).
        public var essential = false
        /// A correction made ahead of the bar's drift (the bar still within its tolerance now and
        /// one coalescing window on, see `EconomyPolicy.correctionMayWait`): it may wait that window
        /// before it leaves, so a card text arriving a moment later leaves with it as one request.
        public var mayWait = false
    }

    /// Where the phone's bar is anchored by a push at `now`.
    public struct Plan: Sendable, Hashable {
        public var progress: Double
        public var endDate: Double?
        public var live: Bool
        /// The finish estimate behind it (nil: none worth showing).
        public var finish: Double?
        /// The `remaining_time` a static display shows.
        public var remaining: Double?
        public var anchor: DisplayAnchor { DisplayAnchor(progress: progress, time: time, endDate: endDate, live: live) }
        var time: Double
    }

    // MARK: - Observations

    /// Folds a new truth into the memory (the pace).
    public func observe(_ truth: TruthSample, paused: Bool, startedAt: Double?, memory: inout Memory) {
        if let last = memory.lastObservationAt, truth.time > last {
            let gap = truth.time - last
            memory.observationGap = PaceEstimate.smooth(
                memory.observationGap, gap, weight: settings.observationGapWeight)
            memory.recentGaps.append(gap)
            if memory.recentGaps.count > settings.endSeenGaps { memory.recentGaps.removeFirst() }
        }
        memory.lastObservationAt = max(memory.lastObservationAt ?? truth.time, truth.time)
        // A pause is not a slowdown: its flat stretch is cut out of the pace when the job resumes
        // (`resumeGlideStepShare`), else when it moves again.
        guard !paused else {
            memory.pausedAt = memory.pausedAt ?? truth.time
            memory.finishes.reset()
            memory.statedRate.interrupt()
            memory.pendingShift = nil
            return
        }
        if let pausedAt = memory.pausedAt,
            (memory.pace.step ?? 0) <= settings.resumeGlideStepShare * settings.maxDisplayError
        {
            // From the pause on, and from before it when the progress had already stood longer
            // than its usual gap (a source that reports a stall as a pause, some time after it began).
            var before = 0.0
            if let gap = memory.pace.gap, let last = memory.pace.corners.last?.time {
                before = max(0, pausedAt - last - gap)
            }
            let cut = truth.time - pausedAt + before
            memory.pace.resumed(after: cut)
            memory.movedAgainAt = memory.movedAgainAt.map { $0 + cut }
        }
        memory.pausedAt = nil
        if truth.finish != nil { memory.sourceFinishAt = truth.time }
        if let finish = truth.finish, !truth.fixedFinish {
            memory.finishes.add(
                finish: finish, at: truth.time, window: steadyFinishSpan(truth), ageShare: settings.steadyFinishAgeShare
            )
        } else {
            memory.finishes.reset()
        }
        guard let progress = truth.progress else { return }
        let stallGap = max(settings.stallMinimum, settings.stallGapFactor * (memory.pace.longGap ?? 0))
        // The window holds at least the few usual gaps a pace needs (a sensor sampled every
        // 30–60 s would otherwise never have one), and as many as the unevenness of those gaps
        // asks for (`paceNoise`).
        let window = max(
            paceWindow(at: truth.time, startedAt), settings.paceWindowGaps * (memory.pace.gap ?? 0),
            unevenWindow(memory))
        let wasStalled = stalled(memory, at: truth.progressTime)
        let moved = memory.pace.add(
            progress: progress, at: truth.progressTime, window: window, stallGap: stallGap, settings: settings,
            detectsChange: true)
        if moved, wasStalled { memory.movedAgainAt = truth.progressTime }
        followStatedRate(
            truth, progress: progress, moved: moved,
            settled: !wasStalled && resumeSettled(memory, at: truth.progressTime), window: window, memory: &memory)
        // Forecasts are made and scored where the progress moved: between two such points a
        // stepwise source's value is exact, anywhere else it is off by up to a step, which over a
        // few steps would drown what the forecasts are scored on.
        guard progress < 1, moved else { return }
        var sourceRate: Double?
        if let finish = truth.finish, !truth.fixedFinish, finish > truth.progressTime {
            sourceRate = (1 - progress) / (finish - truth.progressTime)
        }
        let horizon = max(settings.paceMinimumSpan, settings.scoreHorizonGaps * (memory.pace.gap ?? 0))
        memory.score.record(
            time: truth.progressTime, progress: progress, sourceRate: sourceRate,
            paceRate: memory.pace.rate(at: truth.progressTime, settings), horizon: horizon,
            spacing: settings.scoreSpacingShare * horizon, smoothing: settings.scoreSmoothing,
            confidence: settings.calibrationConfidence)
    }

    /// A change of speed the source's own estimate shows (`StatedRateShift`) restarts the pace
    /// once the count confirms it where it moves: the count has left the old pace's line by
    /// `statedRateConfirmSteps` of its steps the way the source said (a meter climbing back after a
    /// pause says the job runs slower while its count keeps the old pace). The estimate is read
    /// while the job moves at its settled pace only (`settled`): a stalled job's meter decays, and
    /// a resumed one's climbs back, neither of which is the server's new speed.
    func followStatedRate(
        _ truth: TruthSample, progress: Double, moved: Bool, settled: Bool, window: Double, memory: inout Memory
    ) {
        guard settled else {
            memory.statedRate.interrupt()
            memory.pendingShift = nil
            return
        }
        if settings.statedRateShifts, let finish = truth.finish, !truth.fixedFinish, progress < 1,
            finish - truth.progressTime >= settings.statedRateResolutionSteps * truth.finishResolution
        {
            if let shift = memory.statedRate.add(
                rate: (1 - progress) / max(1e-9, finish - truth.progressTime), at: truth.progressTime,
                factor: settings.statedRateFactor, readings: settings.paceChangeAdvances,
                smoothing: settings.paceSmoothing),
                let corner = memory.pace.corners.last(where: { $0.time <= shift.time }),
                let rate = memory.pace.rate(at: shift.time, settings), rate > 0
            {
                memory.pendingShift = PendingShift(
                    time: corner.time, progress: corner.progress, rate: rate, faster: shift.faster)
            }
        } else {
            memory.statedRate.reset()
        }
        guard moved, let shift = memory.pendingShift else { return }
        let departed = stepsOff(
            progress, line: (shift.time, shift.progress), rate: shift.rate, faster: shift.faster, truth: truth,
            memory: memory)
        if departed > settings.statedRateConfirmSteps {
            memory.pace.restart(at: shift.time)
            memory.pendingShift = nil
        } else if truth.progressTime - shift.time > window {
            memory.pendingShift = nil
        }
    }

    /// How many of its steps (the pace's, at least the source's resolution) the count `progress`,
    /// true at `truth.progressTime`, has left the line from `line` at `rate` by, toward `faster`
    /// (negative the other way): a count within a step of a line says nothing about its speed.
    func stepsOff(
        _ progress: Double, line: (time: Double, progress: Double), rate: Double, faster: Bool, truth: TruthSample,
        memory: Memory
    ) -> Double {
        let step = max(memory.pace.step ?? 0, truth.resolution)
        let expected = line.progress + rate * (truth.progressTime - line.time)
        return (faster ? progress - expected : expected - progress) / step
    }

    /// The window a pace over uneven advances needs: measured over n gaps whose lengths vary by a
    /// coefficient cv, a rate is off by about cv / √n, so (cv / `paceNoise`)² gaps hold it within
    /// `paceNoise` (a slow server's articles landing one by one, tens of seconds apart and
    /// unevenly, read over a quarter of the job's age swing the finish by minutes from one
    /// correction to the next). Never longer than `paceWindowMaximum`; 0 for a source whose
    /// advances come evenly (a count moving every poll).
    func unevenWindow(_ memory: Memory) -> Double {
        guard settings.paceNoise > 0, let cv = memory.pace.irregularity(settings), let gap = memory.pace.gap else {
            return 0
        }
        let gaps = (cv / settings.paceNoise) * (cv / settings.paceNoise)
        return min(settings.paceWindowMaximum, gaps * gap)
    }

    func paceWindow(at t: Double, _ startedAt: Double?) -> Double {
        let age = max(0, t - (startedAt ?? t))
        return min(settings.paceWindowMaximum, max(settings.paceWindowMinimum, settings.paceWindowFraction * age))
    }

    // MARK: - Estimates

    /// The measured pace (progress per second) at `now`, 0 while stalled, nil when unknown.
    public func pace(_ memory: Memory, at now: Double) -> Double? {
        if memory.pace.stalled(at: now, minimum: settings.stallMinimum, factor: settings.stallGapFactor) { return 0 }
        return memory.pace.rate(at: now, settings)
    }

    /// True when the job has stopped moving (no advance for a few of its usual steps).
    public func stalled(_ memory: Memory, at now: Double) -> Bool {
        memory.pace.stalled(at: now, minimum: settings.stallMinimum, factor: settings.stallGapFactor)
    }

    /// The progress at `now`: the last value extrapolated from the time it was true (a stepwise
    /// value from when its step was first seen) at the pace, never for a truth older than
    /// `truthMaximumAge`, standing still while stalled.
    ///
    /// A source whose reports are a coarse staircase (the same count again between steps of more
    /// than half of ε: SABnzbd's articles in a small download) is followed by a glide through the
    /// middle of its steps: up to half a step below the count when the step is new, as far above
    /// it when the next one is due. A glide from the step's corner would be a whole step ahead of
    /// the count before each step, and a step of more than ε would cost a push every step.
    public func progress(_ truth: TruthSample, memory: Memory, at now: Double) -> Double? {
        guard let p = truth.progress else { return nil }
        // The source says its progress stands (a download whose post-processing has begun).
        if truth.holds { return p }
        let age = now - truth.progressTime
        let offset = staircaseOffset(memory)
        guard age > 0 || offset > 0, age <= settings.truthMaximumAge, p < 1 else { return p }
        let rate: Double
        // Stall and overdue steps are judged by what the observations show (at the latest
        // observation), not by how late this decision is taken.
        if let measured = pace(memory, at: truth.time) {
            rate = measured
        } else if let finish = truth.finish, finish > truth.progressTime {
            rate = (1 - p) / (finish - truth.progressTime)
        } else {
            return p
        }
        guard let corner = memory.pace.corners.last, abs(corner.progress - p) < 1e-9 else {
            return min(1, max(p, p + rate * age))
        }
        // A staircase that stopped is where its count is: a bar standing still shows the count.
        if offset > 0, rate <= 0 { return p }
        if offset > 0, let cap = staircaseCap(p, memory: memory) {
            // No further than where the glide is due to meet its next step while that step is
            // overdue (a stall shows as the bar standing still), never as far as ε from the count
            // (a bar pushed there would be off by ε the moment it lands).
            let glide = staircaseGlide(p, since: corner.time, rate: rate, offset: offset, at: now)
            return min(1, max(p - offset, min(cap, glide)))
        }
        // A sampled value (a sensor reporting every half minute) may have moved on since it was
        // true: from then on at the pace. A count polled between its steps (one that repeats
        // itself) is the count until its next step is due, and rises at the pace after that, from
        // its latest report: the same curve whenever it is read, so a decision a second after a
        // report does not see the count a step higher than the one at the report.
        var base = truth.progressTime
        if memory.pace.repeats, truth.resolution > 0, rate > 0 {
            base = max(base, corner.time + max(truth.resolution, memory.pace.step ?? 0) / rate)
        }
        return min(1, max(p, p + rate * (now - base)))
    }

    /// Where a coarse staircase's glide through the middle of its steps is at `now`, before its
    /// bounds: `offset` below the count `p` when its step was first seen at `since`, rising at `rate`.
    func staircaseGlide(_ p: Double, since: Double, rate: Double, offset: Double, at now: Double) -> Double {
        p + rate * (now - since) - offset
    }

    /// How far above a coarse staircase's count `p` its glide goes while the next step is due:
    /// a step less the offset, never as far as ε from the count.
    func staircaseCap(_ p: Double, memory: Memory) -> Double? {
        let offset = staircaseOffset(memory)
        guard offset > 0, let step = memory.pace.step else { return nil }
        let reach = max(settings.staircaseOffsetShare * settings.maxDisplayError, offset)
        return p + min(step - offset, reach)
    }

    /// True when a push now would glide on from the top of a coarse staircase's glide (its next
    /// step is due: the glide has reached `staircaseCap` and the count has not moved) and that
    /// glide would pass the count's tolerance before `stepWaitObservations` more observations: it
    /// could only be corrected again at once, at every observation until the step lands (a fast
    /// poll of a news server that has stopped answering: a push a second). Such a push anchors a
    /// bar that waits at the cap instead; the step landing meets it there. A glide that lasts
    /// longer is pushed as before (a server slowing down: the step is late, and lands soon).
    func waitsForStep(_ truth: TruthSample, memory: Memory, at now: Double) -> Bool {
        guard !truth.fixedFinish, let p = truth.progress, p < 1, let cap = staircaseCap(p, memory: memory),
            let corner = memory.pace.corners.last, abs(corner.progress - p) < 1e-9,
            let rate = pace(memory, at: truth.time), rate > 0, let interval = memory.observationGap
        else { return false }
        let glide = staircaseGlide(p, since: corner.time, rate: rate, offset: staircaseOffset(memory), at: now)
        guard glide >= cap - 1e-9 else { return false }
        // A step no later than the longest of the source's recent waits is its unevenness, not
        // a stop: a glide at the pace it allows meets that step, where a bar waiting at the top
        // needs a second push to move on when it lands.
        if let longest = memory.pace.longGap, truth.time - corner.time <= longest { return false }
        let room = countTolerance(memory, epsilon: settings.maxDisplayError) - (cap - p)
        return room / rate < settings.stepWaitObservations * interval
    }

    /// How far below a coarse staircase's count the glide runs when its step is new: nothing for
    /// steps of half of ε or less (one step ahead costs little), rising to half the step at steps
    /// of ε, at most `staircaseOffsetShare` × ε. Only for steps at least `staircaseMinimumGap`
    /// apart (see there).
    ///
    /// Steps of more than twice that (a slow news server's four articles landing together, 6 % of
    /// a small job a minute apart) no glide can follow within ε of the count: half a step below it
    /// when a step is new, half a step above it when the next is due — the least any glide strays —
    /// and the count is held to that (`countTolerance`). A bar corrected to ε of such a count
    /// would need a push on both sides of every step.
    func staircaseOffset(_ memory: Memory) -> Double {
        // The usual gap, and the last one: a count that has just started to move fast (a
        // printer's percent after its warm-up at 0 %) is read as a slope from its first quick step.
        guard memory.pace.repeats, let step = memory.pace.step, let gap = memory.pace.gap,
            min(gap, memory.pace.lastStepInterval ?? gap) >= settings.staircaseMinimumGap
        else { return 0 }
        let epsilon = settings.maxDisplayError
        let reach = settings.staircaseOffsetShare * epsilon
        guard reach > 0 else { return 0 }
        if step / 2 > reach { return step / 2 }
        return max(0, min(step / 2, step - epsilon / 2, reach))
    }

    /// How far the bar may be from where a push now would put it (`progress`) before it is
    /// corrected: ε, less a staircase's offset when the bar is below its glide and the steps are
    /// no coarser than ε. That glide runs up to the offset below the count once a step is new, so
    /// a bar ε below the glide is ε plus the offset below the count when the next step lands (an
    /// hour-long download counted in 2.4 % steps a minute apart was 0.0304 below its count before
    /// its push). Coarser steps are held to half a step anyway (`countTolerance`): there the
    /// tighter bound would only cost pushes (a slow server's recordings, 2–6 more each).
    func glideTolerance(_ shown: Double, below glide: Double, _ memory: Memory, epsilon: Double) -> Double {
        let offset = staircaseOffset(memory)
        guard offset > 0, shown < glide, countTolerance(memory, epsilon: epsilon) <= epsilon else { return epsilon }
        return max(settings.glideToleranceFloorShare * epsilon, epsilon - offset)
    }

    /// How far the bar may be from the count a source reports before it is corrected: ε, or for a
    /// staircase too coarse for ε (see `staircaseOffset`) the half step it swings by, with the
    /// same margin the glide keeps from ε on finer staircases.
    func countTolerance(_ memory: Memory, epsilon: Double) -> Double {
        guard staircaseOffset(memory) > 0, let step = memory.pace.step else { return epsilon }
        return max(epsilon, (step + settings.maxDisplayError) / 2)
    }

    /// The finish the policy believes at `now`: the source's own (a fixed finish unchanged),
    /// blended with the measured pace's as the pace gathers evidence, the pace's alone when the
    /// source's is beyond what the pace supports; nil while stalled, or when nothing supports a
    /// finish within `maximumCountdown`.
    public func finish(_ truth: TruthSample, memory: Memory, at now: Double) -> Double? {
        if truth.fixedFinish, let finish = truth.finish { return finish }
        if stalled(memory, at: truth.time) || truth.holds { return nil }
        let progress = self.progress(truth, memory: memory, at: now) ?? truth.progress ?? 0
        guard progress < 1 else { return nil }
        let stated = truth.finish.flatMap { now - truth.time <= settings.truthMaximumAge ? $0 : nil }
        // A source whose estimate ran long or short by the same factor all along (a slicer's) is
        // corrected by it (`ForecastScore.calibration`, 1 for any other source). A countdown run
        // out while the job still runs (whole minutes floored to 0 with half a minute to go)
        // states no finish: the pace says how long the rest takes.
        let source = stated.map { truth.progressTime + ($0 - truth.progressTime) / calibration(memory) }
            .flatMap { $0 > now ? $0 : nil }
        // Just moved again after a stall: the speed since then, and nothing else (a download
        // client's meter still averages in the minutes it stood still). Not against a finish the
        // source holds to (a timer's, an appliance's steady countdown): that knows the end.
        if !truth.fixedFinish, !steadyFinish(truth, memory: memory), let resumed = resumedRate(memory, at: truth.time),
            resumed > 0
        {
            let paced = now + (1 - progress) / resumed
            return paced - now <= settings.maximumCountdown ? max(paced, now) : nil
        }
        var paceFinish: Double?
        let paceRate = memory.pace.rate(at: truth.time, settings) ?? 0
        if paceRate > 0 {
            paceFinish = now + (1 - progress) / paceRate
        }
        var result: Double?
        switch (source, paceFinish) {
        case (let source?, let paced?):
            let stretch = stretchShare(memory, at: now)
            let sourceLeft = max(0, source - now)
            let pacedLeft = max(0, paced - now)
            if steadyFinish(truth, memory: memory) {
                // The source's countdown holds still: it knows the end, however fast the current
                // stretch runs (a washer's spin); the pace only leans the bar.
                result = stated.flatMap { $0 > now ? $0 : nil } ?? source
            } else if stretch < 1 {
                // A new stretch (a second download joining the session): the pace measured before
                // it is in the old stretch's units, the source's estimate already counts what
                // joined. The pace is believed as far as it was measured within the stretch; its
                // old part cannot call the source's estimate absurd.
                result = source + stretch * paceWeight(memory, resolution: truth.resolution) * (paced - source)
            } else if sourceLeft > settings.absurdFinishFactor * pacedLeft
                + max(truth.finishResolution, settings.paceMinimumSpan)
            {
                result = paced
            } else if settings.unseenChangeOverSource,
                sourceUnaware(memory, rate: paceRate, sourceLeft: sourceLeft, pacedLeft: pacedLeft)
            {
                // The count showed a change of speed its source has not seen yet.
                result = paced
            } else {
                result = source + paceWeight(memory, resolution: truth.resolution) * (paced - source)
            }
        case (let source?, nil):
            result = source
        case (nil, let paced?):
            // No estimate from the source: the pace's, once it is believable — over the pace's
            // shortest window, or as soon as the pace is measured when the source stated a finish
            // until moments ago (SABnzbd says none while a paused job's last articles land).
            let recent = memory.sourceFinishAt.map { truth.time - $0 <= settings.truthMaximumAge } ?? false
            result = memory.pace.span >= settings.paceWindowMinimum || recent ? paced : nil
        case (nil, nil):
            result = nil
        }
        guard let result, result - now <= settings.maximumCountdown else { return nil }
        return max(result, now)
    }

    /// True while the pace is measured from a change of speed the count showed
    /// (`PaceEstimate.rateBeforeChange`) and the source's estimate still reads nearer the speed
    /// before it than the pace `rate` does now: the source has not seen the change yet (a download
    /// client's meter averaging over minutes). `sourceLeft` and `pacedLeft`: the time each says the
    /// rest of the job takes.
    func sourceUnaware(_ memory: Memory, rate: Double, sourceLeft: Double, pacedLeft: Double) -> Bool {
        guard let before = memory.pace.rateBeforeChange, before > 0, sourceLeft > 0, pacedLeft > 0, rate > 0
        else { return false }
        let source = rate * pacedLeft / sourceLeft
        func apart(_ a: Double, _ b: Double) -> Double { max(a, b) / min(a, b) }
        return apart(source, before) < apart(source, rate)
    }

    /// The share of the measured pace's span that lies within the current stretch (since the
    /// card's text last changed within its phase): 1 when the whole pace was measured since.
    func stretchShare(_ memory: Memory, at now: Double) -> Double {
        guard let start = memory.stretchStartedAt, let first = memory.pace.corners.first?.time, first < start
        else { return 1 }
        let span = max(now, memory.pace.corners.last?.time ?? now) - first
        return span > 0 ? min(1, max(0, (now - start) / span)) : 0
    }

    /// How long a source's finish must have held still to be believed as it stands: the pace's
    /// shortest window, and `steadyFinishSteps` of the source's own resolution.
    func steadyFinishSpan(_ truth: TruthSample) -> Double {
        max(settings.paceWindowMinimum, settings.steadyFinishSteps * truth.finishResolution)
    }

    /// True when the finishes the source stated over `steadyFinishSpan` lie within its own
    /// resolution: a countdown running down, not an estimate catching up with the job.
    func steadyFinish(_ truth: TruthSample, memory: Memory) -> Bool {
        memory.finishes.steady(span: steadyFinishSpan(truth), tolerance: truth.finishResolution)
    }

    /// The factor the source's rate is corrected by (`ForecastScore.calibration`).
    public func calibration(_ memory: Memory) -> Double {
        memory.score.calibration(confidence: settings.calibrationConfidence)
    }

    /// How much the measured pace is believed against the source's estimate: by their track
    /// records (`ForecastScore`; `paceShareUnscored` before both were scored), less while the pace rests on few
    /// steps of a coarse source (one whole percent in two says little about the pace).
    func paceWeight(_ memory: Memory, resolution: Double) -> Double {
        let advanced = (memory.pace.corners.last?.progress ?? 0) - (memory.pace.corners.first?.progress ?? 0)
        guard advanced > 0 else { return 0 }
        let share = memory.score.paceShare(calibration: calibration(memory)) ?? settings.paceShareUnscored
        let precision = max(0, 1 - settings.pacePrecisionSteps * resolution / advanced)
        return min(settings.paceWeightMaximum, share) * precision
    }

    // MARK: - Anchors

    /// Seconds since the activity started (the seed), 0 before.
    func jobAge(at t: Double, _ startedAt: Double?) -> Double { max(0, t - (startedAt ?? t)) }

    /// The shortest remaining time worth a glide: `liveMinimumWindow`, shorter for short jobs (a
    /// fifth of the job so far, at least two re-anchor leads), so a one-minute download does not
    /// stand still for its last third.
    func liveWindow(at t: Double, _ startedAt: Double?) -> Double {
        min(
            settings.liveMinimumWindow,
            max(
                settings.liveWindowLeads * settings.deadlineLead,
                settings.liveWindowAgeShare * jobAge(at: t, startedAt)))
    }

    /// The `end_date` pushed for a finish estimate: padded slightly (see `finishPad`; the pad's
    /// error bound reads the budget's widened ε when the job is `rationed`) unless the finish is a
    /// fixed timestamp (`fixedFinishPad`); aimed late when no re-anchor can be afforded, and a
    /// fixed finish whenever a budget rations the job.
    public func endDate(
        forFinish finish: Double, progress: Double, fixed: Bool, frozen: Bool, rationed: Bool = false, at now: Double
    ) -> Double {
        let window = max(0, finish - now)
        if frozen || (fixed && rationed) {
            // No re-anchor can be afforded before the month resets: aim late enough that a job
            // running a little behind its finish still ends before the bar would fall back (one
            // running far behind gets its one re-anchor, `essentialDeadlines`), but no later than
            // keeps a job that ends on time within `frozenFinishShare` (half) of the budget's
            // tolerance (0.05) at its finish, where a glide aimed late lags the most: the other
            // half is the estimate's own error (a download ending a little ahead of its estimate;
            // a printer's 6.5 % long lagged 0.094 at its end behind a glide aimed at the whole
            // tolerance, 0.071 at half). A fixed finish too: an appliance's own end slips
            // (a washer adding a rinse), and its program runs at its own pace from phase to phase,
            // where one glide aimed at the finish itself strayed past 0.05 (a washer's slow wash
            // ahead of its fast spin). A fixed finish is aimed so whenever a budget rations the
            // job: the correction its share may afford is kept for a program that slips, not
            // spent on the program's own shape.
            let tolerance = settings.maxDisplayError * settings.budgetWidening * settings.frozenFinishShare
            let lagging = tolerance * window / max(0.01, 1 - progress - tolerance)
            let pad = min(settings.frozenFinishPad * window, max(0, lagging))
            return (finish + (fixed ? max(settings.fixedFinishPad, pad) : pad)).rounded()
        }
        guard !fixed else { return (finish + settings.fixedFinishPad).rounded() }
        let epsilon = settings.maxDisplayError * (rationed ? settings.budgetWidening : 1)
        let allowed = settings.finishPadErrorShare * epsilon * window / max(0.01, 1 - progress)
        return (finish + min(max(settings.finishPad, settings.finishPadShare * window), allowed)).rounded()
    }

    /// The anchor a push at `now` gives the phone.
    public func plan(
        _ truth: TruthSample?, memory: Memory, paused: Bool, startedAt: Double?, frozen: Bool,
        rationed: Bool = false, fallbackProgress: Double?, current: DisplayAnchor? = nil, at now: Double
    ) -> Plan {
        let sample = truth ?? TruthSample(progress: 0, time: now, finish: nil, fixedFinish: false)
        let progress = self.progress(sample, memory: memory, at: now) ?? fallbackProgress ?? 0
        var plan = Plan(progress: min(1, max(0, progress)), endDate: nil, live: false, finish: nil, time: now)
        // A bar standing still shows the count itself, not a glide's path through its steps.
        let standing = max(plan.progress, min(1, max(0, sample.progress ?? 0)))
        // A push after `overdueGapFactor` of the job's usual gaps without an advance anchors a bar
        // that stands still: the observations no longer support a glide, and a stall would
        // otherwise cost a push for every glide the count does not follow, then one to stop.
        let overdue = memory.pace.overdue(at: sample.time, gaps: settings.overdueGapFactor)
        let waiting = waitsForStep(sample, memory: memory, at: now)
        let stopped = paused || sample.holds || (overdue && !sample.fixedFinish)
        guard !stopped, !waiting, let finish = self.finish(sample, memory: memory, at: now) else {
            plan.progress = standing
            // A job that stopped (paused, stalled, its next advance overdue, or at a stage its
            // source says does not move it) is where its count is: a bar left above it by a glide
            // through a staircase's steps comes back to it.
            if let count = sample.progress, stopped || stalled(memory, at: sample.time) {
                plan.progress = min(1, max(0, count))
            }
            return plan
        }
        plan.finish = finish
        let remaining = finish - now
        switch model {
        case .interpolating:
            // A short tail still glides when a bar standing still would fall more than ε behind
            // (more than ε left to go): its `end_date` then leaves room for the end to be seen, a
            // poll after the finish, and a job on track to that (`onTrack`) is not re-anchored
            // before it.
            let window = liveWindow(at: now, startedAt)
            let tail =
                !sample.fixedFinish && remaining > 0 && 1 - plan.progress > settings.maxDisplayError
            if remaining >= window || tail, plan.progress < 1 {
                var date = endDate(
                    forFinish: finish, progress: plan.progress, fixed: sample.fixedFinish, frozen: frozen,
                    rationed: rationed, at: now)
                var padded = false
                if remaining < window {
                    // The end is seen one of the source's polls after the progress reaches the
                    // finish; no further (`onTrack` keeps the re-anchor before `end_date` away
                    // from a job ending by then): every second aimed past that is lag behind the
                    // truth, and a fast download's last 16 s after a stall were corrected at nearly
                    // every poll when the glide was aimed `deadlineLead` later still.
                    var arrival = endSeen(finish, memory: memory).rounded(.up)
                    if rationed {
                        // Under a monthly budget the tail runs at least `liveWindowLeads` re-anchor
                        // leads: a shorter one falls due for its own deadline re-anchor at once (a
                        // download's second push a second after the first, its end moments later),
                        // and the lag the longer glide costs is within ε.
                        arrival = max(arrival, (now + settings.liveWindowLeads * settings.deadlineLead).rounded(.up))
                    }
                    padded = arrival > date
                    date = max(date, arrival)
                }
                date = keptEndDate(
                    date, progress: plan.progress, current: current, truth: sample, memory: memory, at: now)
                plan.endDate = date
                plan.live = true
                if padded, date > now, finish > now {
                    // A glide aimed past the finish lags the truth, most at the finish: it starts
                    // as far ahead of the truth as it will be behind it there, the least error
                    // any glide to that `end_date` can have over the tail.
                    // No further ahead than a lean may go (`driftAnchorShare`): a job that stops
                    // short of its finish then shows no more than that above it.
                    let share = (finish - now) / (date - now)
                    let balanced = min(1, (plan.progress + 1 - share) / (2 - share))
                    plan.progress = max(plan.progress, min(balanced, plan.progress + leanReach))
                } else {
                    plan.progress = leaning(plan.progress, toward: date, truth: sample, memory: memory, at: now)
                }
            }
        case .static:
            plan.endDate = finish.rounded()
            plan.remaining = max(0, remaining).rounded()
        }
        if !plan.live { plan.progress = standing }
        // Never back while the bar is not ahead of the count: a glide through the middle of a
        // coarse staircase's steps, or a lean toward a slower truth, starts where the bar is
        // when that is at or below the count, not below it (the percentage going down while the
        // job did not reads as the job losing ground). A bar ahead of the count comes back to it.
        if let current, let count = sample.progress, truth != nil {
            let shown = current.shown(at: now, model: model)
            let tolerance = settings.backwardsTolerance
            if shown <= count + tolerance {
                plan.progress = max(plan.progress, min(1, shown, count))
            } else {
                // …no further below it than ε, or than it was above: a coarse staircase's glide
                // (half a step below a new step) whose step was learned from a start's burst
                // (10.8 % between the first two answers, then 1–3 % an answer) took a bar 0.0105
                // above the count to 0.043 below it.
                plan.progress = max(plan.progress, count - max(settings.maxDisplayError, shown - count))
            }
        }
        return plan
    }

    /// A push for another reason (the bar drifting, a new card text) would carry the best
    /// estimate then; when that moves the countdown back the way it came within
    /// `etaReversalWindow`, by no more than the ETA tolerance, the countdown stays where it is
    /// (the bar's drift is then what `leaning` absorbs): a countdown that jumps later and back
    /// earlier minutes apart is read as noise, and nothing a person acts on changed.
    func keptEndDate(
        _ date: Double, progress: Double, current: DisplayAnchor?, truth: TruthSample, memory: Memory,
        at now: Double
    ) -> Double {
        guard !truth.fixedFinish, let current, current.live, let pushed = current.endDate,
            pushed > now + settings.deadlineLead, let movedAt = memory.lastETAMoveAt,
            let movedLater = memory.lastETAMoveLater, now - movedAt < settings.etaReversalWindow,
            (date > pushed) != movedLater,
            abs(date - pushed) <= etaTolerance(truth, memory: memory, remaining: max(0, pushed - now))
        else { return date }
        // Only as far as the bar can afford it: the kept `end_date` sets the new bar's slope, and
        // one that leaves it more than half of ε from the truth at the finish (a washer's fast
        // spin read against an end a minute late) would only be corrected again. It moves no
        // further back than that.
        let affordable =
            settings.keptEndDateErrorShare * settings.maxDisplayError * max(1, pushed - now) / max(0.01, 1 - progress)
        let move = date - pushed
        guard abs(move) > affordable else { return pushed }
        return (pushed + (move > 0 ? move - affordable : move + affordable)).rounded()
    }

    /// How far from the truth a push may anchor the bar on purpose (`driftAnchorShare` × ε).
    var leanReach: Double { settings.driftAnchorShare * settings.maxDisplayError }

    /// A bar's slope is set by its `end_date`; when the measured pace differs, the bar drifts from
    /// the truth in a direction known now. Anchored up to `driftAnchorShare` × ε to the side the
    /// truth is heading (never further than that from the latest observation), the bar crosses the
    /// truth and reaches ε on the other side: nearly twice as long before the next correction. A
    /// bar that stays within ε of the truth until its `end_date` anyway is anchored on the truth.
    func leaning(_ progress: Double, toward endDate: Double, truth: TruthSample, memory: Memory, at now: Double)
        -> Double
    {
        // A new card text often starts a stretch at its own pace (a washer's rinse after its
        // wash): the pace before it says nothing about which side the truth heads until the new
        // stretch has shown a few of its own steps.
        let stretch = now - (memory.cardChangedAt ?? -.infinity)
        guard settings.driftAnchorShare > 0, endDate > now, let observed = truth.progress,
            stretch
                >= max(
                    settings.paceWindowMinimum,
                    (settings.leanStretchGaps - settings.gapCountJitter) * (memory.pace.gap ?? 0)),
            !stalled(memory, at: truth.time), let last = memory.pace.corners.last,
            // The speed the job moved at, as of its last advance: a step that is merely late
            // (read as "the pace if it came now") would lean the bar below a count about to move
            // on, and the step landing then costs a push (a repair's download, waiting a few polls).
            let rate = memory.pace.rate(at: last.time, settings), rate > 0
        else { return progress }
        let slope = (1 - progress) / (endDate - now)
        let drift = (rate - slope) * (endDate - now)
        guard abs(drift) > settings.maxDisplayError else { return progress }
        let reach = leanReach
        let lean = min(reach, abs(drift) / 2) * (drift > 0 ? 1 : -1)
        // A stepwise value is the floor of the truth: the truth is up to a step above it, and no
        // further than the pace has gone since the value last read lower (a whole percent seen
        // one poll after its step).
        let atCorner = abs(last.progress - observed) < 1e-9
        var above = truth.resolution
        if above > 0, atCorner, let below = memory.pace.belowAt {
            above = min(above, rate * max(0, now - below))
        }
        let lowest = min(progress, observed + above - reach)
        // A count that stands between its steps (articles landing) is the truth until its next
        // step: a bar rising at the pace is that step above it before the step lands. Once that
        // step is overdue the count is all there is: no lean above it (a bar leaned above a late
        // article's count was past the tolerance polls before it landed, and pushed again alike).
        var ahead = 0.0
        if atCorner, memory.pace.repeats, truth.resolution <= 0, let step = memory.pace.step {
            let due = step - rate * (now - last.time)
            ahead = due >= 0 ? due : reach
        }
        let highest = min(1, max(progress, observed + reach - ahead))
        return min(highest, max(lowest, max(0, progress + lean)))
    }

    /// The anchor a correction pushed now would give the running job's bar, for the rules that
    /// push only a correction that does better than the bar on the phone (`anchor`).
    func replanned(_ s: Situation, anchor: DisplayAnchor, frozen: Bool, memory: Memory) -> DisplayAnchor {
        plan(
            s.truth, memory: memory, paused: false, startedAt: s.startedAt, frozen: frozen, rationed: s.rationed,
            fallbackProgress: anchor.progress, current: anchor, at: s.now
        )
        .anchor
    }

    /// True when a push now would put the bar within `tolerance` of `target` at the observation's
    /// time, or nearer it than `error` by half of ε: a push the same check would judge as far off
    /// again is none.
    func replanCloser(
        _ s: Situation, anchor: DisplayAnchor, to target: Double, than error: Double, tolerance: Double, frozen: Bool,
        memory: Memory
    ) -> Bool {
        let after = abs(
            replanned(s, anchor: anchor, frozen: frozen, memory: memory).shown(at: s.truth.time, model: model) - target)
        return after <= tolerance || after < error - settings.correctionGainShare * settings.maxDisplayError
    }

    /// A floored count read several times per step (a printer's whole percent polled every 10 s)
    /// reads the same until its step lands, and the observations judge the bar against what they
    /// read: a bar that will have risen past `tolerance` above the count by the next reading is
    /// corrected now, not a reading late. A count read about once per step (a washer's sensor
    /// sampled every half minute) has likely moved on by its next reading
    /// (`flatCountReadings`), and a push that would be past it again is none.
    func outrunsFlatCount(
        _ s: Situation, anchor: DisplayAnchor, tolerance: Double, frozen: Bool, memory: Memory
    ) -> Bool {
        let truth = s.truth
        guard memory.pace.repeats, truth.resolution > 0, let p = truth.progress, let gap = memory.observationGap,
            gap > 0, let corner = memory.pace.corners.last, abs(corner.progress - p) < 1e-9,
            let rate = memory.pace.rate(at: corner.time, settings),
            rate * settings.flatCountReadings * gap < max(truth.resolution, memory.pace.step ?? 0)
        else { return false }
        let next = truth.time + gap
        guard anchor.shown(at: next, model: model) - p > tolerance else { return false }
        return replanned(s, anchor: anchor, frozen: frozen, memory: memory).shown(at: next, model: model) - p
            <= tolerance
    }

    /// When a gliding bar must be re-anchored because `end_date` is about to pass with the job
    /// running (a fixed finish gets `fixedFinishGrace` past it).
    public func anchorDeadline(_ anchor: DisplayAnchor?, truth: TruthSample?, phase: String, suppressed: Double?)
        -> Double?
    {
        guard phase == "active", let anchor, anchor.isGliding(at: anchor.time, model: model),
            let endDate = anchor.endDate, suppressed != endDate
        else { return nil }
        if let truth, truth.fixedFinish, let finish = truth.finish,
            (finish + settings.fixedFinishPad).rounded() <= endDate
        {
            return endDate + settings.fixedFinishGrace
        }
        return endDate - settings.deadlineLead
    }

    /// True when the job's end is estimated to be seen (a poll after its finish) within the last
    /// `deadlineLead` before the pushed `end_date` (a tail aimed at its finish), or when the pushed
    /// progress the bar falls back to once `end_date` passes is within ε of the finish and of the
    /// latest count (the truth lies between them until the end): the deadline re-anchor would be
    /// spent on a bar that stays true without it.
    ///
    /// An end estimated earlier than that keeps the re-anchor where it is: a job that ends as
    /// estimated never reaches it, and one that does not (its source fell silent after saying it
    /// was nearly done, or its last reading came long before the end and the end came later) gets
    /// it instead of a bar that falls back to its pushed progress when `end_date` passes. A count
    /// at its whole finished when it read so: nothing is left to estimate.
    public func onTrack(
        _ anchor: DisplayAnchor?, truth: TruthSample, memory: Memory, budget: BudgetPressure = .none, at now: Double
    ) -> Bool {
        guard let anchor, let endDate = anchor.endDate, !truth.fixedFinish else { return false }
        let epsilon = settings.maxDisplayError * budget.widening
        if let count = truth.progress, 1 - anchor.progress <= epsilon, abs(anchor.progress - count) <= epsilon {
            return true
        }
        // A count at its whole (a print's file read to its end before the printer says it is
        // done) finished when it read so: its end is seen a poll or so later.
        let complete = truth.progress.map { $0 >= 1 } ?? false
        guard let finish = complete ? truth.progressTime : finish(truth, memory: memory, at: now) else {
            return false
        }
        let seen = endSeen(finish, memory: memory)
        return seen <= endDate && seen > endDate - settings.deadlineLead
    }

    /// When a job finishing at `finish` is seen to end: with the source's next observation, up to
    /// the longest of its recent gaps later (`endSeenGaps`); `deadlineLead` later before the
    /// source's interval is known.
    func endSeen(_ finish: Double, memory: Memory) -> Double {
        guard let gap = memory.observationGap else { return finish + settings.deadlineLead }
        return finish + max(gap, memory.recentGaps.max() ?? 0)
    }

    /// When a heartbeat is due before the service's `stale_ttl` runs out.
    ///
    /// None when the activity is renewed (`renewal`: ended and started afresh with new TTLs before
    /// the display's lifecycle limit) before the service would call it stale, with the room the
    /// renewal itself keeps before that limit (`renewalLastMoment`): a heartbeat minutes before a
    /// renewal is a request spent for nothing.
    public func heartbeatDue(lastPushAt: Double?, staleTTL: Double, renewal: Double? = nil) -> Double? {
        guard let lastPushAt, staleTTL > 0 else { return nil }
        if let renewal, renewal <= lastPushAt + staleTTL - settings.renewalLastMoment { return nil }
        let margin = max(settings.heartbeatMarginMinimum, staleTTL * settings.heartbeatMarginShare)
        return lastPushAt + (staleTTL - min(margin, settings.heartbeatMarginMaximumShare * staleTTL))
    }

    /// The `stale_ttl` a push anchored to `finish` needs.
    public func requiredStaleTTL(finish: Double?, at now: Double) -> Double {
        let value =
            finish.map { settings.staleTTLFactor * max(0, $0 - now) + settings.staleTTLPad } ?? settings.staleTTLUnknown
        return min(settings.staleTTLMaximum, max(settings.staleTTLMinimum, value))
    }

    // MARK: - Deciding

    /// Whether the observation that produced `situation` is worth a push, and why.
    public func decide(_ s: Situation, budget: BudgetPressure, frozen: Bool, memory: inout Memory) -> Decision? {
        if s.needsResync { return Decision(reason: .resync, firstGlide: false) }
        let truth = s.truth
        let t = truth.time
        // The first glide of a job belongs to its start: a job seeded before its source knew a
        // finish time would otherwise stand at its first progress for its whole life when the
        // budget leaves room for nothing but starts and ends.
        if !s.hasGlided, model == .interpolating, s.phase == "active",
            truth.progress.map({ $0 < 1 }) ?? true,
            let finish = self.finish(truth, memory: memory, at: t),
            finish - t >= max(settings.firstGlideMinimum, settings.glideWindows * liveWindow(at: t, s.startedAt))
        {
            if budget.exhausted { return Decision(reason: .start, firstGlide: true) }
            let changed = s.phase != s.pushedPhase || s.cardChanged
            return Decision(reason: changed ? .structural : .etaMoved, firstGlide: true)
        }
        if s.phase != s.pushedPhase {
            // A pause and a resume always show, even when only the reserve is left (they count
            // with the starts and ends it keeps room for): a paused job's bar would otherwise
            // glide on to its `end_date` and fall back to the progress it was pushed with.
            // Up to `essentialPauses` of them per job: a printer or a queue flapping between
            // paused and running must not spend the month past its budget.
            if s.phase == "paused" || s.pushedPhase == "paused",
                memory.essentialPhaseChanges < 2 * settings.essentialPauses
            {
                memory.essentialPhaseChanges += 1
                return Decision(reason: .structural, firstGlide: false, essential: true)
            }
            return budget.exhausted ? nil : counted(Decision(reason: .structural, firstGlide: false), memory: &memory)
        }
        // A job that used its share of the month (`jobAllowance`) gets no more card texts or
        // corrections; a pause, a resume and a heartbeat still go out.
        let spent = budget.exhausted || budget.jobAllowance.map { memory.discretionary >= $0 } ?? false
        // A new card text within the same phase (a washer going from "Washing" to "Rinsing"):
        // under budget pressure, or when it would leave a job with a bar or a countdown fewer
        // than `labelKeptCorrections` corrections in its share, it waits for a push that happens
        // anyway — a correction of the bar below carries it.
        let correctable = s.truth.progress != nil || s.truth.finish != nil
        let keeps =
            !correctable
            || budget.jobAllowance.map { memory.discretionary + 1 + settings.labelKeptCorrections <= $0 } ?? true
        if s.cardChanged, !spent, keeps, budget.projection < settings.labelDeferralWidening {
            return counted(Decision(reason: .structural, firstGlide: false), memory: &memory)
        }
        if budget.exhausted { return nil }
        guard let anchor = s.anchor else { return Decision(reason: .resync, firstGlide: false) }
        if let due = s.heartbeatDue, s.now >= due { return Decision(reason: .heartbeat, firstGlide: false) }
        if spent { return nil }
        guard let reason = progressReason(s, anchor: anchor, budget: budget, frozen: frozen, memory: &memory) else {
            return nil
        }
        if reason == .displayError { noteCorrection(s, anchor: anchor, memory: &memory) }
        var decision = Decision(reason: reason, firstGlide: false)
        decision.mayWait =
            reason == .displayError && correctionMayWait(s, anchor: anchor, budget: budget, memory: memory)
        return counted(decision, memory: &memory)
    }

    /// True when a correction is made ahead of the bar's drift: the bar is within its tolerance of
    /// the count at the count's time, of the progress now, and of the progress one
    /// `coalesceWindow` on (at the pace). Such a push may wait that window (`Decision.mayWait`):
    /// a washer's progress sensor and its state sensor report a phase change a moment apart, and
    /// a correction of the bar made at the first went out as a request of its own, the card text
    /// a second later as another.
    func correctionMayWait(_ s: Situation, anchor: DisplayAnchor, budget: BudgetPressure, memory: Memory) -> Bool {
        let truth = s.truth
        guard model == .interpolating, settings.coalesceWindow > 0, s.phase == "active", let p = truth.progress
        else { return false }
        let epsilon = settings.maxDisplayError * budget.widening
        let tolerance = countTolerance(memory, epsilon: epsilon)
        guard abs(anchor.shown(at: truth.progressTime, model: model) - p) <= tolerance else { return false }
        for time in [s.now, s.now + settings.coalesceWindow] {
            guard let expected = progress(truth, memory: memory, at: time) else { return false }
            let shown = anchor.shown(at: time, model: model)
            if abs(shown - expected) > glideTolerance(shown, below: expected, memory, epsilon: epsilon) { return false }
        }
        return true
    }

    /// The bar is corrected (rule 3) while the job runs. Its slope came from the pace; a
    /// correction on the same side of the count as one shortly before (the change test's
    /// stretch) says the slope is off again, and once the count has left the pace of the first
    /// by more than `correctionChangeSteps` of its steps, moving all the while at a speed
    /// `paceChangeFactor` off that pace, the job changed speed: the pace restarts at the first
    /// correction, before this push is planned. The change test alone passes only once most of
    /// its stretch lies at the new speed, and every correction until then would keep the old
    /// pace's `end_date` (a download whose server halved its speed: four pushes in 8 s). A count
    /// that stood still since is a stall, not a change of speed; chance, within a step of the
    /// line, is neither.
    func noteCorrection(_ s: Situation, anchor: DisplayAnchor, memory: inout Memory) {
        let truth = s.truth
        guard s.phase == "active", !truth.fixedFinish, let p = truth.progress, p < 1,
            !stalled(memory, at: truth.time)
        else {
            memory.correction = nil
            return
        }
        let time = truth.progressTime
        let ahead = anchor.shown(at: time, model: model) > p
        let stretch = max(settings.paceChangeSpan, settings.paceChangeGaps * (memory.pace.gap ?? 0))
        guard let first = memory.correction, first.ahead == ahead, time > first.time, time - first.time <= stretch
        else {
            memory.correction = memory.pace.rate(at: time, settings).map {
                Correction(time: time, progress: p, rate: $0, ahead: ahead)
            }
            return
        }
        // A bar ahead of the count: the count runs slower than the line.
        let departed = stepsOff(
            p, line: (first.time, first.progress), rate: first.rate, faster: !ahead, truth: truth, memory: memory)
        guard departed > settings.correctionChangeSteps, p > first.progress,
            let last = memory.pace.corners.last, last.time > first.time,
            let start = memory.pace.corners.last(where: { $0.time <= first.time })
        else { return }
        // A change of speed as the change test knows one: a factor of `paceChangeFactor` (a
        // print's sections swing its speed by a third, and the printer's estimate counts them).
        let since = (last.progress - start.progress) / (last.time - start.time)
        guard since * settings.paceChangeFactor < first.rate || since > settings.paceChangeFactor * first.rate
        else { return }
        memory.pace.restart(at: first.time, changedFrom: first.rate)
        memory.correction = nil
    }

    /// `decision`, counted against the job's share of the month's budget.
    private func counted(_ decision: Decision, memory: inout Memory) -> Decision {
        memory.discretionary += 1
        return decision
    }

    private func progressReason(
        _ s: Situation, anchor: DisplayAnchor, budget: BudgetPressure, frozen: Bool, memory: inout Memory
    ) -> PushReason? {
        let truth = s.truth
        let t = truth.time
        let epsilon = (model == .static ? settings.staticMaxDisplayError : settings.maxDisplayError) * budget.widening
        let sinceLastPush = s.now - (s.lastPushAt ?? 0)
        let staticSpacingOK = model == .interpolating || sinceLastPush >= settings.staticMinimumInterval

        if s.phase == "paused" {
            if let p = truth.progress, abs(anchor.progress - p) > epsilon, staticSpacingOK { return .displayError }
            return nil
        }

        // Countdown-capable static display of a fixed finish: the device ticks the clock itself.
        let countdownOnly = model == .static && truth.fixedFinish && !s.carriesProgress

        if let p = truth.progress, !countdownOnly {
            // The bar against the truth at the time the truth was true.
            let tp = truth.progressTime
            let errorThen = abs(anchor.shown(at: tp, model: model) - p)
            if errorThen > countTolerance(memory, epsilon: epsilon), staticSpacingOK { return .displayError }
            if staticSpacingOK,
                outrunsFlatCount(
                    s, anchor: anchor, tolerance: countTolerance(memory, epsilon: epsilon), frozen: frozen,
                    memory: memory)
            {
                return .displayError
            }
            // A count that moves at every reading, read every few seconds, while the bar is judged
            // every second: at the speed of its last reading the count may be past the bar's
            // tolerance before the next reading shows it, so the bar is corrected at the reading
            // before that (`readingLookaheadGaps`), not the one after. Not past the pushed
            // `end_date` (the deadline rule owns what happens there), and not for a count that
            // repeats or has a resolution (a staircase between its steps, a floored percent): it
            // moves by steps, not at the speed between two readings.
            if settings.readingLookaheadGaps > 0, p < 1, !memory.pace.repeats, truth.resolution <= 0,
                let gap = memory.observationGap, gap > 0, let speed = memory.pace.lastStepRate,
                let last = memory.pace.corners.last, abs(last.time - tp) < 1e-9, abs(last.progress - p) < 1e-9
            {
                let next = tp + settings.readingLookaheadGaps * gap
                let expected = min(1, p + speed * (next - tp))
                let predicted = abs(anchor.shown(at: next, model: model) - expected)
                let tolerance = countTolerance(memory, epsilon: epsilon)
                if next < anchor.endDate ?? .infinity, predicted > max(tolerance, errorThen), staticSpacingOK,
                    replanCloser(
                        s, anchor: anchor, to: p, than: predicted, tolerance: tolerance, frozen: frozen, memory: memory)
                {
                    return .displayError
                }
            }
            if let now = progress(truth, memory: memory, at: t) {
                let shownNow = anchor.shown(at: t, model: model)
                let errorNow = abs(shownNow - now)
                let nowTolerance = glideTolerance(shownNow, below: now, memory, epsilon: epsilon)
                // Only a push that moves the bar toward that estimate: a coarse staircase read from
                // one large first step has its glide half a step below the count, and a push puts
                // the bar on the count (never back below it), judged as far off at the next poll.
                if errorNow > nowTolerance, staticSpacingOK,
                    replanCloser(
                        s, anchor: anchor, to: now, than: errorNow, tolerance: nowTolerance, frozen: frozen,
                        memory: memory)
                {
                    return .displayError
                }
                // A prediction needs news: an advance since the last push (a bar re-anchored on
                // the same observations would be predicted off again, and pushed again).
                let news = (memory.pace.corners.last?.time ?? -.infinity) > (s.lastPushAt ?? -.infinity)
                if news, max(errorThen, errorNow) > settings.lookaheadErrorShare * epsilon, lookaheadBelieved(memory),
                    let rate = lookaheadRate(memory, at: t)
                {
                    // Not past the pushed `end_date`: the deadline rule owns what happens there.
                    // As far as the next observations can still correct it in time: two of the
                    // job's usual gaps between advances.
                    let horizon = max(settings.errorLookaheadGaps * (memory.pace.gap ?? 0), settings.coalesceWindow + 1)
                    let ahead = min(t + horizon, anchor.endDate.map { max(t, $0 - 1) } ?? .infinity)
                    let expected = min(1, now + rate * (ahead - t))
                    let shownAhead = anchor.shown(at: ahead, model: model)
                    let predicted = abs(shownAhead - expected)
                    if predicted > glideTolerance(shownAhead, below: expected, memory, epsilon: epsilon),
                        staticSpacingOK
                    {
                        // Only a push whose bar does better by then: an anchor no closer to that
                        // projection (its slope set by the finish, not by this pace) would be
                        // pushed again at every observation.
                        let replan = replanned(s, anchor: anchor, frozen: frozen, memory: memory)
                        let after = abs(replan.shown(at: ahead, model: model) - expected)
                        if after < predicted - settings.correctionGainShare * epsilon || after <= epsilon {
                            return .displayError
                        }
                    }
                }
            }
        }

        guard model == .interpolating else {
            return staticETAReason(
                s, countdownOnly: countdownOnly, budget: budget, spacingOK: staticSpacingOK, memory: &memory)
        }

        let gliding = anchor.isGliding(at: t, model: model)
        if let deadline = s.anchorDeadline, s.now >= deadline { return .deadline }
        guard truth.progress.map({ $0 < 1 }) ?? true else { return nil }
        let finish = self.finish(truth, memory: memory, at: t)
        if gliding, let endDate = anchor.endDate {
            guard let finish else {
                // Stalled, holding, or no estimate left worth showing: the bar stops instead of
                // gliding on.
                memory.etaDeviationSince = nil
                return stalled(memory, at: t) || truth.holds ? .displayError : nil
            }
            let remaining = max(0, finish - t)
            var tolerance =
                etaTolerance(truth, memory: memory, remaining: remaining, age: jobAge(at: t, s.startedAt))
                * budget.widening
            let progressNow = progress(truth, memory: memory, at: t) ?? anchor.progress
            let expected = self.endDate(
                forFinish: finish, progress: progressNow, fixed: truth.fixedFinish, frozen: frozen,
                rationed: budget.limited, at: t)
            let later = expected > endDate
            if let movedAt = memory.lastETAMoveAt, let movedLater = memory.lastETAMoveLater, movedLater != later,
                t - movedAt < settings.etaReversalWindow
            {
                tolerance *= settings.etaReversalFactor
            }
            // The bar itself is kept by rule 3 when it drifts (and that push takes the best
            // estimate then); this rule keeps the countdown honest, so only a move a person
            // would notice counts.
            if abs(expected - endDate) > tolerance, remaining >= settings.etaQuietTail,
                trendDisagrees(
                    with: endDate, tolerance: tolerance, truth: truth, anchor: anchor, frozen: frozen,
                    rationed: budget.limited, memory: memory)
            {
                if persisted(since: t, memory: &memory) { return .etaMoved }
            } else {
                memory.etaDeviationSince = nil
            }
        } else if !gliding, let finish, !stalled(memory, at: t),
            finish - t
                >= max(
                    settings.glideWindows * liveWindow(at: t, s.startedAt),
                    min(settings.firstGlideMinimum, settings.standingGlideAgeShare * jobAge(at: t, s.startedAt))),
            plan(
                truth, memory: memory, paused: false, startedAt: s.startedAt, frozen: frozen, rationed: s.rationed,
                fallbackProgress: nil, at: s.now
            )
            .live, resumeSettled(memory, at: t)
        {
            // An estimate appeared (or the job moves again): start gliding instead of standing still.
            return .etaMoved
        }
        return nil
    }

    /// A job that moves again after a stall glides again once the new stretch has shown its pace
    /// over max(`paceWindowMinimum`, `leanStretchGaps` of its usual gaps): at its first advance
    /// the finish is still the estimate of before the stall (a download whose server came back
    /// faster: SABnzbd's speed meter and the pace both still read the slow minutes), and the glide
    /// it anchors is corrected seconds later. The bar standing still meanwhile is held by the
    /// display-error rule like any other.
    func resumeSettled(_ memory: Memory, at t: Double) -> Bool {
        guard let moved = memory.movedAgainAt else { return true }
        return t - moved >= max(settings.paceWindowMinimum, settings.leanStretchGaps * (memory.pace.gap ?? 0))
    }

    /// The speed since the job moved again after a stall, while the new stretch has not settled
    /// (`resumeSettled`) but spans `paceMinimumSpan` and two advances: a push the standing bar
    /// forces before then glides at the speed the job came back at, not the one before the stall.
    func resumedRate(_ memory: Memory, at t: Double) -> Double? {
        guard let moved = memory.movedAgainAt, !resumeSettled(memory, at: t) else { return nil }
        let since = memory.pace.corners.filter { $0.time >= moved - 1e-9 }
        guard since.count > settings.resumeRateAdvances, let first = since.first, let last = since.last,
            last.time - first.time >= settings.paceMinimumSpan
        else { return nil }
        return (last.progress - first.progress) / (last.time - first.time)
    }

    /// Whether the predictive display-error check may project the pace at all: a count that moves
    /// at every poll at once; a staircase (a count polled between its steps) once its pace spans
    /// `lookaheadStaircaseSpan`, or sooner once its steps' unevenness is known and the pace spans
    /// the window that averages it out (`unevenWindow`: nothing for steps that come evenly). A
    /// slow server's first articles land in bursts over its connections: projected from the
    /// first few, the pace sent the bar minutes ahead of the job, and the next burst back the
    /// other way (`uneven-articles`: a correction a few seconds after the last, its countdown
    /// reversing). Until then a bar is corrected by what the count shows, not by a projection.
    func lookaheadBelieved(_ memory: Memory) -> Bool {
        guard memory.pace.repeats, memory.pace.span < settings.lookaheadStaircaseSpan else { return true }
        return memory.pace.irregularity(settings) != nil && memory.pace.span >= unevenWindow(memory)
    }

    /// The pace the predictive display-error check projects the truth at: the measured pace (or,
    /// before one is believed, the last step's when that step spans `paceMinimumSpan`); none once
    /// the next advance is overdue (`overdueGapFactor`); and a coarse staircase between its steps
    /// at its steps' own rate.
    /// Its glide runs through the middle of the steps by design, ahead of the count when the next
    /// step is due; read as a slowdown, that lead would cost a push before every step and another
    /// when it lands.
    func lookaheadRate(_ memory: Memory, at t: Double) -> Double? {
        // Overdue, a push stands still (`plan`): projecting the old pace would push it again.
        if memory.pace.overdue(at: t, gaps: settings.overdueGapFactor) { return 0 }
        if staircaseOffset(memory) > 0, let last = memory.pace.corners.last,
            let rate = memory.pace.rate(at: last.time, settings)
        {
            return rate
        }
        if let rate = pace(memory, at: t) { return rate }
        // One step is a rate only when it spans what a pace is believed over: a download's first
        // articles half a second apart say nothing yet about its speed (SABnzbd's connections
        // are still opening), a sensor's reading half a minute after the one before does.
        guard let interval = memory.pace.lastStepInterval, interval >= settings.paceMinimumSpan else { return nil }
        return memory.pace.lastStepRate
    }

    /// How far the pushed `end_date` may be from the robust finish before the countdown is worth
    /// correcting: `etaToleranceMinimum` or `etaToleranceFraction` of the time left, and never
    /// less than the source can resolve — twice its own resolution (whole minutes), and one step
    /// of a stepwise progress at the pace (a whole percent of a ten-hour print is six minutes the
    /// progress cannot resolve).
    func etaTolerance(_ truth: TruthSample, memory: Memory, remaining: Double, age: Double = 0) -> Double {
        var stepDuration = 0.0
        if truth.resolution > 0, let rate = pace(memory, at: truth.time), rate > 0 {
            stepDuration = truth.resolution / rate
        }
        return max(
            settings.etaToleranceMinimum, settings.etaToleranceFraction * remaining,
            settings.etaJobFraction * (age + remaining), settings.etaResolutionSteps * truth.finishResolution,
            stepDuration)
    }

    /// Static displays: the remaining-time label does not tick on the device.
    private func staticETAReason(
        _ s: Situation, countdownOnly: Bool, budget: BudgetPressure, spacingOK: Bool, memory: inout Memory
    ) -> PushReason? {
        let truth = s.truth
        let t = truth.time
        guard !countdownOnly, let finish = self.finish(truth, memory: memory, at: t) else { return nil }
        guard let pushed = s.pushedRemaining else { return spacingOK ? .etaMoved : nil }
        let trueRemaining = max(0, finish - t)
        let pushedMinutes = (pushed / 60).rounded(.up)
        let trueMinutes = (trueRemaining / 60).rounded(.up)
        let tolerance =
            max(settings.staticETAToleranceMinimum, settings.staticETAToleranceFraction * trueRemaining)
            * budget.widening
        if pushedMinutes != trueMinutes, abs(pushed - trueRemaining) > tolerance {
            if persisted(since: t, memory: &memory), spacingOK { return .etaMoved }
        } else {
            memory.etaDeviationSince = nil
        }
        return nil
    }

    /// Whether the progress the job actually made since the last push also says the pushed
    /// `end_date` is off. A source's own estimate wanders with its speed readings; when the bar is
    /// moving at the pace the pushed `end_date` implies, the countdown on the phone is right and a
    /// push for the wandering estimate would be spent for nothing. A fixed finish (a timer) is
    /// exact, so it needs no second opinion, and neither does a source without a progress value.
    private func trendDisagrees(
        with endDate: Double, tolerance: Double, truth: TruthSample, anchor: DisplayAnchor, frozen: Bool,
        rationed: Bool, memory: Memory
    ) -> Bool {
        guard !truth.fixedFinish, let progress = truth.progress else { return true }
        let elapsed = truth.progressTime - anchor.time
        let advanced = progress - anchor.progress
        // Too soon after the push to judge the progress since (or none since), the pace measured
        // so far is the second opinion: a slow server's speed meter reading a burst of articles
        // states half the time left for a minute, and the count's pace does not follow it.
        let trendFinish: Double
        if elapsed >= settings.etaTrendMinimum, advanced > 0 {
            trendFinish = truth.progressTime + (1 - progress) * elapsed / advanced
        } else if let rate = memory.pace.rate(at: truth.progressTime, settings), rate > 0 {
            trendFinish = truth.progressTime + (1 - progress) / rate
        } else {
            return true
        }
        return abs(
            self.endDate(
                forFinish: trendFinish, progress: progress, fixed: false, frozen: frozen, rationed: rationed,
                at: truth.time)
                - endDate) > tolerance
    }

    /// True once an ETA deviation first seen at or before `t` has lasted `etaPersistence`: a
    /// source's estimate jitters, and a push for a blip would be spent for nothing.
    private func persisted(since t: Double, memory: inout Memory) -> Bool {
        let since = memory.etaDeviationSince ?? t
        memory.etaDeviationSince = since
        return t - since >= settings.etaPersistence
    }

    /// A push changed the card's text or phase.
    ///
    /// When only its text changed (`samePhase`) and the source's estimate jumped with it by more
    /// than the ETA tolerance (a second download joining the session, one leaving it), a new
    /// stretch starts: the progress runs at another rate from now on, which the source already
    /// counts and the pace measured so far does not (`stretchShare`). A text change the estimate
    /// runs through unmoved (a washer's rinse after its wash) keeps the pace.
    public func cardChanged(memory: inout Memory, truth: TruthSample?, samePhase: Bool = false, at t: Double) {
        // A card that changes, with the source's estimate, before the progress first moved (a
        // printer heating and levelling, then printing with its time left): the wait was
        // preparation, which the estimate does not count and the pace must not either. Read as
        // the first step's time, it made a print's first whole percent look slower than the print.
        if memory.cardChangedAt != nil, truth?.finish != nil { memory.pace.startIfUnmoved(at: t) }
        memory.cardChangedAt = t
        let points = memory.finishes.points
        guard samePhase, let truth, !truth.fixedFinish, points.count >= 2 else { return }
        let now = points[points.count - 1]
        let before = points[points.count - 2]
        guard now.time >= truth.time else { return }
        let tolerance = etaTolerance(truth, memory: memory, remaining: max(0, now.finish - t))
        if abs(now.finish - before.finish) > tolerance { memory.stretchStartedAt = t }
    }

    /// A push went out: the ETA deviation clock starts again, and the `end_date` moving from `old`
    /// to `new` is a move of the countdown (its direction is what the reversal rules look at),
    /// whichever rule's push carried it.
    public func pushed(memory: inout Memory, from old: DisplayAnchor?, to new: DisplayAnchor, at t: Double) {
        memory.etaDeviationSince = nil
        guard let old, old.live, new.live, let before = old.endDate, let after = new.endDate,
            abs(after - before) >= settings.etaMoveMinimum
        else { return }
        memory.lastETAMoveAt = t
        memory.lastETAMoveLater = after > before
    }
}
