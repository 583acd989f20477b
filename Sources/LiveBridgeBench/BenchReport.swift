import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// Everything `livebridge-bench` measured, rendered as markdown or JSON.
struct BenchReport: Sendable {
    var machine: BenchMachine
    var commandLine: String
    var quick: Bool
    var epsilon = 0.03
    var economy: [EconomyBench.JobResult]?
    /// The generated corpus, per family.
    var corpus: [CorpusBench.Row]?
    /// Per print family: how many variants a sender without the future holds with one correction
    /// (`CausalReference`).
    var causalPrints: [(family: String, held: Int, of: Int)]?
    var month: MonthBench.Result?
    /// Latency with the engine's state in files (as `livebridge run`), then in memory.
    var latency: [LatencyBench.Result]?
    var throughput: [ThroughputBench.Row]?
    var resources: ResourceBench.Result?
    var soak: SoakBench.Result?
    /// Sections that could not run, with why.
    var failures: [String] = []

    // MARK: - Goals

    /// One goal of issue 9 and how the run fared (`met` nil: not measured in this run).
    struct Goal: Sendable {
        var name: String
        var target: String
        var measured: String
        var met: Bool?
    }

    var goals: [Goal] {
        var goals: [Goal] = []
        if let economy, !economy.isEmpty {
            let meeting = economy.filter { $0.meetsGoal(epsilon: epsilon) }.count
            let worstRatio = economy.map(\.ratio).max() ?? 0
            let worstError = economy.map(\.liveBridge.maxError).max() ?? 0
            goals.append(
                Goal(
                    name: "pushes per job",
                    target: "≤ 1.5 × oracle (+1 end frame), max error ≤ \(Self.fixed(epsilon, 2))",
                    measured: "\(meeting) of \(economy.count) jobs; worst ratio \(Self.fixed(worstRatio, 2)), "
                        + "worst max error \(Self.fixed(worstError, 4))",
                    met: meeting == economy.count))
        }
        if let corpus, !corpus.isEmpty {
            let jobs = corpus.flatMap(\.jobs)
            let ratios = jobs.map(\.ratio).sorted()
            let within = jobs.filter { $0.ratio <= 1.5 + 1e-9 }.count
            let share = Double(within) / Double(max(1, jobs.count))
            let p50 = CorpusBench.Row.quantile(ratios, 0.5)
            let worst = ratios.last ?? 0
            let worstError = jobs.map(\.maxError).max() ?? 0
            let violations = jobs.map(\.invariants.total).reduce(0, +)
            goals.append(
                Goal(
                    name: "corpus: pushes per job",
                    target: "≥ 95 % within 1.5 × oracle, all within 2 ×, p50 ≤ 1.2 ×",
                    measured: "\(Self.fixed(share * 100, 1)) % within 1.5 ×, max \(Self.fixed(worst, 2)) ×, "
                        + "p50 \(Self.fixed(p50, 2)) × (\(jobs.count) jobs)",
                    met: share >= 0.95 && worst <= 2 + 1e-9 && p50 <= 1.2 + 1e-9))
            goals.append(
                Goal(
                    name: "corpus: display error", target: "≤ \(Self.fixed(epsilon, 2)) on every job",
                    measured: "max \(Self.fixed(worstError, 4)); "
                        + "\(jobs.filter { $0.maxError > epsilon + 1e-9 }.count) jobs over",
                    met: worstError <= epsilon + 1e-9))
            goals.append(
                Goal(
                    name: "corpus: invariants", target: "0 violations", measured: "\(violations)",
                    met: violations == 0))
        }
        if let month, month.lines.count >= 2 {
            let budgeted = month.lines[1]
            let drawn = MonthBench.Summary(month)
            let months = [drawn] + month.others
            let freeLimit = MonthBench.freeOracleFactor * Double(month.oracleUpdates)
            goals.append(
                Goal(
                    name: "typical month, no budget",
                    target: "≤ \(Self.fixed(MonthBench.freeOracleFactor, 1)) × the month's oracle",
                    measured:
                        "\(drawn.freeUpdates) (oracle \(month.oracleUpdates), \(Self.fixed(freeLimit, 0)) allowed)"
                        + Self.otherFreeMonths(month.others),
                    met: months.allSatisfy(\.freeMet)))
            goals.append(
                Goal(
                    name: "typical month, monthlyBudget \(month.budget)",
                    target: "≤ \(month.budget) updates, ≥ \(Self.fixed(MonthBench.budgetTolerantShare * 100, 0)) % of "
                        + "jobs within \(Self.fixed(MonthBench.budgetTolerance, 2))",
                    measured: "\(drawn.budgetedUpdates), \(drawn.withinTolerance) of \(drawn.jobs) jobs within "
                        + "\(Self.fixed(MonthBench.budgetTolerance, 2)) (\(budgeted.jobsOverEpsilon) over ε); "
                        + "the oracle needs \(month.budgetFloor) for it" + Self.otherBudgetedMonths(month),
                    met: months.allSatisfy { $0.budgetMet(month.budget) }))
        }
        if let latency = latency?.first {
            var measured = "\(Self.milliseconds(latency.p99)) ms"
            if let memory = self.latency?.first(where: { $0.store == .memory }), latency.store == .files {
                measured += " (\(Self.milliseconds(memory.p99)) ms with the state in memory)"
            }
            goals.append(
                Goal(
                    name: "latency p99", target: "< 5 ms", measured: measured,
                    met: latency.p99 < 0.005 && latency.violations.isEmpty))
        }
        if let resources {
            let megabytes = Double(resources.peakRSSKiB) / 1024
            goals.append(
                Goal(
                    name: "RSS", target: "< 20 MB", measured: "\(Self.fixed(megabytes, 1)) MiB peak (VmHWM)",
                    met: megabytes < 20 * 1_000_000 / 1_048_576))
            goals.append(
                Goal(
                    name: "idle CPU", target: "< 0.5 % of a core",
                    measured: "\(Self.fixed(resources.idle.cpuPercent, 2)) % over \(Int(resources.idle.seconds)) s",
                    met: resources.idle.cpuPercent < 0.5))
        }
        if let soak { goals += soakGoals(soak) }
        return goals
    }

    private func soakGoals(_ soak: SoakBench.Result) -> [Goal] {
        let clean = soak.violations.isEmpty && soak.refused == 0 && soak.ended == soak.jobs
        return [
            Goal(
                name: "soak: time per request", target: "last thousand ≤ 1.5 × the first",
                measured: "\(Self.fixed(soak.slowdown, 2)) × (\(Self.milliseconds(soak.first.mean)) → "
                    + "\(Self.milliseconds(soak.last.mean)) ms mean over \(soak.jobs) jobs)",
                met: soak.slowdown <= 1.5 && clean),
            Goal(
                name: "soak: RSS growth", target: "< 5 MiB",
                measured: "\(Self.fixed(Double(soak.rssGrowthKiB) / 1024, 1)) MiB from the first thousand jobs to "
                    + "the last (\(Self.fixed(Double(soak.rssWarmKiB) / 1024, 1)) → "
                    + "\(Self.fixed(Double(soak.rssEndKiB) / 1024, 1)) MiB; "
                    + "\(Self.fixed(Double(soak.rssStartKiB) / 1024, 1)) MiB after start-up)",
                met: soak.rssGrowthKiB < 5 * 1024),
            Goal(
                name: "soak: data directory once all jobs ended", target: "< 200 KB",
                measured: "\(soak.dataBytes) bytes in \(soak.dataFiles) files", met: soak.dataBytes < 200_000 && clean),
            Goal(
                name: "soak: start-up with that history", target: "< 200 ms",
                measured: "\(Self.milliseconds(soak.startupHistory)) ms (median) "
                    + "(\(Self.milliseconds(soak.startupEmpty)) ms on an empty data directory)",
                met: soak.startupHistory < 0.2 && soak.resumedNothing),
        ]
    }

    // MARK: - Markdown

    func markdown() -> String {
        var lines: [String] = []
        lines.append("## LiveBridge benchmarks\(quick ? " (quick run)" : "")")
        lines.append("")
        lines.append(
            "`\(commandLine)` — \(machine.date), \(machine.build) build, \(machine.processors) cores "
                + "(\(machine.cpuModel)), \(machine.kernel), "
                + "load average \(Self.fixed(machine.loadAverage, 2)) at the start"
        )
        lines.append("")
        let goals = self.goals
        if !goals.isEmpty {
            lines.append("### Goals")
            lines.append("")
            lines.append("| goal | target | measured | met |")
            lines.append("|---|---|---|---|")
            for goal in goals {
                let met = goal.met.map { $0 ? "yes" : "**no**" } ?? "—"
                lines.append("| \(goal.name) | \(goal.target) | \(goal.measured) | \(met) |")
            }
            lines.append("")
        }
        if let economy { lines += economyLines(economy) }
        if let corpus { lines += corpusLines(corpus) }
        if let month { lines += monthLines(month) }
        if let latency { lines += latencyLines(latency) }
        if let throughput { lines += throughputLines(throughput) }
        if let resources { lines += resourceLines(resources) }
        if let soak { lines += soakLines(soak) }
        if !failures.isEmpty {
            lines.append("### Not measured")
            lines.append("")
            for failure in failures { lines.append("- \(failure)") }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    private func economyLines(_ jobs: [EconomyBench.JobResult]) -> [String] {
        var lines = [
            "### 1. Pushes per job (ε = \(Self.fixed(epsilon, 2)), PushWard's interpolating display, 1 s grid)",
            "",
            "| job | source | length | obs. | LiveBridge pushes | max err | mean err | oracle | ratio | "
                + "beyond card changes | fixed 5 s/30 s pushes | max err | mean err | goal |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|",
        ]
        for job in jobs {
            lines.append(
                "| \(job.name) | \(job.origin) | \(Self.duration(job.duration)) | \(job.observations) | "
                    + "\(job.liveBridge.pushes) | \(Self.fixed(job.liveBridge.maxError, 4)) | "
                    + "\(Self.fixed(job.liveBridge.meanError, 4)) | \(job.oracle) | \(Self.fixed(job.ratio, 2)) | "
                    + "\(job.progressPushes) | "
                    + "\(job.fixed.pushes) | \(Self.fixed(job.fixed.maxError, 4)) | "
                    + "\(Self.fixed(job.fixed.meanError, 4)) | "
                    + "\(job.meetsGoal(epsilon: epsilon) ? "met" : "**missed**") |")
        }
        let extra = jobs.first?.extraEndFrames ?? 0
        lines.append("")
        let twoPhase = extra > 0 ? "; LiveBridge's two-phase end sends \(extra + 1)" : ""
        lines.append(
            "Pushes count every frame (seed, updates, end frames\(twoPhase)). Oracle: the fewest pushes keeping "
                + "every grid point within ε, with a push at the seed, at each change of the card's text or phase, "
                + "and one to end. Ratio = (LiveBridge pushes − \(extra) extra end frame) ÷ oracle.")
        lines.append("")
        return lines
    }

    private func corpusLines(_ rows: [CorpusBench.Row]) -> [String] {
        let variants = rows.first?.jobs.count ?? 0
        var lines = [
            "### 1b. The generated corpus (\(rows.count) families × \(variants) seeded variants, ε = \(Self.fixed(epsilon, 2)))",
            "",
            "| family | jobs | mean pushes | ratio p50 | p95 | max | max err | oscillation | absurd countdown | "
                + "stale number | within window | bar back | honest oracle: p50 | within 1.5 × |",
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for row in rows {
            let invariants = row.invariants
            lines.append(
                "| \(row.family) | \(row.jobs.count) | \(Self.fixed(row.meanPushes, 1)) | \(Self.fixed(row.p50, 2)) | "
                    + "\(Self.fixed(row.p95, 2)) | \(Self.fixed(row.maxRatio, 2)) | \(Self.fixed(row.maxError, 4)) | "
                    + "\(invariants.oscillations) | \(invariants.absurdCountdowns) | \(invariants.staleNumbers) | "
                    + "\(invariants.coalescing) | \(invariants.backwards) | \(Self.fixed(row.honestP50, 2)) | "
                    + "\(row.withinHonest) |")
        }
        lines.append("")
        lines.append(
            "Ratio = (pushes − 1 extra end frame) ÷ the oracle's pushes (a push at each card change, as above). "
                + "Families: " + rows.map { "`\($0.family)` \($0.summary)" }.joined(separator: "; ") + ".")
        lines.append("")
        if let causalPrints, !causalPrints.isEmpty {
            let held = causalPrints.map { "\($0.held) of \($0.of) `\($0.family)`" }.joined(separator: ", ")
            lines.append(
                "A sender that cannot see the future (the card change aimed at the source's finish, one correction "
                    + "from the print's own pace once the bar is 0.9 ε off the count) holds \(held) prints within ε "
                    + "with that one correction; 1.5 × the oracle's three pushes allows one (`CausalReference`).")
            lines.append("")
        }
        return lines
    }

    /// The middle of `sorted` (the mean of the two middle values of an even count).
    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// "; N other months: a–b × their oracle (median m)", or nothing without other months.
    static func otherFreeMonths(_ others: [MonthBench.Summary]) -> String {
        let ratios = others.map(\.freeRatio).sorted()
        guard let low = ratios.first, let high = ratios.last else { return "" }
        return "; \(others.count) other months: \(fixed(low, 2))–\(fixed(high, 2)) × their oracle "
            + "(median \(fixed(median(ratios), 2)))"
    }

    /// "; N other months: a–b of J jobs within 0.05 (median m), ≤ budget in k", or nothing.
    static func otherBudgetedMonths(_ month: MonthBench.Result) -> String {
        let within = month.others.map { Double($0.withinTolerance) }.sorted()
        guard let low = within.first, let high = within.last, let jobs = month.others.first?.jobs else { return "" }
        let kept = month.others.filter { $0.budgetedUpdates <= month.budget }.count
        return "; \(month.others.count) other months: \(fixed(low, 0))–\(fixed(high, 0)) of \(jobs) jobs within "
            + "\(fixed(MonthBench.budgetTolerance, 2)) (median \(fixed(median(within), 1))), "
            + "\(kept) of \(month.others.count) within \(month.budget) updates"
    }

    private func monthLines(_ month: MonthBench.Result) -> [String] {
        let jobs = BenchJobKind.allCases.compactMap { kind in
            month.jobs[kind.rawValue].map { "\($0) \(kind.rawValue)s" }
        }
        var lines = [
            "### 2. A typical month (\(jobs.joined(separator: ", ")); free tier: \(month.budget) updates)",
            "",
            "| policy | updates | of \(month.budget) | max err | mean err | jobs over ε | "
                + "jobs over \(Self.fixed(MonthBench.budgetTolerance, 2)) |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for line in month.lines {
            let share = Double(line.updates) / Double(month.budget) * 100
            lines.append(
                "| \(line.policy) | \(line.updates) | \(Self.fixed(share, 0)) % | \(Self.fixed(line.maxError, 4)) | "
                    + "\(Self.fixed(line.meanError, 4)) | \(line.jobsOverEpsilon) | \(line.jobsOverBudgetTolerance) |")
        }
        lines.append(
            "| oracle (sum over the jobs) | \(month.oracleUpdates) | "
                + "\(Self.fixed(Double(month.oracleUpdates) / Double(month.budget) * 100, 0)) % | ≤ ε | | 0 | 0 |")
        let closeJobs = month.budgetFloorJobs
        lines.append(
            "| oracle, \(closeJobs) jobs within \(Self.fixed(MonthBench.budgetTolerance, 2)), card changes folded | "
                + "\(month.budgetFloor) | \(Self.fixed(Double(month.budgetFloor) / Double(month.budget) * 100, 0)) % | "
                + "| | | \(month.lines[0].jobCount - closeJobs) |")
        lines.append("")
        lines.append(
            "The last row is the least the budget goal can cost: the fewest updates keeping the cheapest "
                + "\(Self.fixed(MonthBench.budgetTolerantShare * 100, 0)) % of the jobs within "
                + "\(Self.fixed(MonthBench.budgetTolerance, 2)), knowing the future and with every change of the "
                + "card's text or phase folded into a progress push; the other jobs get a start and an end.")
        lines.append("")
        for line in month.lines where !line.reasons.isEmpty {
            let parts = line.reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }
            lines.append("\(line.policy) by reason: \(parts.joined(separator: ", ")).")
            lines.append("")
        }
        if let day = month.budgetExhaustedDay {
            lines.append(
                "With `monthlyBudget: \(month.budget)` the budget was spent on day \(Self.fixed(day, 1)) of 30; after "
                    + "that only starts and ends go out (counted above; the service refuses what exceeds its quota).")
            lines.append("")
        }
        if !month.others.isEmpty {
            lines.append(
                "The same month drawn from other seeds (which trajectory each job replays, and when): the goals "
                    + "hold only if they hold in every one.")
            lines.append("")
            lines.append(
                "| seed | updates, no budget | oracle | ratio | updates, monthlyBudget \(month.budget) | "
                    + "jobs within \(Self.fixed(MonthBench.budgetTolerance, 2)) |")
            lines.append("|--:|--:|--:|--:|--:|--:|")
            for other in month.others {
                lines.append(
                    "| \(other.seed) | \(other.freeUpdates) | \(other.oracleUpdates) | \(Self.fixed(other.freeRatio, 2)) | "
                        + "\(other.budgetedUpdates) | \(other.withinTolerance) of \(other.jobs) |")
            }
            lines.append("")
        }
        let misses = MonthBench.budgetMisses(month).filter { $0.value.over > 0 }
            .sorted { ($1.value.over, $0.key) < ($0.value.over, $1.key) }
        if !misses.isEmpty {
            let draws = month.others.count + 1
            let parts = misses.map { "`\($0.key)` \($0.value.over) of \($0.value.jobs)" }
            lines.append(
                "With `monthlyBudget: \(month.budget)`, the jobs past \(Self.fixed(MonthBench.budgetTolerance, 2)) by "
                    + "the trajectory they replay, over the \(draws) draws: \(parts.joined(separator: ", ")); every "
                    + "other trajectory kept all its jobs within it.")
            lines.append("")
        }
        return lines
    }

    private func latencyLines(_ results: [LatencyBench.Result]) -> [String] {
        var lines = [
            "### 3. Latency: source event in → PATCH on the wire (loopback, real engine, sink and HTTP client)",
            "",
            "| engine state | events | p50 | p99 | max | mean | receiver violations |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for latency in results {
            let store =
                latency.store == .files
                ? "files, fsync per push (as `livebridge run`)" : "memory (persistence excluded)"
            lines.append(
                "| \(store) | \(latency.events) | \(Self.milliseconds(latency.p50)) ms | "
                    + "\(Self.milliseconds(latency.p99)) ms | \(Self.milliseconds(latency.max)) ms | "
                    + "\(Self.milliseconds(latency.mean)) ms | \(latency.violations.count) |")
        }
        lines.append("")
        return lines
    }

    private func throughputLines(_ rows: [ThroughputBench.Row]) -> [String] {
        var lines = [
            "### 4. Throughput on one core (median of 5 rounds)",
            "",
            "| what | rate | note |",
            "|---|--:|---|",
        ]
        for row in rows {
            let rate = row.perSecond.map { "\(Self.rate($0)) \(row.unit)" } ?? "—"
            lines.append("| \(row.name) | \(rate) | \(row.note) |")
        }
        lines.append("")
        return lines
    }

    private func resourceLines(_ resources: ResourceBench.Result) -> [String] {
        [
            "### 5. Memory and CPU of `livebridge run` (\(resources.sources) sources, \(resources.sinks) sinks: "
                + "PushWard → loopback receiver, console)",
            "",
            "| phase | seconds | CPU (% of one core) | max RSS |",
            "|---|--:|--:|--:|",
            "| idle | \(Int(resources.idle.seconds.rounded())) | \(Self.fixed(resources.idle.cpuPercent, 2)) % | "
                + "\(Self.fixed(Double(resources.idle.maxRSSKiB) / 1024, 1)) MiB |",
            "| busy (\(resources.busyEvents) API updates, \(resources.busyPushes) pushes) | "
                + "\(Int(resources.busy.seconds.rounded())) | \(Self.fixed(resources.busy.cpuPercent, 2)) % | "
                + "\(Self.fixed(Double(resources.busy.maxRSSKiB) / 1024, 1)) MiB |",
            "",
            "Peak RSS over the whole run (VmHWM, start-up included): "
                + "\(Self.fixed(Double(resources.peakRSSKiB) / 1024, 1)) MiB, of which at the end "
                + "\(Self.fixed(Double(resources.anonymousKiB) / 1024, 1)) MiB anonymous (heap, stacks) and "
                + "\(Self.fixed(Double(resources.fileKiB) / 1024, 1)) MiB file-backed (the executable and shared "
                + "libraries' pages). Receiver violations: \(resources.violations.count). "
                + "Stop: \(Self.describe(resources.stop)).",
            "",
        ] + residentFileLines(resources)
    }

    /// Where the resident pages are (`/proc/<pid>/smaps`): the executable, the heap and other
    /// anonymous memory, each shared library.
    private func residentFileLines(_ resources: ResourceBench.Result) -> [String] {
        guard !resources.files.isEmpty else { return [] }
        func name(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }
        func mebibytes(_ kibibytes: Int) -> String { Self.fixed(Double(kibibytes) / 1024, 1) }
        let binaryName = name(resources.binary)
        let isExecutable = { (path: String) in path.hasPrefix("/") && name(path) == binaryName }
        let executable = resources.files.filter { isExecutable($0.path) }.reduce(0) { $0 + $1.kibibytes }
        let libraries = resources.files.filter { $0.path.hasPrefix("/") && !isExecutable($0.path) }
        let anonymous = resources.files.filter { !$0.path.hasPrefix("/") }.reduce(0) { $0 + $1.kibibytes }
        let listed = libraries.filter { $0.kibibytes >= 100 }.map { "\(name($0.path)) \(mebibytes($0.kibibytes))" }
        return [
            "By mapping at the end (`/proc/<pid>/smaps`; a file's mapping counts the pages written in it): "
                + "LiveBridge's own \(mebibytes(executable + anonymous)) MiB — the executable `\(binaryName)` "
                + "\(mebibytes(executable)) MiB (with the Swift runtime it links statically) and the heap, stacks "
                + "and other anonymous memory \(mebibytes(anonymous)) MiB —, shared libraries "
                + "\(mebibytes(libraries.reduce(0) { $0 + $1.kibibytes })) MiB (MiB each: "
                + "\(listed.joined(separator: ", "))).",
            "",
        ]
    }

    private func soakLines(_ soak: SoakBench.Result) -> [String] {
        func mebibytes(_ kibibytes: Int) -> String { "\(Self.fixed(Double(kibibytes) / 1024, 1)) MiB" }
        func row(_ name: String, _ window: SoakBench.Window) -> String {
            "| \(name) | \(window.requests) | \(Self.milliseconds(window.mean)) ms | "
                + "\(Self.milliseconds(window.p50)) ms | \(Self.milliseconds(window.p99)) ms |"
        }
        return [
            "### 6. Soak: \(soak.jobs) jobs with slugs of their own through `livebridge run` "
                + "(activities API → PushWard → loopback receiver; tombstones \(Int(soak.tombstoneTTL)) s, "
                + "endDisplay \(soak.endDisplay.map { "\($0) s" } ?? "4 s"), coalesceWindow 0, "
                + "at most \(SoakBench.inFlight) jobs under way)",
            "",
            "| requests | count | mean | p50 | p99 |",
            "|---|--:|--:|--:|--:|",
            row("first thousand", soak.first),
            row("last thousand", soak.last),
            "",
            "Mean per tenth of the \(soak.requests) requests: "
                + soak.tenths.map { Self.milliseconds($0) }.joined(separator: ", ") + " ms.",
            "",
            "RSS \(mebibytes(soak.rssStartKiB)) after start-up, \(mebibytes(soak.rssWarmKiB)) after the first "
                + "thousand jobs, \(mebibytes(soak.rssEndKiB)) at the end (peak \(mebibytes(soak.peakRSSKiB))). "
                + "Data directory once every job ended: \(soak.dataBytes) bytes in \(soak.dataFiles) files. "
                + "Start-up: \(Self.milliseconds(soak.startupEmpty)) ms on an empty data directory, "
                + "\(Self.milliseconds(soak.startupHistory)) ms on this one (median of the restarts)"
                + (soak.resumedNothing ? " (nothing to resume)" : " (**it resumed activities**)") + ". "
                + "Receiver: \(soak.ended) ended, \(soak.creates) creates, \(soak.patches) patches, "
                + "\(soak.violations.count) violations; \(soak.refused) API requests not accepted.",
            "",
        ]
    }

    static func describe(_ stop: BenchChildProcess.StopOutcome) -> String {
        switch stop {
        case .terminated(let seconds): "exited \(fixed(seconds, 2)) s after SIGTERM"
        case .killed: "**ignored SIGTERM for 10 s and was killed**"
        case .exitedEarlier: "had exited before the stop"
        }
    }

    // MARK: - JSON

    func json() -> String {
        var root: [String: JSONValue] = [
            "command": .string(commandLine), "quick": .bool(quick), "epsilon": .number(epsilon),
            "machine": [
                "processors": .int(Int64(machine.processors)), "cpu": .string(machine.cpuModel),
                "kernel": .string(machine.kernel), "build": .string(machine.build), "date": .string(machine.date),
                "loadAverage": .number(machine.loadAverage),
            ],
            "goals": .array(
                goals.map {
                    [
                        "name": .string($0.name), "target": .string($0.target), "measured": .string($0.measured),
                        "met": $0.met.map(JSONValue.bool) ?? .null,
                    ]
                }),
            "failures": .array(failures.map(JSONValue.string)),
        ]
        if let economy {
            root["economy"] = .array(
                economy.map { job in
                    [
                        "name": .string(job.name), "kind": .string(job.kind.rawValue), "origin": .string(job.origin),
                        "summary": .string(job.summary), "duration": .number(job.duration.rounded()),
                        "observations": .int(Int64(job.observations)),
                        "livebridge": figures(job.liveBridge), "fixed": figures(job.fixed),
                        "oracle": .int(Int64(job.oracle)), "oracleMandatory": .int(Int64(job.oracleMandatory)),
                        "oracleMaxError": .number(Self.round(job.oracleMaxError)),
                        "ratio": .number(Self.round(job.ratio)),
                        "extraEndFrames": .int(Int64(job.extraEndFrames)),
                        "meetsGoal": .bool(job.meetsGoal(epsilon: epsilon)),
                        "reasons": .object(job.reasons.mapValues { .int(Int64($0)) }),
                    ]
                })
        }
        if let causalPrints {
            root["causalPrints"] = .array(
                causalPrints.map {
                    ["family": .string($0.family), "held": .int(Int64($0.held)), "of": .int(Int64($0.of))]
                })
        }
        if let corpus {
            root["corpus"] = .array(
                corpus.map { row in
                    let invariants = row.invariants
                    return [
                        "family": .string(row.family), "summary": .string(row.summary),
                        "jobs": .int(Int64(row.jobs.count)), "meanPushes": .number(Self.round(row.meanPushes)),
                        "ratioP50": .number(Self.round(row.p50)), "ratioP95": .number(Self.round(row.p95)),
                        "ratioMax": .number(Self.round(row.maxRatio)), "maxError": .number(Self.round(row.maxError)),
                        "invariants": [
                            "oscillations": .int(Int64(invariants.oscillations)),
                            "absurdCountdowns": .int(Int64(invariants.absurdCountdowns)),
                            "staleNumbers": .int(Int64(invariants.staleNumbers)),
                            "withinCoalescingWindow": .int(Int64(invariants.coalescing)),
                            "barBackwards": .int(Int64(invariants.backwards)),
                        ],
                        "variants": .array(
                            row.jobs.map { job in
                                [
                                    "seed": .int(Int64(job.seed)), "pushes": .int(Int64(job.pushes)),
                                    "oracle": .int(Int64(job.oracle)), "ratio": .number(Self.round(job.ratio)),
                                    "honestOracle": .int(Int64(job.honestOracle)),
                                    "honestRatio": .number(Self.round(job.honestRatio)),
                                    "maxError": .number(Self.round(job.maxError)),
                                    "invariants": .int(Int64(job.invariants.total)),
                                ]
                            }),
                    ]
                })
        }
        if let month {
            root["month"] = [
                "budget": .int(Int64(month.budget)), "oracle": .int(Int64(month.oracleUpdates)),
                "budgetFloor": .int(Int64(month.budgetFloor)),
                "budgetExhaustedDay": month.budgetExhaustedDay.map { .number(Self.round($0)) } ?? .null,
                "others": .array(
                    month.others.map {
                        [
                            "seed": .int(Int64($0.seed)), "freeUpdates": .int(Int64($0.freeUpdates)),
                            "oracle": .int(Int64($0.oracleUpdates)), "budgetedUpdates": .int(Int64($0.budgetedUpdates)),
                            "withinTolerance": .int(Int64($0.withinTolerance)), "jobs": .int(Int64($0.jobs)),
                        ]
                    }),
                "jobs": .object(month.jobs.mapValues { .int(Int64($0)) }),
                "budgetMisses": .object(
                    MonthBench.budgetMisses(month).mapValues {
                        ["jobs": .int(Int64($0.jobs)), "over": .int(Int64($0.over))]
                    }),
                "policies": .array(
                    month.lines.map {
                        [
                            "policy": .string($0.policy), "updates": .int(Int64($0.updates)),
                            "maxError": .number(Self.round($0.maxError)),
                            "meanError": .number(Self.round($0.meanError)),
                            "jobsOverEpsilon": .int(Int64($0.jobsOverEpsilon)),
                            "jobsOverBudgetTolerance": .int(Int64($0.jobsOverBudgetTolerance)),
                            "jobs": .int(Int64($0.jobCount)),
                            "reasons": .object($0.reasons.mapValues { .int(Int64($0)) }),
                        ]
                    }),
            ]
        }
        if let latency {
            root["latency"] = .array(
                latency.map { latency in
                    [
                        "store": .string(latency.store.rawValue), "events": .int(Int64(latency.events)),
                        "p50": .number(latency.p50), "p99": .number(latency.p99), "max": .number(latency.max),
                        "mean": .number(latency.mean), "violations": .array(latency.violations.map(JSONValue.string)),
                    ]
                })
        }
        if let throughput {
            root["throughput"] = .array(
                throughput.map {
                    [
                        "name": .string($0.name), "unit": .string($0.unit),
                        "perSecond": $0.perSecond.map { .number($0.rounded()) } ?? .null, "note": .string($0.note),
                    ]
                })
        }
        if let resources {
            root["resources"] = [
                "binary": .string(resources.binary), "sources": .int(Int64(resources.sources)),
                "sinks": .int(Int64(resources.sinks)), "peakRSSKiB": .int(Int64(resources.peakRSSKiB)),
                "idle": phase(resources.idle), "busy": phase(resources.busy),
                "busyEvents": .int(Int64(resources.busyEvents)), "busyPushes": .int(Int64(resources.busyPushes)),
                "violations": .array(resources.violations.map(JSONValue.string)),
                "anonymousKiB": .int(Int64(resources.anonymousKiB)), "fileKiB": .int(Int64(resources.fileKiB)),
                "files": .array(
                    resources.files.map { ["path": .string($0.path), "KiB": .int(Int64($0.kibibytes))] }),
                "stop": .string(Self.describe(resources.stop).replacingOccurrences(of: "**", with: "")),
            ]
        }
        if let soak {
            func window(_ window: SoakBench.Window) -> JSONValue {
                [
                    "requests": .int(Int64(window.requests)), "mean": .number(Self.round(window.mean)),
                    "p50": .number(Self.round(window.p50)), "p99": .number(Self.round(window.p99)),
                ]
            }
            root["soak"] = [
                "jobs": .int(Int64(soak.jobs)), "requests": .int(Int64(soak.requests)),
                "tombstoneTTL": .number(soak.tombstoneTTL), "endDisplay": soak.endDisplay.map { .number($0) } ?? .null,
                "first": window(soak.first), "last": window(soak.last),
                "tenths": .array(soak.tenths.map { .number(Self.round($0)) }),
                "rssStartKiB": .int(Int64(soak.rssStartKiB)), "rssWarmKiB": .int(Int64(soak.rssWarmKiB)),
                "rssEndKiB": .int(Int64(soak.rssEndKiB)), "peakRSSKiB": .int(Int64(soak.peakRSSKiB)),
                "dataBytes": .int(Int64(soak.dataBytes)), "dataFiles": .int(Int64(soak.dataFiles)),
                "startupEmpty": .number(Self.round(soak.startupEmpty)),
                "startupHistory": .number(Self.round(soak.startupHistory)),
                "resumedNothing": .bool(soak.resumedNothing),
                "ended": .int(Int64(soak.ended)), "creates": .int(Int64(soak.creates)),
                "patches": .int(Int64(soak.patches)), "refused": .int(Int64(soak.refused)),
                "violations": .array(soak.violations.map(JSONValue.string)),
            ]
        }
        return JSONWriter.string(.object(root))
    }

    private func figures(_ figures: EconomyBench.Figures) -> JSONValue {
        [
            "pushes": .int(Int64(figures.pushes)), "maxError": .number(Self.round(figures.maxError)),
            "meanError": .number(Self.round(figures.meanError)),
        ]
    }

    private func phase(_ phase: ResourceBench.Phase) -> JSONValue {
        [
            "seconds": .number(Self.round(phase.seconds)), "cpuPercent": .number(Self.round(phase.cpuPercent)),
            "maxRSSKiB": .int(Int64(phase.maxRSSKiB)),
        ]
    }

    // MARK: - Formatting

    static func round(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }

    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    static func milliseconds(_ seconds: Double) -> String { fixed(seconds * 1000, 2) }

    static func duration(_ seconds: Double) -> String {
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(fixed(seconds / 3600, 1)) h"
    }

    static func rate(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return "\(fixed(perSecond / 1e6, 2)) M" }
        if perSecond >= 1e3 { return "\(fixed(perSecond / 1e3, 1)) k" }
        return fixed(perSecond, 0)
    }
}
