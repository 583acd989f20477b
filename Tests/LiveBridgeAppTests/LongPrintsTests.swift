import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// Prints of 6–20 hours (the corpus's `long` family): an estimate minutes off is the rule, and the
/// `end_date` pad grows with the time left (`EconomySettings.finishPadShare`), so a print ending a
/// little after it still ends before the bar would fall back.
@Suite("Long prints")
struct LongPrintsTests {
    @Test(
        "a pad that grows with the time left costs long prints fewer pushes and no more end_date re-anchors than chance, the bar held"
    )
    func padGrowsWithTimeLeft() {
        var fixed = EconomySettings()
        fixed.finishPadShare = 0
        let grown = CorpusFamilyRun.run("long", EconomySettings())
        let twoMinutes = CorpusFamilyRun.run("long", fixed)
        #expect(grown.pushes < twoMinutes.pushes, "\(grown.pushes) pushes, \(twoMinutes.pushes) with 2 min")
        // With a heartbeat every 7.6 h re-anchoring them (the `stale_ttl` capped at 8 h until
        // 2026-12-04) the pad also saved a third of the deadline re-anchors. Since a slicer's
        // bias is corrected (`calibrationConfidence`) few prints outrun their estimate either
        // way: 12 against 11 of 40, seven prints one way and eight the other, so the pad adds
        // none beyond one print's chance. The glide it sets still keeps the bar within the ε the
        // tests allow a glide's rounding.
        #expect(
            grown.deadlines <= twoMinutes.deadlines + 1,
            "\(grown.deadlines) deadlines, \(twoMinutes.deadlines) with 2 min")
        #expect(grown.maxError <= EconomySettings().maxDisplayError + 0.002, "max error \(grown.maxError)")
    }
}
