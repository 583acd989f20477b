import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// What must hold on every job, whatever its shape; counted per push schedule.
struct EconomyInvariants: Sendable, Hashable {
    /// Re-anchors that moved `end_date` one way and then back within `reversalWindow`.
    var oscillations = 0
    /// An estimated `end_date` (not a source's fixed finish) beyond 24 h, or more than 3 × what
    /// the job's recent pace supports plus 10 minutes ahead.
    var absurdCountdowns = 0
    /// A push whose card text (state or subtitle) is not what the latest observation says.
    var staleNumbers = 0
    /// Two pushes of one activity within the coalescing window.
    var coalescing = 0
    /// A push that moves the bar back by more than `backwardsTolerance` while the bar was not
    /// ahead of the latest count: the percentage going down while the job did not (a bar ahead
    /// of the count is corrected down to it, and may lean a little past it) — or a bar ahead of
    /// the count to more than ε below it, further than it was above: a correction that leaves
    /// the bar further from the count than it found it; or a glide whose `end_date` passed before
    /// the next push, falling back more than ε below the count (`fellBack`).
    var backwards = 0
    /// Where each violation happened (push time, what), for `--explain`.
    var events: [Event] = []

    struct Event: Sendable, Hashable {
        var time: Double
        var what: String
    }

    var total: Int { oscillations + absurdCountdowns + staleNumbers + coalescing + backwards }

    static func + (a: Self, b: Self) -> Self {
        Self(
            oscillations: a.oscillations + b.oscillations, absurdCountdowns: a.absurdCountdowns + b.absurdCountdowns,
            staleNumbers: a.staleNumbers + b.staleNumbers, coalescing: a.coalescing + b.coalescing,
            backwards: a.backwards + b.backwards, events: a.events + b.events)
    }

    /// "Within a few minutes": a reversal later than this is a real change of mind.
    static let reversalWindow = 300.0
    /// `end_date` moves smaller than this are rounding, not a direction.
    static let reversalMinimum = 30.0
    /// A bar moved back by less than half a percentage point shows the same whole percentage.
    static let backwardsTolerance = 0.005

    /// How far back "the job's recent pace" looks.
    static let recentPaceWindow = 300.0
    /// A pace over less than this is not a pace yet.
    static let recentPaceMinimum = 30.0

    /// The remaining time the observations up to `time` support: what is left at the pace of
    /// the last `recentPaceWindow` (since the last card change, and from the job's first advance
    /// on); nil while that pace spans under `recentPaceMinimum` or
    /// the job did not move (a stall supports no countdown, judged by the 24 h rule alone).
    static func supportedRemaining(_ truth: JobTruth, at time: Double) -> Double? {
        // A card change (a job joining a session, a phase) starts a new stretch: the pace before
        // it is in other units.
        let since = max(time - recentPaceWindow, truth.changes.last { $0 <= time } ?? -.infinity)
        var recent = truth.samples.filter { $0.time <= time && $0.time >= since }
        // The job's first advance is what the source counted before the job moved at its speed
        // (a repair's missing articles counted at once), not its pace: from the start the pace
        // is measured from that advance on.
        if let start = truth.samples.first, recent.first?.time == start.time,
            let moved = recent.firstIndex(where: { $0.progress > start.progress })
        {
            recent.removeFirst(moved)
        }
        guard let first = recent.first, let last = recent.last, last.time - first.time >= recentPaceMinimum,
            last.progress > first.progress
        else { return nil }
        let pace = (last.progress - first.progress) / (last.time - first.time)
        return (1 - last.progress) / pace
    }

    /// A glide whose `end_date` passed before the next push (`before`) while the latest count was
    /// more than ε above its pushed progress: the bar fell back to that progress with nothing
    /// pushed (PushWard reference §12), the percentage going down while the job did not.
    static func fellBack(
        _ anchor: DisplayAnchor?, before time: Double, updates: [ActivityUpdate], settings: EconomySettings
    )
        -> Event?
    {
        guard let anchor, anchor.live, let endDate = anchor.endDate, endDate > anchor.time, endDate < time,
            let count = updates.last(where: { ($0.observedAt ?? .infinity) <= endDate })?.progress,
            count - anchor.progress > settings.maxDisplayError
        else { return nil }
        return Event(
            time: endDate,
            what: "bar fell back to \(BenchReport.fixed(100 * anchor.progress, 1)) % when end_date passed, count "
                + "\(BenchReport.fixed(100 * count, 1)) %, next push \(BenchReport.fixed(time - endDate, 1)) s later")
    }

    /// Checks one job's pushes against its observations.
    static func check(
        pushes: [EconomySimulation.Push], updates: [ActivityUpdate], truth: JobTruth, settings: EconomySettings
    ) -> EconomyInvariants {
        var result = EconomyInvariants()
        let sorted = updates.sorted { ($0.observedAt ?? 0) < ($1.observedAt ?? 0) }
        var updateIndex = 0
        var lastEndDate: Double?
        var lastDirection: (time: Double, later: Bool)?
        var previousTime: Double?
        var shown: DisplayAnchor?
        for push in pushes {
            let frame = push.frame
            defer {
                if frame.kind != .end, let anchor = frame.displayAnchor(at: push.time) { shown = anchor }
            }
            if let fallback = fellBack(shown, before: push.time, updates: sorted, settings: settings) {
                result.backwards += 1
                result.events.append(fallback)
            }
            if let previousTime, push.time - previousTime < settings.coalesceWindow - 1e-9 {
                result.coalescing += 1
                result.events.append(Event(time: push.time, what: "coalescing"))
            }
            previousTime = push.time
            while updateIndex + 1 < sorted.count, (sorted[updateIndex + 1].observedAt ?? 0) <= push.time {
                updateIndex += 1
            }
            // Stale card text: what the latest observation says the card shows (its details
            // overlaying its content), against what the push leaves on the service.
            let latest = sorted[updateIndex]
            if frame.kind != .end, let before = shown?.shown(at: push.time, model: .interpolating),
                let count = latest.progress, let progress = frame.content["progress"]?.doubleValue,
                progress < before - backwardsTolerance,
                before <= count + backwardsTolerance
                    || (progress < count - settings.maxDisplayError && count - progress > before - count)
            {
                result.backwards += 1
                result.events.append(
                    Event(
                        time: push.time,
                        what: "bar back from \(BenchReport.fixed(100 * before, 1)) % to "
                            + "\(BenchReport.fixed(100 * progress, 1)) %, count \(BenchReport.fixed(100 * count, 1)) %")
                )
            }
            if frame.kind != .end {
                var expected = latest.content.json
                for (key, value) in latest.details.json.objectValue ?? [:] where value != .null {
                    expected[key] = value
                }
                for field in ["state", "subtitle"] {
                    let want = expected[field]?.stringValue
                    let shown = frame.content[field]?.stringValue
                    if let want, want != shown,
                        want.contains(where: \.isNumber) || (shown ?? "").contains(where: \.isNumber)
                    {
                        result.staleNumbers += 1
                        result.events.append(
                            Event(time: push.time, what: "stale \(field): \(shown ?? "—") for \(want)"))
                    }
                }
            }
            guard let endDate = frame.content["end_date"]?.doubleValue,
                frame.content["live_progress"]?.boolValue == true,
                frame.kind == .update || frame.kind == .seed
            else {
                lastEndDate = nil
                lastDirection = nil
                continue
            }
            let ahead = endDate - push.time
            let supported = supportedRemaining(truth, at: push.time)
            // A fixed finish is the source's own word (an appliance's remaining time): only a
            // countdown LiveBridge estimates must be one the recent pace supports.
            if !frame.fixedFinish, ahead > 86_400 || supported.map({ ahead > 3 * $0 + 600 }) == true {
                result.absurdCountdowns += 1
                let pace = supported.map { "\(Int($0)) s at the recent pace" } ?? "no recent pace"
                result.events.append(Event(time: push.time, what: "absurd countdown: \(Int(ahead)) s ahead, \(pace)"))
            }
            if let last = lastEndDate, abs(endDate - last) >= reversalMinimum {
                let later = endDate > last
                if let direction = lastDirection, direction.later != later, push.time - direction.time < reversalWindow
                {
                    result.oscillations += 1
                    result.events.append(
                        Event(time: push.time, what: "oscillation: end_date back \(Int(endDate - last)) s"))
                }
                lastDirection = (push.time, later)
            }
            lastEndDate = endDate
        }
        return result
    }
}

/// The corpus through the real tracker: per family, the distribution of (pushes − 1) ÷ oracle,
/// the display error and the invariants.
struct CorpusBench: Sendable {
    var settings = EconomySettings()
    /// Variants per family (`Corpus.variants` in the full bench).
    var variants = Corpus.variants
    var families = Corpus.families

    /// One variant's figures.
    struct Job: Sendable {
        var family: String
        var seed: UInt64
        var pushes: Int
        var oracle: Int
        var maxError: Double
        var invariants: EconomyInvariants
        var duration: Double
        /// (pushes − extra end frames) ÷ oracle, the issue's ratio.
        var ratio: Double
        /// The oracle whose countdowns are honest (`PushOracle.honestCountdown`): the fewest
        /// pushes for a sender that also shows the job's real finish, within the ETA tolerance.
        var honestOracle: Int
        var honestRatio: Double
    }

    /// One family's distribution.
    struct Row: Sendable {
        var family: String
        var summary: String
        var jobs: [Job]

        var ratios: [Double] { jobs.map(\.ratio).sorted() }
        var p50: Double { Self.quantile(ratios, 0.5) }
        var p95: Double { Self.quantile(ratios, 0.95) }
        var maxRatio: Double { ratios.last ?? 0 }
        var maxError: Double { jobs.map(\.maxError).max() ?? 0 }
        var honestP50: Double { Self.quantile(jobs.map(\.honestRatio).sorted(), 0.5) }
        /// Jobs within 1.5 × the honest-countdown oracle.
        var withinHonest: Int { jobs.filter { $0.honestRatio <= 1.5 + 1e-9 }.count }
        var invariants: EconomyInvariants { jobs.map(\.invariants).reduce(EconomyInvariants(), +) }
        var meanPushes: Double { Double(jobs.map(\.pushes).reduce(0, +)) / Double(max(1, jobs.count)) }

        static func quantile(_ sorted: [Double], _ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
            return sorted[index]
        }
    }

    /// Seed of variant `index` of a family: stable across runs and machines.
    static func seed(family: Int, variant: Int) -> UInt64 { UInt64(1000 * (family + 1) + variant) }

    func run() -> [Row] {
        families.enumerated().map { index, family in
            Row(
                family: family.name, summary: family.summary,
                jobs: (0..<variants).map { variant in
                    let seed = Self.seed(family: index, variant: variant)
                    return measure(family: family.name, seed: seed, family.generate(seed, ReplayCommand.base))
                })
        }
    }

    /// What LiveBridge did on one job: its pushes, its worst display error and the invariants.
    struct Played: Sendable {
        var pushes: [EconomySimulation.Push]
        var maxError: Double
        var invariants: EconomyInvariants
        var truth: JobTruth
        /// Re-anchors because `end_date` was about to pass with the job running.
        var deadlines: Int { pushes.filter { $0.frame.reason == .deadline }.count }
    }

    /// One job through the tracker and the invariant checks (no oracle).
    func play(_ updates: [ActivityUpdate]) -> Played {
        let truth = JobTruth(updates)
        let simulation = EconomySimulation(model: .interpolating, settings: settings).run(updates)
        let metered = DisplayErrorMeter.measure(truth, anchors: simulation.anchors["job"] ?? [])
        let pushes = simulation.pushes.filter { $0.frame.slug == "job" }
        let invariants = EconomyInvariants.check(pushes: pushes, updates: updates, truth: truth, settings: settings)
        return Played(pushes: pushes, maxError: metered.max, invariants: invariants, truth: truth)
    }

    /// One job through the tracker, the oracle and the invariant checks.
    func measure(family: String, seed: UInt64, _ updates: [ActivityUpdate]) -> Job {
        let played = play(updates)
        let truth = played.truth
        let oracle = PushOracle(epsilon: settings.maxDisplayError).solve(truth)
        let honest = PushOracle(
            epsilon: settings.maxDisplayError,
            honestCountdown: (settings.etaToleranceFraction, settings.etaToleranceMinimum)
        ).solve(truth)
        let pushes = played.pushes.count
        let extra = settings.effectiveEndFrames - 1
        return Job(
            family: family, seed: seed, pushes: pushes, oracle: oracle.pushes, maxError: played.maxError,
            invariants: played.invariants, duration: truth.end - truth.start,
            ratio: Double(pushes - extra) / Double(max(1, oracle.pushes)), honestOracle: honest.pushes,
            honestRatio: Double(pushes - extra) / Double(max(1, honest.pushes)))
    }
}
