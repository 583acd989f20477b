import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// Section 2: a typical month of jobs drawn from the trajectories, counted against the free
/// PushWard tier's 250 updates.
///
/// June 2026 (30 days, UTC): a download every evening, a washer cycle every morning and ten more
/// in the evening, a print on twelve afternoons spread over the month; which trajectory of the
/// kind each job replays is drawn from a fixed seed. Every job gets its own slug.
struct MonthBench: Sendable {
    var downloads = 30
    var prints = 12
    var washers = 40
    var budget = 250
    var seed: UInt64 = 2026
    var settings = EconomySettings()
    var policy = FixedIntervalPolicy()

    /// One policy's month.
    struct Line: Sendable {
        var policy: String
        var updates: Int
        var maxError: Double
        var meanError: Double
        /// Jobs whose max error exceeded ε.
        var jobsOverEpsilon: Int
        /// Jobs whose max error exceeded `MonthBench.budgetTolerance`, and all jobs.
        var jobsOverBudgetTolerance: Int { overBudgetTolerance.count }
        /// The slugs of those jobs.
        var overBudgetTolerance: Set<String> = []
        var jobCount = 0
        /// Updates by push reason (`start`, `structural`, `etaMoved`, …); empty for other policies.
        var reasons: [String: Int] = [:]
    }

    struct Result: Sendable {
        /// The seed the month was drawn from.
        var seed: UInt64
        var jobs: [String: Int]
        var lines: [Line]
        var budget: Int
        var oracleUpdates: Int
        /// The fewest updates any sender needs for `budgetTolerantShare` of the month's jobs within
        /// `budgetTolerance`, knowing the future and folding every card change into a progress
        /// push (the cheapest jobs that closely, the others a start and an end): the least the
        /// budget goal can cost.
        var budgetFloor = 0
        /// The jobs `budgetFloor` keeps within `budgetTolerance`.
        var budgetFloorJobs = 0
        /// Day of the month (1-based, fractional) the budgeted run spent its last update.
        var budgetExhaustedDay: Double?
        /// The same month drawn from other seeds (`otherSeeds`): which trajectory each job replays
        /// and when it starts. One seed is one draw; these say how far it is typical.
        var others: [Summary] = []
        /// Under the budget, by trajectory: its jobs in this month and those past `budgetTolerance`.
        var budgetMisses: [String: Misses] = [:]
    }

    /// Jobs of one trajectory, and how many of them missed a tolerance.
    struct Misses: Sendable, Hashable {
        var jobs = 0
        var over = 0

        static func + (a: Self, b: Self) -> Self { Self(jobs: a.jobs + b.jobs, over: a.over + b.over) }
    }

    /// One month's figures the goals are judged on.
    struct Summary: Sendable {
        var seed: UInt64
        var freeUpdates: Int
        var oracleUpdates: Int
        var budgetedUpdates: Int
        /// Jobs within `budgetTolerance` under the budget, of `jobs`.
        var withinTolerance: Int
        var jobs: Int
        /// `Result.budgetMisses`.
        var budgetMisses: [String: Misses]

        init(_ result: Result) {
            seed = result.seed
            freeUpdates = result.lines.first?.updates ?? 0
            oracleUpdates = result.oracleUpdates
            let budgeted = result.lines.count > 1 ? result.lines[1] : nil
            budgetedUpdates = budgeted?.updates ?? 0
            jobs = budgeted?.jobCount ?? 0
            withinTolerance = jobs - (budgeted?.jobsOverBudgetTolerance ?? 0)
            budgetMisses = result.budgetMisses
        }

        /// Updates without a budget ÷ the month's oracle.
        var freeRatio: Double { Double(freeUpdates) / Double(max(1, oracleUpdates)) }

        /// Meets the free month's goal (≤ `freeOracleFactor` × the oracle).
        var freeMet: Bool { Double(freeUpdates) <= freeOracleFactor * Double(oracleUpdates) }

        /// Meets the budgeted month's goal (≤ `budget`, `budgetTolerantShare` of the jobs within
        /// `budgetTolerance`).
        func budgetMet(_ budget: Int) -> Bool {
            budgetedUpdates <= budget && Double(withinTolerance) >= budgetTolerantShare * Double(max(1, jobs))
        }
    }

    /// `budgetMisses` summed over this month and its other draws.
    static func budgetMisses(_ result: Result) -> [String: Misses] {
        ([result.budgetMisses] + result.others.map(\.budgetMisses)).reduce(into: [:]) { total, month in
            for (name, misses) in month { total[name] = total[name, default: Misses()] + misses }
        }
    }

    /// The seeds of the other months the bench draws (`Result.others`).
    static let otherSeeds: [UInt64] = Array(1...8)

    /// The display error a month under a monthly budget may show on a job (the target:
    /// ≥ 90 % of the month's jobs within it), and how far above the month's oracle a month
    /// without a budget may go.
    static let budgetTolerance = 0.05
    static let budgetTolerantShare = 0.9
    static let freeOracleFactor = 1.3

    /// 2026-06-01T00:00:00Z.
    static let monthStart = Double(CivilTime.daysFromCivil(year: 2026, month: 6, day: 1)) * 86400

    /// The month's jobs: (start time, trajectory, slug), in time order.
    func schedule(_ trajectories: [LoadedTrajectory]) -> [(start: Double, trajectory: LoadedTrajectory, slug: String)] {
        var random = SeededRandom(seed: seed)
        var jobs: [(Double, LoadedTrajectory, String)] = []
        func pick(_ kind: BenchJobKind) -> LoadedTrajectory? {
            let candidates = trajectories.filter { $0.kind == kind && $0.typical }
            guard !candidates.isEmpty else { return nil }
            return candidates[Int(random.next() % UInt64(candidates.count))]
        }
        func at(day: Int, hour: Double, spreadHours: Double) -> Double {
            (Self.monthStart + Double(day) * 86400 + hour * 3600 + random.uniform(0...spreadHours * 3600)).rounded()
        }
        for index in 0..<downloads {
            if let trajectory = pick(.download) {
                jobs.append((at(day: index % 30, hour: 19, spreadHours: 3), trajectory, "download-\(index + 1)"))
            }
        }
        for index in 0..<prints {
            let day = Int((Double(index) * 30 / Double(max(1, prints))).rounded(.down))
            if let trajectory = pick(.print) {
                jobs.append((at(day: day, hour: 10, spreadHours: 3), trajectory, "print-\(index + 1)"))
            }
        }
        for index in 0..<washers {
            let evening = index >= 30
            let day = evening ? (index - 30) * 3 % 30 : index % 30
            if let trajectory = pick(.washer) {
                jobs.append((at(day: day, hour: evening ? 17 : 7, spreadHours: 1.5), trajectory, "washer-\(index + 1)"))
            }
        }
        return jobs.sorted { ($0.0, $0.2) < ($1.0, $1.2) }.map { (start: $0.0, trajectory: $0.1, slug: $0.2) }
    }

    func run(_ trajectories: [LoadedTrajectory], oracles: [String: Int]) -> Result {
        let jobs = schedule(trajectories)
        var updates: [ActivityUpdate] = []
        var truths: [String: JobTruth] = [:]
        var fixedUpdates = 0
        var fixedAnchors: [String: [DisplayAnchor]] = [:]
        var counts: [String: Int] = [:]
        var oracleUpdates = 0
        var floors: [Int] = []
        var floorByTrajectory: [String: Int] = [:]
        for job in jobs {
            let placed = job.trajectory.placed(at: job.start, slug: job.slug)
            updates += placed
            truths[job.slug] = JobTruth(placed)
            let fixed = policy.run(placed)
            fixedUpdates += fixed.pushes
            fixedAnchors[job.slug] = fixed.anchors
            counts[job.trajectory.kind.rawValue, default: 0] += 1
            oracleUpdates += oracles[job.trajectory.name] ?? 0
            // The floor depends on the job's shape alone, not on when it starts: solved once per trajectory.
            if floorByTrajectory[job.trajectory.name] == nil {
                var folded = JobTruth(placed)
                folded.changes = []
                floorByTrajectory[job.trajectory.name] = PushOracle(epsilon: Self.budgetTolerance).solve(folded).pushes
            }
            floors.append(floorByTrajectory[job.trajectory.name] ?? 0)
        }
        let close = Int((Self.budgetTolerantShare * Double(floors.count)).rounded(.up))
        let budgetFloor = floors.sorted().prefix(close).reduce(0, +) + 2 * (floors.count - close)
        let endTime = Self.monthStart + 30 * 86400
        let free = EconomySimulation(model: .interpolating, settings: settings).run(updates, endTime: endTime)
        var budgeted = settings
        budgeted.monthlyBudget = budget
        let limited = BudgetedSimulation(settings: budgeted).run(updates, endTime: endTime)
        var freeLine = line("LiveBridge", updates: free.totalPushes, anchors: free.anchors, truths: truths)
        for push in free.pushes { freeLine.reasons[push.frame.reason.rawValue, default: 0] += 1 }
        var limitedLine = line(
            "LiveBridge, monthlyBudget \(budget)", updates: limited.counted, anchors: limited.anchors, truths: truths)
        for push in limited.pushes { limitedLine.reasons[push.frame.reason.rawValue, default: 0] += 1 }
        var misses: [String: Misses] = [:]
        for job in jobs {
            misses[job.trajectory.name, default: Misses()].jobs += 1
            if limitedLine.overBudgetTolerance.contains(job.slug) { misses[job.trajectory.name]?.over += 1 }
        }
        return Result(
            seed: seed, jobs: counts,
            lines: [
                freeLine, limitedLine,
                line("fixed interval (5 s / 30 s)", updates: fixedUpdates, anchors: fixedAnchors, truths: truths),
            ], budget: budget, oracleUpdates: oracleUpdates, budgetFloor: budgetFloor,
            budgetFloorJobs: close,
            budgetExhaustedDay: limited.exhaustedAt.map { ($0 - Self.monthStart) / 86400 + 1 }, budgetMisses: misses)
    }

    private func line(_ name: String, updates: Int, anchors: [String: [DisplayAnchor]], truths: [String: JobTruth])
        -> Line
    {
        var maxError = 0.0
        var sum = 0.0
        var samples = 0
        var over = 0
        var overTolerance: Set<String> = []
        for (slug, truth) in truths {
            let figures = DisplayErrorMeter.measure(truth, anchors: anchors[slug] ?? [])
            maxError = max(maxError, figures.max)
            sum += figures.mean * Double(figures.samples)
            samples += figures.samples
            if figures.max > settings.maxDisplayError + 1e-9 { over += 1 }
            if figures.max > Self.budgetTolerance + 1e-9 { overTolerance.insert(slug) }
        }
        return Line(
            policy: name, updates: updates, maxError: maxError, meanError: samples > 0 ? sum / Double(samples) : 0,
            jobsOverEpsilon: over, overBudgetTolerance: overTolerance, jobCount: truths.count)
    }
}
