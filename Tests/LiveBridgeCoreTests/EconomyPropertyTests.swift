import LiveBridgeCore
import Testing

@Suite("Push economy properties")
struct EconomyPropertyTests {
    /// A random piecewise-linear trajectory: segments of random speed (stalls included) and
    /// length, observed every 3 s with the remaining time a polling adapter would compute from
    /// the current speed (unknown during a stall).
    static func randomTrajectory(_ rng: inout SeededRandom) -> [ActivityUpdate] {
        var job = Trajectory()
        while job.progress < 1 - 1e-9 && job.updates.count < 20_000 {
            let stall = Int.random(in: 0..<6, using: &rng) == 0
            let rate = stall ? 0 : 1 / Double.random(in: 600...14_400, using: &rng)
            let duration = Double(Int.random(in: 20...400, using: &rng)) * 3
            if stall {
                job.run(rate: 0, for: duration)
            } else {
                let steps = Int(duration / 3)
                for _ in 0..<steps where job.progress < 1 - 1e-9 {
                    job.updates.append(job.update(.active, state: "Downloading", remaining: (1 - job.progress) / rate))
                    job.time += 3
                    job.progress = min(1, job.progress + rate * 3)
                }
            }
        }
        job.end()
        return job.updates
    }

    @Test("on random piecewise-linear trajectories the display error stays within ε")
    func errorBound() {
        var rng = SeededRandom(seed: 2026)
        let settings = EconomySettings()
        let simulation = EconomySimulation(model: .interpolating, settings: settings)
        var totalPushes = 0
        for _ in 0..<60 {
            let updates = Self.randomTrajectory(&rng)
            let result = simulation.run(updates)
            totalPushes += result.totalPushes
            // The truth never jumps here (continuous, only the speed changes), so the bound holds
            // everywhere, up to the one-sample detection delay of a speed change.
            #expect(result.maxError <= settings.maxDisplayError + 0.002, "max error \(result.maxError)")
        }
        #expect(totalPushes > 60 * 3)
    }

    @Test("the bound also holds on a static display model without a minimum push interval")
    func staticBound() {
        var rng = SeededRandom(seed: 99)
        var settings = EconomySettings()
        settings.staticMinimumInterval = 0
        let simulation = EconomySimulation(model: .static, settings: settings)
        for _ in 0..<20 {
            let result = simulation.run(Self.randomTrajectory(&rng))
            // A static bar is corrected at the next observation: one 3 s sample of the fastest speed.
            #expect(result.maxError <= settings.staticMaxDisplayError + 3.0 / 600, "max error \(result.maxError)")
        }
    }
}
