import LiveBridgeApp
import LiveBridgeCore

/// Section 1: each trajectory through the real tracker (`EconomySimulation`, virtual clock), the
/// oracle and the fixed-interval policy.
struct EconomyBench: Sendable {
    var settings = EconomySettings()
    var policy = FixedIntervalPolicy()

    /// One policy's figures on one job.
    struct Figures: Sendable {
        var pushes: Int
        var maxError: Double
        var meanError: Double
    }

    /// One job's row.
    struct JobResult: Sendable {
        var name: String
        var kind: BenchJobKind
        var origin: String
        var summary: String
        var duration: Double
        var observations: Int
        var liveBridge: Figures
        var oracle: Int
        var oracleMandatory: Int
        /// The oracle's own schedule measured on the grid (≤ ε by construction; checked).
        var oracleMaxError: Double
        var fixed: Figures
        /// Extra end frames of a two-phase end (0 or 1) allowed on top of the goal.
        var extraEndFrames: Int
        /// LiveBridge's error figures, measured independently of `EconomySimulation` (cross-check).
        var meterMaxError: Double
        /// LiveBridge's pushes by reason (`start`, `structural`, `displayError`, `etaMoved`, …).
        var reasons: [String: Int]

        /// LiveBridge's pushes beyond the seed, card changes and end frames, by reason: where the
        /// difference to the oracle goes (`etaMoved 3, deadline 1`).
        var progressPushes: String {
            let fixed: Set<String> = ["start", "structural", "final", "end", "restart"]
            let parts = reasons.filter { !fixed.contains($0.key) }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            return parts.isEmpty ? "—" : parts.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }

        /// LiveBridge's pushes, without the extra end frame, over the oracle's.
        var ratio: Double { Double(liveBridge.pushes - extraEndFrames) / Double(max(1, oracle)) }
        /// The goal: pushes ≤ 1.5 × oracle (+ the extra end frame), max error ≤ ε.
        func meetsGoal(epsilon: Double) -> Bool {
            Double(liveBridge.pushes) <= 1.5 * Double(oracle) + Double(extraEndFrames) + 1e-9
                && liveBridge.maxError <= epsilon + 1e-9
        }
    }

    func run(_ trajectories: [LoadedTrajectory]) -> [JobResult] {
        trajectories.map(run)
    }

    func run(_ trajectory: LoadedTrajectory) -> JobResult {
        let updates = trajectory.updates
        let truth = JobTruth(updates)
        let simulation = EconomySimulation(model: .interpolating, settings: settings).run(updates)
        let activity = simulation.activities.first { $0.slug == trajectory.name }
        let anchors = simulation.anchors[trajectory.name] ?? []
        let metered = DisplayErrorMeter.measure(truth, anchors: anchors)
        let oracle = PushOracle(epsilon: settings.maxDisplayError).solve(truth)
        let oracleFigures = DisplayErrorMeter.measure(truth, anchors: oracle.anchors)
        var reasons: [String: Int] = [:]
        for push in simulation.pushes where push.frame.slug == trajectory.name {
            reasons[push.frame.reason.rawValue, default: 0] += 1
        }
        let fixed = policy.run(updates)
        let fixedFigures = DisplayErrorMeter.measure(truth, anchors: fixed.anchors)
        return JobResult(
            name: trajectory.name, kind: trajectory.kind, origin: trajectory.origin, summary: trajectory.summary,
            duration: truth.end - truth.start, observations: updates.count,
            liveBridge: Figures(
                pushes: activity?.pushes ?? 0, maxError: activity?.maxError ?? 0, meanError: activity?.meanError ?? 0),
            oracle: oracle.pushes, oracleMandatory: oracle.mandatory, oracleMaxError: oracleFigures.max,
            fixed: Figures(pushes: fixed.pushes, maxError: fixedFigures.max, meanError: fixedFigures.mean),
            extraEndFrames: settings.effectiveEndFrames - 1, meterMaxError: metered.max, reasons: reasons)
    }
}
