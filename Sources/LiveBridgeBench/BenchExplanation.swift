import LiveBridgeApp
import LiveBridgeCore

/// `livebridge-bench --explain JOB`: one job's push log — every LiveBridge push with its reason
/// and anchor, and the oracle's schedule — to see where pushes beyond the oracle's go.
enum BenchExplanation {
    static func render(_ trajectory: LoadedTrajectory, settings: EconomySettings, trace: Bool = false) -> String {
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
        // From the first anchor on, as the error is measured (before it there is no card).
        for (t, value) in zip(times, values) where !anchors.isEmpty && t >= anchors[0].time {
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
        if trace { lines += observationLog(trajectory, pushes: pushes, anchors: anchors, start: truth.start) }
        return lines.joined(separator: "\n")
    }

    /// Every observation in time order, with the pushes between them, and what the phone showed at
    /// each observation's progress time: where a bar left the truth, and what the source said then.
    static func observationLog(
        _ trajectory: LoadedTrajectory, pushes: [EconomySimulation.Push], anchors: [DisplayAnchor], start: Double
    ) -> [String] {
        var lines = [
            "### Observations", "",
            "| t (s) | progress at | progress | source left | state | shown | error | push |",
            "|--:|--:|--:|--:|---|--:|--:|---|",
        ]
        func shown(at t: Double) -> Double? {
            guard let anchor = anchors.last(where: { $0.time <= t }) else { return nil }
            return anchor.shown(at: t, model: .interpolating)
        }
        var next = 0
        for update in trajectory.updates {
            let t = update.observedAt ?? start
            while next < pushes.count, pushes[next].time <= t {
                let push = pushes[next]
                let endDate = push.frame.content["end_date"]?.doubleValue.map { BenchReport.fixed($0 - push.time, 0) }
                lines.append(
                    "| \(BenchReport.fixed(push.time - start, 1)) | | | | | | | \(push.frame.reason.rawValue) → "
                        + "\(push.frame.content["progress"]?.doubleValue.map { BenchReport.fixed($0, 4) } ?? "—"), "
                        + "end \(endDate ?? "—") |")
                next += 1
            }
            let progressAt = update.progressObservedAt ?? t
            let left = update.eta.map { BenchReport.fixed($0.finish(observedAt: t) - t, 0) } ?? "—"
            let bar = shown(at: progressAt)
            var error: Double?
            if let bar, let progress = update.progress { error = abs(bar - progress) }
            lines.append(
                "| \(BenchReport.fixed(t - start, 1)) | \(BenchReport.fixed(progressAt - start, 1)) | "
                    + "\(update.progress.map { BenchReport.fixed($0, 4) } ?? "—") | \(left) | "
                    + "\(update.content.state.value ?? "") | \(bar.map { BenchReport.fixed($0, 4) } ?? "—") | "
                    + "\(error.map { BenchReport.fixed($0, 4) } ?? "—") | |")
        }
        lines.append("")
        return lines
    }
}
