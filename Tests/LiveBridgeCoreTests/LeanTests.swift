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
