import LiveBridgeApp
import LiveBridgeCore

/// `livebridge-bench --explain JOB`: one job's push log — every LiveBridge push with its reason
/// and anchor, and the oracle's schedule — to see where pushes beyond the oracle's go.
enum BenchExplanation {
    static func render(_ trajectory: LoadedTrajectory, settings: EconomySettings) -> String {
        let truth = JobTruth(trajectory.updates)
        let simulation = EconomySimulation(model: .interpolating, settings: settings).run(trajectory.updates)
        let oracle = PushOracle(epsilon: settings.maxDisplayError).solve(truth)
        let fixed = FixedIntervalPolicy().run(trajectory.updates)
        var lines = [
            "## \(trajectory.name): \(trajectory.summary)", "",
            "Window \(BenchReport.fixed(truth.end - truth.start, 1)) s, \(trajectory.updates.count) observations, "
                + "\(truth.changes.count) card changes; fixed-interval policy: \(fixed.pushes) pushes.", "",
            "### LiveBridge (\(simulation.totalPushes) pushes)", "",
            "| t (s) | kind | reason | state | truth | progress | end_date − t |", "|--:|---|---|---|--:|--:|--:|",
        ]
        for push in simulation.pushes {
            let frame = push.frame
            let t = push.time - truth.start
            let endDate = frame.content["end_date"]?.doubleValue.map { BenchReport.fixed($0 - push.time, 0) } ?? "—"
            let progress = frame.content["progress"]?.doubleValue.map { BenchReport.fixed($0, 4) } ?? "—"
            let truthValue = frame.truthProgress.map { BenchReport.fixed($0, 4) } ?? "—"
            lines.append(
                "| \(BenchReport.fixed(t, 1)) | \(frame.kind.rawValue) | \(frame.reason.rawValue) | "
                    + "\(frame.content["state"]?.stringValue ?? "") | \(truthValue) | \(progress) | \(endDate) |")
        }
        lines += [
            "", "### Oracle (\(oracle.pushes) pushes, \(oracle.mandatory) mandatory)", "",
            "| t (s) | progress | end_date − t |", "|--:|--:|--:|",
        ]
        for anchor in oracle.anchors {
            let endDate = anchor.endDate.map { BenchReport.fixed($0 - anchor.time, 0) } ?? "static"
            let time = BenchReport.fixed(anchor.time - truth.start, 1)
            lines.append("| \(time) | \(BenchReport.fixed(anchor.progress, 4)) | \(endDate) |")
        }
        // The worst grid point of LiveBridge's display.
        let anchors = simulation.anchors[trajectory.name] ?? []
        let times = truth.grid()
        let values = truth.values(at: times)
        var worst = (t: 0.0, error: 0.0, shown: 0.0, truth: 0.0)
        var index = 0
        for (t, value) in zip(times, values) where !anchors.isEmpty {
            while index + 1 < anchors.count, anchors[index + 1].time <= t { index += 1 }
            let shown = anchors[index].shown(at: t, model: .interpolating)
            if abs(shown - value) > worst.error { worst = (t - truth.start, abs(shown - value), shown, value) }
        }
        lines += [
            "",
            "LiveBridge's worst grid point: t = \(BenchReport.fixed(worst.t, 1)) s, "
                + "shown \(BenchReport.fixed(worst.shown, 4)), truth \(BenchReport.fixed(worst.truth, 4)), "
                + "error \(BenchReport.fixed(worst.error, 4)).",
            "",
        ]
        let pushes = simulation.pushes.filter { $0.frame.slug == trajectory.name }
        let invariants = EconomyInvariants.check(
            pushes: pushes, updates: trajectory.updates, truth: truth, settings: settings)
        lines.append("Invariant violations: \(invariants.events.isEmpty ? "none" : "\(invariants.events.count)").")
        for event in invariants.events {
            lines.append("- t = \(BenchReport.fixed(event.time - truth.start, 1)) s: \(event.what)")
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }
}
