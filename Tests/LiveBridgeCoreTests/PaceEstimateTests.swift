import Testing

@testable import LiveBridgeCore

@Suite("Pace estimate")
struct PaceEstimateTests {
    /// A pace fed advances of one step each, `gaps` seconds apart.
    static func pace(gaps: [Double]) -> PaceEstimate {
        var pace = PaceEstimate()
        var t = 0.0
        pace.add(progress: 0, at: t, window: 10_000)
        for (index, gap) in gaps.enumerated() {
            t += gap
            pace.add(progress: Double(index + 1) * 0.01, at: t, window: 10_000)
        }
        return pace
    }

    @Test("how uneven the gaps between advances are: unknown before four, none for a count moving every poll")
    func irregularity() throws {
        #expect(Self.pace(gaps: [10, 20, 30]).irregularity == nil)
        #expect(try #require(Self.pace(gaps: [2, 2, 2, 2, 2, 2]).irregularity) < 1e-9)
        // Articles landing 5 to 40 s apart: their spread is of the order of their mean.
        let uneven = try #require(Self.pace(gaps: [5, 40, 12, 30, 8, 35, 20, 10]).irregularity)
        #expect(uneven > 0.5 && uneven < 1, "\(uneven)")
        // The same rhythm at another speed is as uneven.
        let slower = try #require(Self.pace(gaps: [10, 80, 24, 60, 16, 70, 40, 20]).irregularity)
        #expect(abs(slower - uneven) < 1e-9)
    }

    @Test("the window a pace over uneven advances needs grows with their unevenness, up to the longest window")
    func unevenWindow() {
        let policy = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        var memory = EconomyPolicy.Memory()
        memory.pace = Self.pace(gaps: [2, 2, 2, 2, 2, 2])
        #expect(policy.unevenWindow(memory) < 1e-9)
        memory.pace = Self.pace(gaps: [5, 40, 12, 30, 8, 35, 20, 10])
        let window = policy.unevenWindow(memory)
        // (cv / paceNoise)² of the usual gap: far more than the four gaps every pace holds.
        let cv = memory.pace.irregularity ?? 0
        let noise = EconomySettings().paceNoise
        let expected = (cv / noise) * (cv / noise) * (memory.pace.gap ?? 0)
        #expect(abs(window - min(expected, EconomySettings().paceWindowMaximum)) < 1e-6)
        #expect(window > 4 * (memory.pace.gap ?? 0))
        var off = EconomySettings()
        off.paceNoise = 0
        #expect(EconomyPolicy(settings: off, model: .interpolating).unevenWindow(memory) == 0)
        var slow = memory
        slow.pace = Self.pace(gaps: [50, 400, 120, 300, 80, 350, 200, 100])
        #expect(policy.unevenWindow(slow) == EconomySettings().paceWindowMaximum)
    }
}
