import LiveBridgeCore
import LiveBridgeFoundation
import Testing

/// A bar is judged every second, a count is read every few: the bar's error crosses ε between two
/// readings, and the reading after that is too late (`EconomySettings.readingLookaheadGaps`).
@Suite("Economy policy: the reading before the bar is past ε")
struct ReadingLookaheadTests {
    static let base = EconomyPolicyTests.base

    /// A download whose speed wanders around its mean from reading to reading (±10–25 %, each
    /// reading's speed mostly the last one's: a news server's throughput), read every 3–8 s, the
    /// client's estimate from the speed of the moment: between two readings the bar's error grows
    /// at the speed of the moment, not at the pace of the last minutes.
    static func wanderingDownload(seed: UInt64) -> [ActivityUpdate] {
        var random = SeededRandom(seed: seed)
        let duration = random.uniform(1200...3600)
        let wander = random.uniform(0.1...0.25)
        let interval = random.uniform(3...8).rounded()
        let mean = 1 / duration
        var updates: [ActivityUpdate] = []
        var progress = 0.0
        var deviation = 0.0
        var t = 0.0
        while progress < 1 {
            let speed = mean * (1 + deviation)
            updates.append(
                ActivityUpdate(
                    slug: "job", name: "Job", phase: .active, content: GenericContent(state: "Downloading"),
                    progress: progress, eta: .remaining((1 - progress) / speed), observedAt: base + t))
            progress = min(1, progress + speed * interval)
            deviation = max(-0.9, 0.9 * deviation + random.uniform(-1...1) * wander * 0.75)
            t += interval
        }
        updates.append(EconomyPolicyTests.ended("job", "Job", state: "Complete", at: base + t))
        return updates
    }

    @Test("a bar whose error grows between readings is corrected at the reading before it is past ε")
    func correctedBeforeTheGridSeesIt() {
        let settings = EconomySettings()
        var late = settings
        late.readingLookaheadGaps = 0
        var overWithout = 0
        var pushes = 0
        var pushesWithout = 0
        for seed in UInt64(1)...32 {
            let updates = Self.wanderingDownload(seed: seed)
            let result = EconomySimulation(model: .interpolating, settings: settings).run(updates)
            let without = EconomySimulation(model: .interpolating, settings: late).run(updates)
            #expect(result.maxError <= settings.maxDisplayError + 1e-9, "seed \(seed): \(result.maxError)")
            if without.maxError > settings.maxDisplayError + 1e-9 { overWithout += 1 }
            pushes += result.totalPushes
            pushesWithout += without.totalPushes
        }
        // The family does cross ε between readings when only the reading after is read.
        #expect(overWithout > 0, "\(overWithout) of 32 past ε without the rule")
        // The correction comes a reading earlier, not as an extra push.
        #expect(pushes <= pushesWithout + 3, "\(pushes) pushes, \(pushesWithout) without the rule")
    }
}
