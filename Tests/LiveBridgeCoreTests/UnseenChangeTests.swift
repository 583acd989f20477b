import Testing

@testable import LiveBridgeCore

/// A change of speed the count shows before its source's estimate does
/// (`EconomySettings.unseenChangeOverSource`).
@Suite("A change of speed the source has not seen yet")
struct UnseenChangeTests {
    static let settings = EconomySettings()

    struct Reading {
        var time: Double
        var truth: Double
        var finish: Double?
        var changed: Bool
        /// Where the pace's window starts.
        var first: Double
    }

    /// A download counted in steps of 1 % read every 25 s, at 4e-4 of the job a second, then at
    /// 8e-4 from 1000 s on; the source states the finish from its meter, the mean speed of the
    /// last `meter` seconds. The job started hours before (its pace window is the longest).
    /// Returns, at each reading, the true progress, the policy's finish, whether the count's own
    /// change test has restarted the pace, and where the pace starts.
    static func observe(meter: Double, settings: EconomySettings = settings, until end: Double = 1700) -> [Reading] {
        let policy = EconomyPolicy(settings: settings, model: .interpolating)
        var memory = EconomyPolicy.Memory()
        let change = 1000.0
        func speed(_ t: Double) -> Double { t < change ? 4e-4 : 8e-4 }
        func truth(_ t: Double) -> Double { t <= change ? 4e-4 * t : 0.4 + 8e-4 * (t - change) }
        var readings: [Reading] = []
        var t = 0.0
        while t <= end {
            let count = (truth(t) / 0.01).rounded(.down) * 0.01
            // The meter's mean over its window, in 1-s slices.
            let slices = max(1, Int(meter))
            let read = (0..<slices).reduce(0.0) { $0 + speed(t - Double($1)) } / Double(slices)
            let sample = TruthSample(progress: count, time: t, finish: t + (1 - count) / read, fixedFinish: false)
            policy.observe(sample, paused: false, startedAt: -20_000, memory: &memory)
            readings.append(
                Reading(
                    time: t, truth: truth(t), finish: policy.finish(sample, memory: memory, at: t),
                    changed: memory.pace.rateBeforeChange != nil, first: memory.pace.corners.first?.time ?? -1))
            t += 25
        }
        return readings
    }

    /// When the job truly ends, seen from `reading`.
    static func trueFinish(_ reading: Reading) -> Double { reading.time + (1 - reading.truth) / 8e-4 }

    @Test("after the count shows the server doubling its speed, a meter still reading the old speed is left out")
    func countBeforeMeter() throws {
        // A meter turning over ten minutes (a recording replayed sixty times slower).
        let readings = Self.observe(meter: 600)
        let restart = try #require(readings.first { $0.changed && $0.time > 1000 })
        var off = Self.settings
        off.unseenChangeOverSource = false
        let blended = Self.observe(meter: 600, settings: off)
        let same = try #require(blended.first { $0.time == restart.time })
        let finish = try #require(restart.finish)
        let blendedFinish = try #require(same.finish)
        let truth = Self.trueFinish(restart)
        // The pace alone is nearer the job's real finish than its blend with the lagging meter,
        // which still runs late.
        #expect(abs(finish - truth) < abs(blendedFinish - truth), "\(finish) against \(blendedFinish), truth \(truth)")
        #expect(blendedFinish > finish, "\(blendedFinish) against \(finish)")
    }

    @Test("a source whose estimate saw the change as soon as the count is blended as before")
    func meterAlongside() throws {
        // SABnzbd's own meter: the last 10 s.
        let readings = Self.observe(meter: 10)
        var off = Self.settings
        off.unseenChangeOverSource = false
        let blended = Self.observe(meter: 10, settings: off)
        // The pace restarted at the change (where the source's estimate showed it).
        #expect(readings.contains { $0.time <= 1200 && $0.first >= 1000 - 25 })
        for (reading, same) in zip(readings, blended) {
            #expect(reading.finish == same.finish, "\(reading.time): \(String(describing: reading.finish))")
        }
    }
}
