import LiveBridgeCore
import LiveBridgeKit
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// One corpus family's seeded jobs through the tracker, measured as the bench measures them (the
/// oracles aside): the family-level figures a test of one mechanism compares with the mechanism
/// on and off.
enum CorpusFamilyRun {
    struct Outcome {
        var pushes = 0
        /// Jobs whose bar was more than ε from the truth at some moment.
        var overEpsilon = 0
        /// The largest distance between the bar and the truth over the family's jobs.
        var maxError = 0.0
        /// `end_date` moves reversed within a few minutes (`EconomyInvariants.oscillations`).
        var reversals = 0
        /// Re-anchors at a passing `end_date`.
        var deadlines = 0
    }

    static func run(_ name: String, _ settings: EconomySettings) -> Outcome {
        guard let index = Corpus.families.firstIndex(where: { $0.name == name }) else {
            Issue.record("no corpus family \(name)")
            return Outcome()
        }
        let family = Corpus.families[index]
        let bench = CorpusBench(settings: settings)
        var outcome = Outcome()
        for variant in 0..<Corpus.variants {
            let seed = CorpusBench.seed(family: index, variant: variant)
            let job = bench.play(family.generate(seed, ReplayCommand.base))
            outcome.pushes += job.pushes.count
            outcome.reversals += job.invariants.oscillations
            outcome.deadlines += job.deadlines
            if job.maxError > settings.maxDisplayError + 1e-9 { outcome.overEpsilon += 1 }
            outcome.maxError = max(outcome.maxError, job.maxError)
        }
        return outcome
    }
}
