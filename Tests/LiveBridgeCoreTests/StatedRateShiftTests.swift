import Testing

@testable import LiveBridgeCore

@Suite("A change of speed the source's estimate shows")
struct StatedRateShiftTests {
    static let settings = EconomySettings()

    /// Feeds `rates` one answer apart (10 s); returns the answers at which a shift was reported.
    static func shifts(_ rates: [Double]) -> [(index: Int, start: Double, faster: Bool)] {
        var track = StatedRateShift()
        var found: [(Int, Double, Bool)] = []
        for (index, rate) in rates.enumerated() {
            if let shift = track.add(
                rate: rate, at: Double(index) * 10, factor: settings.statedRateFactor,
                readings: settings.paceChangeAdvances, smoothing: settings.paceSmoothing)
            {
                found.append((index, shift.time, shift.faster))
            }
        }
        return found
    }

    @Test(
        "a shift by the change factor held for three answers is a change from its first; noise and smaller moves are not"
    )
    func shiftHeld() throws {
        // ±10 % around one rate, then half of it.
        let steady = (0..<12).map { 1.0 + 0.1 * Double($0 % 3 - 1) }
        let halved = (0..<6).map { 0.5 + 0.05 * Double($0 % 3 - 1) }
        let found = Self.shifts(steady + halved)
        let shift = try #require(found.first)
        #expect(found.count == 1)
        #expect(shift.index == 14 && shift.start == 120 && !shift.faster)
        // A move by less than the factor is followed, not reported.
        #expect(Self.shifts(steady + Array(repeating: 0.8, count: 8)).isEmpty)
        // Two answers beyond it are a blip.
        #expect(Self.shifts(steady + [2.5, 2.5] + steady).isEmpty)
        // Faster.
        let faster = try #require(Self.shifts(steady + Array(repeating: 2.2, count: 4)).first)
        #expect(faster.faster && faster.start == 120)
    }

    @Test("a meter climbing back after a pause (the estimate falling over a few answers) is no shift until it settles")
    func rampIsNoShift() {
        // The rate implied by an estimate falling from hours to the usual minutes: each answer
        // more than the factor from the one before.
        let steady = Array(repeating: 1.0, count: 10)
        let ramp = [0.1, 0.15, 0.24, 0.38, 0.6, 0.95, 1.0, 1.0, 1.0]
        #expect(Self.shifts(steady + ramp).isEmpty)
    }

    /// A download counted in steps of 1 % read every 25 s, at `before` progress per second, then
    /// at `after` from `change` on; the source states the finish from the speed it reads (`stated`
    /// gives the rate it reads at each time). The job started hours before (its pace window is
    /// the longest). Returns the pace's first corner time at each reading.
    static func observe(
        before: Double, after: Double, change: Double, until end: Double, stated: (Double) -> Double,
        settings: EconomySettings = settings
    ) -> [(time: Double, first: Double)] {
        let policy = EconomyPolicy(settings: settings, model: .interpolating)
        var memory = EconomyPolicy.Memory()
        var result: [(Double, Double)] = []
        var t = 0.0
        while t <= end {
            let truth = t <= change ? before * t : before * change + after * (t - change)
            let count = (truth / 0.01).rounded(.down) * 0.01
            let sample = TruthSample(
                progress: count, time: t, finish: t + (1 - count) / stated(t), fixedFinish: false)
            policy.observe(sample, paused: false, startedAt: -20_000, memory: &memory)
            result.append((t, memory.pace.corners.first?.time ?? -1))
            t += 25
        }
        return result
    }

    @Test("the pace restarts where the source saw its server halve, once the count falls a step behind the old pace")
    func countConfirms() throws {
        let change = 1000.0
        let readings = Self.observe(
            before: 4e-4, after: 2e-4, change: change, until: 1600, stated: { $0 <= 1000 ? 4e-4 : 2e-4 })
        // Not before the source said so.
        #expect(readings.filter { $0.time <= change }.allSatisfy { $0.first < change - 100 })
        let restart = try #require(readings.first { $0.first >= change - 25 })
        // From the count's corner at the shift, within four readings of it: the old pace's line is
        // a step ahead of the count after 50 s at half the speed, plus a reading either side.
        #expect(restart.time <= change + 4 * 25, "\(restart)")
        // Without it the pace still averages the old speed in at that reading.
        var off = Self.settings
        off.statedRateShifts = false
        let without = Self.observe(
            before: 4e-4, after: 2e-4, change: change, until: 1600, stated: { $0 <= 1000 ? 4e-4 : 2e-4 },
            settings: off)
        let same = try #require(without.first { $0.time == restart.time })
        #expect(same.first < change - 100, "\(same)")
    }

    @Test("an estimate that says slower while the count keeps its pace restarts nothing")
    func countRefutes() {
        // The source's meter reads half the speed from 1000 s on; the count does not slow down.
        let readings = Self.observe(
            before: 4e-4, after: 4e-4, change: 1000, until: 1800, stated: { $0 <= 1000 ? 4e-4 : 2e-4 })
        let firsts = Set(readings.filter { $0.time > 1000 }.map(\.first))
        #expect(firsts.allSatisfy { $0 < 1000 - 100 }, "\(firsts.sorted())")
    }
}
