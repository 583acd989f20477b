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
        var memory = EconomyPolicy.Memory()
        var sample = TruthSample(progress: 0, time: base, finish: nil, fixedFinish: false)
        for poll in stride(from: 0.0, through: until, by: 30) {
            let count = Double(advances.filter { $0 <= poll }.count) * step
            sample = TruthSample(progress: count, time: base + poll, finish: nil, fixedFinish: false)
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

/// Where a push anchors the bar of a job that stopped moving.
@Suite("Economy policy: a stopped job's bar")
struct StoppedBarTests {
    @Test(
        "a job paused, or whose next step is overdue, is anchored at its count, not above it where a glide through its steps left the bar",
        arguments: [0.02, 0.04])
    func stoppedAtCount(step: Double) throws {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        // A step every 60 s, the last at 600 s; polled every 30 s up to 750 s without another:
        // overdue (two of its gaps), not yet stalled (three).
        let (memory, truth) = LeanTests.memory(
            policy, advances: Array(stride(from: 60.0, through: 600, by: 60)), step: step, until: 750)
        let count = try #require(truth.progress)
        let now = LeanTests.base + 750
        #expect(!policy.stalled(memory, at: now))
        // The phone glides on from the last push, now above the count.
        let glide = DisplayAnchor(
            progress: count, time: LeanTests.base + 650, endDate: LeanTests.base + 650 + (1 - count) * 60 / step,
            live: true)
        #expect(glide.shown(at: now, model: .interpolating) > count + step / 4)
        for paused in [false, true] {
            let plan = policy.plan(
                truth, memory: memory, paused: paused, startedAt: LeanTests.base, frozen: false,
                fallbackProgress: nil, current: glide, at: now)
            #expect(!plan.live, "paused: \(paused)")
            #expect(abs(plan.progress - count) < 1e-9, "paused: \(paused): \(plan.progress) for the count \(count)")
        }
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
