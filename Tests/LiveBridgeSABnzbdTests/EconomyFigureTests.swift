import LiveBridgeCore
import LiveBridgeSABnzbd
import Testing

/// Pushes per job and display error of every recorded scenario through the real tracker
/// (`EconomySimulation`, PushWard's interpolating display), at the recordings' 0.5 s polls and
/// at the adapter's default 3 s. The figures are printed for the report and bounded here so a
/// regression in the mapping shows.
@Suite("Push economy of the recorded scenarios")
struct EconomyFigureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var jobs: Int
        /// Upper bounds for pushes at 0.5 s and at 3 s polling.
        var maximumPushes: (fine: Int, coarse: Int)
        var testDescription: String { path }
    }

    static let cases: [Case] = [
        Case(path: "a-steady/raw.jsonl", jobs: 1, maximumPushes: (8, 8)),
        Case(path: "c-two-jobs/raw.jsonl", jobs: 2, maximumPushes: (10, 10)),
        Case(path: "d-pause-resume/raw.jsonl", jobs: 1, maximumPushes: (10, 10)),
        Case(path: "f-failed/raw.jsonl", jobs: 1, maximumPushes: (3, 3)),
    ]

    static func figures(_ path: String, pollInterval: Double) throws -> EconomySimulation.Result {
        let updates = try Fixtures.replay(
            path, settings: RecordedScenarioTests.settings, startingAt: 1_781_517_600, pollInterval: pollInterval)
        return EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates)
    }

    @Test("pushes per job and maximum display error stay bounded", arguments: cases)
    func bounded(_ scenario: Case) throws {
        for (interval, limit) in [(0.0, scenario.maximumPushes.fine), (3.0, scenario.maximumPushes.coarse)] {
            let result = try Self.figures(scenario.path, pollInterval: interval)
            let activity = try #require(result.activities.first)
            let perJob = Double(activity.pushes) / Double(scenario.jobs)
            print(
                "economy \(scenario.path) poll=\(interval == 0 ? "0.5" : "3")s: pushes=\(activity.pushes) "
                    + "per_job=\(perJob) max_error=\(activity.maxError) mean_error=\(activity.meanError)")
            #expect(activity.pushes <= limit)
            #expect(activity.maxError <= 0.06)
            // Every activity is created and ended: seed first, end last.
            #expect(result.pushes.first?.frame.kind == .seed && result.pushes.last?.frame.kind == .end)
        }
    }
}
