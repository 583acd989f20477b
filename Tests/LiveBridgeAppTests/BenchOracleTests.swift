import LiveBridgeCore
import LiveBridgeKit
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// The oracle and the bench's measurements, checked against brute force and against
/// `EconomySimulation` on small jobs.
@Suite("Bench oracle and measurements")
struct BenchOracleTests {
    static let base = 1_781_517_600.0

    /// A job whose progress follows `points` (seconds, progress) linearly, observed every second,
    /// ending (success) at the last point.
    static func job(_ points: [(Double, Double)], slug: String = "job") -> [ActivityUpdate] {
        var updates: [ActivityUpdate] = []
        let end = points.last!.0
        var t = 0.0
        var segment = 0
        while t < end {
            while points[segment + 1].0 <= t { segment += 1 }
            let (t0, p0) = points[segment]
            let (t1, p1) = points[segment + 1]
            let progress = p0 + (p1 - p0) * (t - t0) / (t1 - t0)
            updates.append(
                ActivityUpdate(
                    slug: slug, name: "Job", phase: .active, content: GenericContent(state: "Working"),
                    progress: progress, eta: .remaining(end - t), observedAt: base + t))
            t += 1
        }
        updates.append(
            ActivityUpdate(
                slug: slug, name: "Job", phase: .ended(.success), content: GenericContent(state: "Done"),
                progress: 1, observedAt: base + end))
        return updates
    }

    /// Reach by trying every whole-second E (and a static anchor) with `DisplayAnchor` itself.
    static func bruteReach(
        _ q: Int, times: [Double], values: [Double], epsilon: Double, limit: Int,
        endDates: ((Double) -> ClosedRange<Double>)? = nil
    ) -> Int {
        func covered(_ anchor: DisplayAnchor) -> Int {
            var k = q
            while k + 1 <= limit, abs(anchor.shown(at: times[k + 1], model: .interpolating) - values[k + 1]) <= epsilon
            {
                k += 1
            }
            return k
        }
        var best = covered(DisplayAnchor(progress: values[q], time: times[q], endDate: nil, live: false))
        let first = times[q].rounded(.down) + 1
        for endDate in stride(from: first, through: first + 3000, by: 1)
        where endDates.map({ $0(times[q]).contains(endDate) }) ?? true {
            best = max(best, covered(DisplayAnchor(progress: values[q], time: times[q], endDate: endDate, live: true)))
        }
        return best
    }

    /// Six segments of `segment` seconds at random speeds (each standing still with probability
    /// `standing`), from 0 to 1.
    static func bumpyJob(seed: UInt64, segment: Double, standing: Double) -> [(Double, Double)] {
        var random = SeededRandom(seed: seed)
        var points: [(Double, Double)] = [(0, 0)]
        var progress = 0.0
        let rates = (0..<6).map { _ in
            standing > 0 && random.uniform(0...1) < standing ? 0 : random.uniform(0.2...1.8)
        }
        let total = rates.reduce(0, +)
        for (index, rate) in rates.enumerated() {
            progress += rate / total
            points.append((Double(index + 1) * segment, min(1, progress)))
        }
        return points
    }

    @Test("reach and the greedy cover match brute force on random jobs", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func oracleMatchesBruteForce(seed: UInt64) {
        // A bumpy job: 6 segments of random speed, 90 s in all, sometimes standing still.
        let truth = JobTruth(Self.job(Self.bumpyJob(seed: seed, segment: 15, standing: 0.2)))
        let times = truth.grid().filter { $0 < truth.end }
        let values = truth.values(at: times)
        let epsilon = 0.03
        var scanner = ReachScanner(times: times, values: values, epsilon: epsilon)
        let limit = times.count - 1
        for q in 0...limit {
            let fast = scanner.reach(q, limit: limit).reach
            let brute = Self.bruteReach(q, times: times, values: values, epsilon: epsilon - 1e-9, limit: limit)
            #expect(fast == brute, "reach(\(q)): scan \(fast), brute force \(brute)")
        }
        // Fewest pushes by dynamic programming over brute-force reaches.
        var reaches = (0...limit).map {
            Self.bruteReach($0, times: times, values: values, epsilon: epsilon - 1e-9, limit: limit)
        }
        var fewest = [Int](repeating: Int.max, count: limit + 2)
        fewest[limit + 1] = 0
        for q in stride(from: limit, through: 0, by: -1) {
            for next in (q + 1)...(reaches[q] + 1) where fewest[next] != Int.max {
                fewest[q] = min(fewest[q], 1 + fewest[next])
            }
        }
        reaches.removeAll()
        let greedy = scanner.cover(0...limit)
        #expect(greedy.count == fewest[0])
        // And the schedule really keeps the bar within ε.
        let result = PushOracle(epsilon: epsilon).solve(truth)
        #expect(result.pushes == fewest[0] + 1)
        #expect(DisplayErrorMeter.measure(truth, anchors: result.anchors).max <= epsilon + 1e-9)
    }

    @Test(
        "with honest countdowns, reach matches brute force over the allowed end_dates",
        arguments: [1, 2, 3, 4] as [UInt64])
    func honestReachMatchesBruteForce(seed: UInt64) {
        let truth = JobTruth(Self.job(Self.bumpyJob(seed: seed, segment: 40, standing: 0)))
        let times = truth.grid().filter { $0 < truth.end }
        let values = truth.values(at: times)
        let finish = truth.finish
        #expect(finish == truth.end)
        // The ETA tolerance of 10 % of the time left, at least 5 s: tight enough to bind here.
        let allowed: (Double) -> ClosedRange<Double> = { t0 in
            let tolerance = max(5, 0.1 * max(0, finish - t0))
            return (finish - tolerance)...(finish + tolerance)
        }
        var scanner = ReachScanner(times: times, values: values, epsilon: 0.03)
        scanner.endDates = allowed
        let limit = times.count - 1
        for q in 0...limit {
            let fast = scanner.reach(q, limit: limit).reach
            let brute = Self.bruteReach(
                q, times: times, values: values, epsilon: 0.03 - 1e-9, limit: limit, endDates: allowed)
            #expect(fast == brute, "reach(\(q)): scan \(fast), brute force \(brute)")
        }
        let honest = PushOracle(epsilon: 0.03, honestCountdown: (0.1, 5)).solve(truth)
        #expect(honest.pushes >= PushOracle(epsilon: 0.03).solve(truth).pushes)
        #expect(DisplayErrorMeter.measure(truth, anchors: honest.anchors).max <= 0.03 + 1e-9)
        for anchor in honest.anchors where anchor.live {
            #expect(allowed(anchor.time).contains(anchor.endDate!), "end_date \(anchor.endDate!) at \(anchor.time)")
        }
    }

    @Test("a fast first stretch needs a countdown far from the finish: the honest oracle pushes more")
    func honestCountdownCostsPushes() {
        // 80 % in 10 minutes, the last 20 % in 20: one glide covers the fast stretch only when it
        // aims at 12.5 minutes, 17.5 minutes before the real finish.
        let truth = JobTruth(Self.job([(0, 0), (600, 0.8), (1800, 1)]))
        let free = PushOracle(epsilon: 0.03).solve(truth)
        let honest = PushOracle(epsilon: 0.03, honestCountdown: (0.25, 60)).solve(truth)
        #expect(free.pushes == 3)
        #expect(abs(free.anchors[0].endDate! - (Self.base + 750)) <= 30)
        #expect(honest.pushes > free.pushes)
        #expect(DisplayErrorMeter.measure(truth, anchors: honest.anchors).max <= 0.03 + 1e-9)
    }

    @Test("a job that keeps to its estimate needs only the seed and the end")
    func steadyJob() {
        let truth = JobTruth(Self.job([(0, 0), (600, 1)]))
        let result = PushOracle(epsilon: 0.03).solve(truth)
        #expect(result.pushes == 2)
        #expect(result.mandatory == 2)
    }

    @Test("every change of the card's text is a mandatory push")
    func cardChangesAreMandatory() {
        var updates = Self.job([(0, 0), (600, 1)])
        for index in updates.indices
        where (updates[index].observedAt ?? 0) >= Self.base + 300 && !updates[index].phase.isEnded {
            updates[index].content.state = .value("Rinsing")
        }
        let result = PushOracle(epsilon: 0.03).solve(JobTruth(updates))
        #expect(result.mandatory == 3)
        #expect(result.pushes == 3)
    }

    @Test("the bench's error meter agrees with EconomySimulation on the tracker's anchors")
    func meterAgreesWithEconomySimulation() throws {
        let updates = Self.job([(0, 0), (300, 0.2), (320, 0.2), (900, 0.9), (1000, 1)])
        let simulation = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates)
        let activity = try #require(simulation.activities.first)
        let metered = DisplayErrorMeter.measure(JobTruth(updates), anchors: simulation.anchors["job"] ?? [])
        #expect(abs(metered.max - activity.maxError) < 1e-12)
        #expect(abs(metered.mean - activity.meanError) < 1e-12)
        #expect(metered.samples == activity.samples)
    }

    @Test("with no budget, the budgeted loop pushes exactly what EconomySimulation pushes")
    func budgetedLoopMatchesEconomySimulation() {
        let first = Self.job([(0, 0), (300, 0.2), (320, 0.2), (900, 0.9), (1000, 1)], slug: "first")
        let second = Self.job([(0, 0), (400, 0.7), (500, 1)], slug: "second").map {
            $0.rebased(by: 200, slug: "second")
        }
        let updates = first + second
        let reference = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates)
        let budgeted = BudgetedSimulation(settings: EconomySettings()).run(updates)
        #expect(budgeted.pushes.map(\.frame) == reference.pushes.map(\.frame))
        #expect(budgeted.counted == reference.totalPushes)
    }

    @Test("the fixed-interval policy pushes every 5 s while the progress changes, and ends once")
    func fixedIntervalPolicy() {
        let updates = Self.job([(0, 0), (60, 1)])
        let result = FixedIntervalPolicy().run(updates)
        // Pushes at 0, 5, 10, …, 55 (12) and the end at 60.
        #expect(result.pushes == 13)
        #expect(result.anchors.dropLast().allSatisfy { $0.live && $0.endDate == Self.base + 60 })
    }

    @Test("trajectories are deterministic")
    func deterministic() throws {
        for trajectory in BenchTrajectories.standard where trajectory.source is SyntheticTrajectory {
            let first = try trajectory.load(directory: "/nonexistent")
            let second = try trajectory.load(directory: "/nonexistent")
            #expect(first.updates == second.updates)
        }
    }
}
