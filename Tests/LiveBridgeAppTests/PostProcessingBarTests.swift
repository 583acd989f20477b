import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// A download's post-processing (queued, verifying, repairing, unpacking) moves no byte: the
/// SABnzbd mapping says its progress holds (`ActivityUpdate.progressHolds`), and the bar shows the
/// count where the download left it, short of 100 % when articles were missing.
@Suite("Post-processing holds the bar at the count")
struct PostProcessingBarTests {
    static let stages: Set<String> = [
        "Queued for processing", "Quick check", "Verifying", "Repairing", "Fetching repair blocks", "Extracting",
        "Moving", "Running script",
    ]

    @Test(
        "on every SABnzbd recording, a push in post-processing shows the count with no glide, not where a glide through the last articles had the bar"
    )
    func postProcessingAtCount() throws {
        var checked = 0
        var shortOfFull = 0
        for trajectory in BenchTrajectories.standard where trajectory.name.hasPrefix("sabnzbd-") {
            let updates = try trajectory.load(directory: BenchSmokeTests.recordings).updates
            let result = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates)
            for push in result.pushes where push.frame.kind == .update {
                guard let state = push.frame.content["state"]?.stringValue, Self.stages.contains(state) else {
                    continue
                }
                let count = try #require(push.frame.truthProgress, "\(trajectory.name) at \(push.time)")
                let shown = try #require(push.frame.content["progress"]?.doubleValue)
                // The pushed progress is rounded to 1e-4 (`ActivityTracker.round`).
                #expect(
                    abs(shown - count) <= 0.5e-4 + 1e-12,
                    "\(trajectory.name) at \(push.time): \(shown) for the count \(count)")
                #expect(push.frame.content["live_progress"] == nil, "\(trajectory.name) at \(push.time): gliding")
                checked += 1
                if count < 0.99 { shortOfFull += 1 }
            }
        }
        // The recordings hold post-processing pushes, among them a download that failed short of
        // its end (the unrepairable ones: `Queued for processing` at 34 %).
        #expect(checked >= 5 && shortOfFull >= 1, "\(checked) post-processing pushes, \(shortOfFull) short of 100 %")
    }
}
