import Testing

@testable import LiveBridgeCore

/// Which way a correction leans the bar (`EconomyPolicy.leaning`) when a count's step is late.
@Suite("Economy policy: the lean of a late step")
struct LeanTests {
    static let base = 1_781_517_600.0

    /// A count polled every 30 s that moved `step` at each of `advances` (seconds from the start),
    /// folded into a fresh memory up to `until`.
    static func memory(_ policy: EconomyPolicy, advances: [Double], step: Double, until: Double)
        -> (EconomyPolicy.Memory, TruthSample)
    {
        memory(policy, poll: 30, until: until) { reading in Double(advances.filter { $0 <= reading }.count) * step }
    }

    /// A count read every `poll` seconds (`count` at each reading, seconds from the start) with the
    /// resolution `resolution`, folded into a fresh memory up to `until`.
    static func memory(
        _ policy: EconomyPolicy, poll: Double, until: Double, resolution: Double = 0, count: (Double) -> Double
    ) -> (EconomyPolicy.Memory, TruthSample) {
        var memory = EconomyPolicy.Memory()
        var sample = TruthSample(progress: 0, time: base, finish: nil, fixedFinish: false)
        for reading in stride(from: 0.0, through: until, by: poll) {
            sample = TruthSample(
                progress: count(reading), time: base + reading, finish: nil, fixedFinish: false,
                resolution: resolution)
            policy.observe(sample, paused: false, startedAt: base, memory: &memory)
        }
        return (memory, sample)
    }

    @Test(
        "a step a poll late leans nothing against a countdown at the speed the count moved; a count that slowed is leaned toward",
        arguments: [0.02, 0.025])
    func lateStep(step: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // A step every 60 s; the one due at 660 s has not come at 690 s (late by half its gap,
        // neither overdue nor stalled).
        let regular = Array(stride(from: 60.0, through: 600, by: 60))
        let (late, truth) = Self.memory(policy, advances: regular, step: step, until: 690)
        let now = Self.base + 690
        #expect(!policy.stalled(late, at: now))
        let count = try #require(truth.progress)
        // The countdown the job's speed gives: the count's own pace from here.
        let speed = step / 60
        let endDate = now + (1 - count) / speed
        let leaned = policy.leaning(count, toward: endDate, truth: truth, memory: late, at: now)
        #expect(leaned == count, "a late step is no slowdown: \(leaned) for \(count)")

        // The count really slowed: its last steps came 120 s apart. The same countdown is now too
        // fast for it, and the bar leans below the count, toward where the truth heads.
        let slowed = Array(stride(from: 60.0, through: 420, by: 60)) + [540, 660]
        let (slow, slowTruth) = Self.memory(policy, advances: slowed, step: step, until: 690)
        let slowCount = try #require(slowTruth.progress)
        let slowEnd = now + (1 - slowCount) / speed
        let lean = policy.leaning(slowCount, toward: slowEnd, truth: slowTruth, memory: slow, at: now)
        #expect(lean < slowCount - policy.settings.maxDisplayError / 4, "\(lean) for \(slowCount)")
    }
}

/// How far a lean may take the bar from a count that moves in steps.
@Suite("Economy policy: the lean's bounds on a stepwise count")
struct LeanBoundTests {
    /// A count polled every `poll` seconds that moves `step` every `stepTime` seconds, folded into
    /// a fresh memory up to `until` (a reading at a step), with the count's resolution.
    static func memory(
        _ policy: EconomyPolicy, step: Double, stepTime: Double, poll: Double, until: Double, resolution: Double
    ) -> (EconomyPolicy.Memory, TruthSample) {
        LeanTests.memory(policy, poll: poll, until: until, resolution: resolution) { reading in
            (reading / stepTime + 1e-9).rounded(.down) * step
        }
    }

    @Test(
        "a lean above an exact count that stands between its steps leaves room for the step the bar rises by before it lands",
        arguments: [0.01, 0.0133])
    func exactCountLeansWithinReach(step: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // Articles: a step every 20 s read every 5 s, the reading at 600 s the first of its step.
        let (memory, truth) = Self.memory(policy, step: step, stepTime: 20, poll: 5, until: 600, resolution: 0)
        let count = try #require(truth.progress)
        let now = truth.time
        let rate = step / 20
        // A countdown twice as long as the count's speed gives: the truth heads above the bar.
        let endDate = now + 2 * (1 - count) / rate
        let leaned = policy.leaning(count, toward: endDate, truth: truth, memory: memory, at: now)
        let reach = policy.leanReach
        #expect(leaned > count, "the lean still heads where the truth does: \(leaned) for \(count)")
        // Until the next step lands the count stays, and the bar rises by a step at the count's
        // speed: it is then no further above the count than the lean may go.
        let bar = DisplayAnchor(progress: leaned, time: now, endDate: endDate, live: true)
        let beforeStep = bar.shown(at: now + 20 - 1e-6, model: .interpolating)
        #expect(beforeStep - count <= reach + 1e-9, "\(beforeStep - count) above the count before its step")
    }

    @Test(
        "an exact count whose next step is overdue is the truth until it lands: no lean above it",
        arguments: [0.01, 0.0133])
    func overdueExactCountNoLeanAbove(step: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // Articles: a step every 20 s read every 5 s up to 600 s; the next one, due at 620 s, has
        // not landed by 630 s.
        var (memory, truth) = Self.memory(policy, step: step, stepTime: 20, poll: 5, until: 600, resolution: 0)
        let count = try #require(truth.progress)
        for reading in stride(from: 605.0, through: 630, by: 5) {
            truth = TruthSample(progress: count, time: LeanTests.base + reading, finish: nil, fixedFinish: false)
            policy.observe(truth, paused: false, startedAt: LeanTests.base, memory: &memory)
        }
        #expect(!policy.stalled(memory, at: truth.time), "a late step, not a stall")
        let now = truth.time
        // A countdown twice as long as the count's speed gives: the pace heads above the bar.
        let endDate = now + 2 * (1 - count) / (step / 20)
        let leaned = policy.leaning(count, toward: endDate, truth: truth, memory: memory, at: now)
        // A bar leaned above a count that stands was past ε above it polls before the step came
        // (a slow server's unrepairable download, the same correction pushed twice 9 s apart).
        #expect(leaned <= count + 1e-9, "\(leaned) above the count \(count)")
    }

    @Test(
        "a lean below a whole percent seen a poll after its step goes as far as the truth can be above it by then, not a whole percent",
        arguments: [30.0, 20])
    func flooredCountLeansBelow(poll: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // A whole percent every 60 s, read every `poll` s; at 600 s it reads its new value for
        // the first time, one reading after the last lower one.
        let (memory, truth) = Self.memory(policy, step: 0.01, stepTime: 60, poll: poll, until: 600, resolution: 0.01)
        let count = try #require(truth.progress)
        let now = truth.time
        let rate = 0.01 / 60
        // A countdown half as long as the count's speed gives: the truth heads below the bar.
        let endDate = now + (1 - count) / (2 * rate)
        let leaned = policy.leaning(count, toward: endDate, truth: truth, memory: memory, at: now)
        let reach = policy.leanReach
        // The percentage turned over within the last reading: the truth is at most the pace over
        // that reading above the count, and the bar goes as far as the lean's reach below that.
        let truthAtMost = count + rate * poll
        #expect(leaned < count + 0.01 - reach - 1e-6, "no lower than a whole percent allows: \(leaned) for \(count)")
        #expect(leaned >= truthAtMost - reach - 1e-9, "\(leaned) is more than the reach below \(truthAtMost)")
    }
}

/// A bar rising away from a floored count that reads the same until its step lands.
@Suite("Economy policy: a bar above a flat count")
struct FlatCountTests {
    /// A running job's decision at its reading `truth`, the phone gliding on `anchor` since it was
    /// pushed, the job started at `LeanTests.base`.
    static func gliding(_ truth: TruthSample, anchor: DisplayAnchor) -> EconomyPolicy.Situation {
        EconomyPolicy.Situation(
            truth: truth, anchor: anchor, phase: "active", pushedPhase: "active", cardChanged: false,
            carriesProgress: true, hasGlided: true, needsResync: false, lastPushAt: anchor.time,
            startedAt: LeanTests.base, heartbeatDue: nil, anchorDeadline: nil, pushedRemaining: nil,
            now: truth.time)
    }

    @Test(
        "a bar that will be past ε above a whole percent by its next reading is corrected at this one when the percent is read many times per step",
        arguments: [10.0, 20])
    func correctedAReadingEarly(poll: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // A whole percent every 100 s, read every `poll` s; the step at 1000 s, read now at 1060 s.
        let (memory, _) = LeanBoundTests.memory(
            policy, step: 0.01, stepTime: 100, poll: poll, until: 1060, resolution: 0.01)
        let base = LeanTests.base
        let truth = TruthSample(
            progress: 0.1, time: base + 1060, finish: nil, fixedFinish: false, resolution: 0.01)
        // The phone's bar was anchored at the step and rises faster than the count: just under ε
        // above it now, past ε at the next reading.
        let epsilon = policy.settings.maxDisplayError
        let slope = epsilon / (60 + poll / 2)
        let anchor = DisplayAnchor(progress: 0.1, time: base + 1000, endDate: base + 1000 + 0.9 / slope, live: true)
        let shownNow = anchor.shown(at: truth.time, model: .interpolating) - 0.1
        let shownNext = anchor.shown(at: truth.time + poll, model: .interpolating) - 0.1
        #expect(shownNow < epsilon && shownNext > epsilon, "\(shownNow) now, \(shownNext) at the next reading")
        let situation = Self.gliding(truth, anchor: anchor)
        var decided = memory
        let decision = policy.decide(situation, budget: .none, frozen: false, memory: &decided)
        #expect(decision?.reason == .displayError, "\(String(describing: decision))")
    }

    @Test(
        "a whole percent read about once per step has likely moved by its next reading: no push for a bar above it yet")
    func onceAStepWaits() throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // A whole percent every 100 s, read every 60 s.
        let (memory, truth) = LeanBoundTests.memory(
            policy, step: 0.01, stepTime: 100, poll: 60, until: 1020, resolution: 0.01)
        let count = try #require(truth.progress)
        let base = LeanTests.base
        let epsilon = policy.settings.maxDisplayError
        let slope = (epsilon - 0.005) / 20
        let anchor = DisplayAnchor(
            progress: count, time: base + 1000, endDate: base + 1000 + (1 - count) / slope, live: true)
        #expect(anchor.shown(at: truth.time + 60, model: .interpolating) - count > epsilon)
        let situation = Self.gliding(truth, anchor: anchor)
        #expect(!policy.outrunsFlatCount(situation, anchor: anchor, tolerance: epsilon, frozen: false, memory: memory))
    }
}

/// The speed a job came back at after a stall, before its new stretch has settled.
@Suite("Economy policy: moving again after a stall")
struct MovedAgainTests {
    @Test(
        "a pause within the stretch after a stall is cut out of it like the stall: the speed since moving again is still that stretch's"
    )
    func pauseCutFromResumedStretch() throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        let base = LeanTests.base
        var memory = EconomyPolicy.Memory()
        func observe(_ t: Double, _ progress: Double, paused: Bool = false) {
            let truth = TruthSample(progress: progress, time: base + t, finish: nil, fixedFinish: false)
            policy.observe(truth, paused: paused, startedAt: base, memory: &memory)
        }
        // 0.5 % a second for 40 s, a stall of a minute, back at 1 % a second for 10 s, paused for
        // 100 s, then on at 1 % a second.
        for t in stride(from: 0.0, through: 40, by: 1) { observe(t, 0.005 * t) }
        for t in stride(from: 41.0, through: 100, by: 1) { observe(t, 0.2) }
        for t in stride(from: 101.0, through: 110, by: 1) { observe(t, 0.2 + 0.01 * (t - 100)) }
        for t in stride(from: 111.0, through: 210, by: 1) { observe(t, 0.3, paused: true) }
        for t in stride(from: 211.0, through: 215, by: 1) { observe(t, 0.3 + 0.01 * (t - 210)) }
        let now = base + 215
        // Fifteen seconds of moving since the stall: not settled, and its speed is the stretch's.
        #expect(!policy.resumeSettled(memory, at: now))
        let rate = try #require(policy.resumedRate(memory, at: now))
        #expect(abs(rate - 0.01) < 1e-6, "\(rate) a second")
    }
}

/// Where a push anchors the bar of a job that stopped moving.
@Suite("Economy policy: a stopped job's bar")
struct StoppedBarTests {
    /// A count stepping `step` every 60 s, the last step at 600 s, polled every 30 s up to `until`
    /// (seconds from the start), and the glide the phone shows from a push at `pushedAt` on the
    /// count at the speed of its steps.
    static func stairs(step: Double, until: Double, pushedAt: Double) throws -> (
        policy: EconomyPolicy, memory: EconomyPolicy.Memory, truth: TruthSample, count: Double, glide: DisplayAnchor
    ) {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        let (memory, truth) = LeanTests.memory(
            policy, advances: Array(stride(from: 60.0, through: 600, by: 60)), step: step, until: until)
        let count = try #require(truth.progress)
        let pushed = LeanTests.base + pushedAt
        let glide = DisplayAnchor(progress: count, time: pushed, endDate: pushed + (1 - count) * 60 / step, live: true)
        return (policy, memory, truth, count, glide)
    }

    @Test(
        "a job paused, or whose next step is overdue, is anchored at its count, not above it where a glide through its steps left the bar",
        arguments: [0.02, 0.04])
    func stoppedAtCount(step: Double) throws {
        // Polled up to 750 s without another step: overdue (two of its gaps), not yet stalled
        // (three).
        let (policy, memory, truth, count, glide) = try Self.stairs(step: step, until: 750, pushedAt: 650)
        let now = LeanTests.base + 750
        #expect(!policy.stalled(memory, at: now))
        // The phone glides on from the last push, now above the count.
        #expect(glide.shown(at: now, model: .interpolating) > count + step / 4)
        for paused in [false, true] {
            let plan = policy.plan(
                truth, memory: memory, paused: paused, startedAt: LeanTests.base, frozen: false,
                fallbackProgress: nil, current: glide, at: now)
            #expect(!plan.live, "paused: \(paused)")
            #expect(abs(plan.progress - count) < 1e-9, "paused: \(paused): \(plan.progress) for the count \(count)")
        }
    }

    @Test(
        "a count its source says holds (a download's post-processing) stands at the count with no countdown, where the same count mid-download glides on",
        arguments: [0.02, 0.04])
    func holdingAtCount(step: Double) throws {
        // Read at 630 s: the next step neither late nor overdue.
        let (policy, memory, moving, count, glide) = try Self.stairs(step: step, until: 630, pushedAt: 600)
        let now = moving.time
        let running = policy.plan(
            moving, memory: memory, paused: false, startedAt: LeanTests.base, frozen: false, fallbackProgress: nil,
            current: glide, at: now)
        #expect(running.live && running.endDate != nil)
        var holding = moving
        holding.holds = true
        let plan = policy.plan(
            holding, memory: memory, paused: false, startedAt: LeanTests.base, frozen: false, fallbackProgress: nil,
            current: glide, at: now)
        #expect(!plan.live && plan.endDate == nil)
        #expect(abs(plan.progress - count) < 1e-9, "\(plan.progress) for the count \(count)")
        #expect(policy.finish(holding, memory: memory, at: now) == nil)
        #expect(policy.progress(holding, memory: memory, at: now + 60) == count)
    }
}

/// The finish of a job whose source's countdown ran out before the job did.
@Suite("Economy policy: a countdown run out")
struct RunOutCountdownTests {
    @Test(
        "a countdown in whole minutes floored to 0 while the job still runs is no finish: the pace gives the rest",
        arguments: [60.0, 100, 150])
    func runOut(programSeconds: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        let base = LeanTests.base
        var memory = EconomyPolicy.Memory()
        // A washer's last minutes: its percentage moves steadily to 100 at `programSeconds` past
        // the start of the run, reported every 10 s in whole percent, its remaining time in whole
        // minutes, floored.
        let start = 0.7
        var truth = TruthSample(progress: start, time: base, finish: nil, fixedFinish: false)
        var t = 0.0
        while programSeconds - t >= 25 {
            let progress = ((start + (1 - start) * t / programSeconds) * 100).rounded(.down) / 100
            let remaining = ((programSeconds - t) / 60).rounded(.down) * 60
            truth = TruthSample(
                progress: progress, time: base + t, finish: base + t + remaining, fixedFinish: false,
                resolution: 0.01, finishResolution: 60)
            policy.observe(truth, paused: false, startedAt: base, memory: &memory)
            t += 10
        }
        let now = truth.time
        #expect(truth.finish == now, "the countdown says 0 minutes")
        let finish = try #require(policy.finish(truth, memory: memory, at: now))
        let left = base + programSeconds - now
        #expect(abs(finish - now - left) <= 0.5 * left, "\(finish - now) s left for \(left)")
    }
}

@Suite("Economy policy: a bar ahead of the count comes back to it")
struct AheadOfCountTests {
    @Test(
        "a correction of a bar ahead of the count leaves it no further below the count than ε, or than it was above: a staircase step learned from a start's burst does not take it half that step below"
    )
    func noFurtherBelowThanAbove() throws {
        let settings = EconomySettings()
        let policy = EconomyPolicy(settings: settings, model: .interpolating)
        let base = LeanTests.base
        // SABnzbd read every 30 s: nothing at the first answer, 10.8 % at the second (the start's
        // burst), the same at the third; its time left says 42 minutes throughout.
        var memory = EconomyPolicy.Memory()
        var truth = TruthSample(progress: 0, time: base, finish: nil, fixedFinish: false)
        for (reading, count) in [(0.0, 0.0), (30, 0.1077), (60, 0.1077)] {
            truth = TruthSample(
                progress: count, time: base + reading, finish: base + reading + 2520, fixedFinish: false)
            policy.observe(truth, paused: false, startedAt: base, memory: &memory)
        }
        // The card seeded at 31 s gliding to SABnzbd's finish: 0.0105 above the count at 60 s.
        let current = DisplayAnchor(progress: 0.108, time: base + 31, endDate: base + 31 + 2544, live: true)
        let now = base + 60
        let shown = current.shown(at: now, model: .interpolating)
        try #require(shown - 0.1077 > settings.backwardsTolerance && shown - 0.1077 < settings.maxDisplayError)
        // The glide through the middle of its steps would start half that step below a new step.
        try #require(policy.staircaseOffset(memory) > settings.maxDisplayError)
        let plan = policy.plan(
            truth, memory: memory, paused: false, startedAt: base, frozen: false, fallbackProgress: nil,
            current: current, at: now)
        #expect(plan.progress >= 0.1077 - settings.maxDisplayError - 1e-9, "\(plan.progress)")
        #expect(plan.progress <= shown)
    }
}
