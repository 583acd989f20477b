import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// Prints of 6–20 hours (the corpus's `long` family): an estimate minutes off is the rule, and the
/// `end_date` pad grows with the time left (`EconomySettings.finishPadShare`), so a print ending a
/// little after it still ends before the bar would fall back.
@Suite("Long prints")
struct LongPrintsTests {
    struct Outcome {
        var pushes = 0
        var deadlines = 0
        var overEpsilon = 0
    }

    static func run(_ settings: EconomySettings) -> Outcome {
        var outcome = Outcome()
        for variant in 0..<Corpus.variants {
            let updates = Corpus.job(named: "long:\(variant)")?.updates ?? []
            #expect(!updates.isEmpty)
            let result = EconomySimulation(model: .interpolating, settings: settings).run(updates)
            outcome.pushes += result.pushes.count
            outcome.deadlines += result.pushes.filter { $0.frame.reason == .deadline }.count
            if result.maxError > settings.maxDisplayError + 1e-9 { outcome.overEpsilon += 1 }
        }
        return outcome
    }

    @Test("a pad that grows with the time left spares long prints the re-anchor at their end_date, at no cost in error")
    func padGrowsWithTimeLeft() {
        var fixed = EconomySettings()
        fixed.finishPadShare = 0
        let grown = Self.run(EconomySettings())
        let twoMinutes = Self.run(fixed)
        #expect(
            grown.deadlines < twoMinutes.deadlines, "\(grown.deadlines) deadlines, \(twoMinutes.deadlines) with 2 min")
        #expect(grown.pushes < twoMinutes.pushes, "\(grown.pushes) pushes, \(twoMinutes.pushes) with 2 min")
        #expect(grown.overEpsilon <= twoMinutes.overEpsilon)
    }
}
