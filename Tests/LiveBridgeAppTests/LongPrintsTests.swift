import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// Prints of 6–20 hours (the corpus's `long` family): an estimate minutes off is the rule, and the
/// `end_date` pad grows with the time left (`EconomySettings.finishPadShare`), so a print ending a
/// little after it still ends before the bar would fall back.
@Suite("Long prints")
struct LongPrintsTests {
    @Test("a pad that grows with the time left spares long prints the re-anchor at their end_date, at no cost in error")
    func padGrowsWithTimeLeft() {
        var fixed = EconomySettings()
        fixed.finishPadShare = 0
        let grown = CorpusFamilyRun.run("long", EconomySettings())
        let twoMinutes = CorpusFamilyRun.run("long", fixed)
        #expect(
            grown.deadlines < twoMinutes.deadlines, "\(grown.deadlines) deadlines, \(twoMinutes.deadlines) with 2 min")
        #expect(grown.pushes < twoMinutes.pushes, "\(grown.pushes) pushes, \(twoMinutes.pushes) with 2 min")
        #expect(grown.overEpsilon <= twoMinutes.overEpsilon)
    }
}
