import LiveBridgeCore
import Testing

@Suite("Civil time and the virtual clock")
struct TimeTests {
    @Test(
        "civil fields of Unix times",
        arguments: [
            (0.0, 1970, 1, 1, 0), (951_782_400.0, 2000, 2, 29, 0), (1_781_517_600.0, 2026, 6, 15, 10),
            (1_798_761_599.0, 2026, 12, 31, 23),
        ])
    func civil(time: Double, year: Int, month: Int, day: Int, hour: Int) {
        let civil = CivilTime(unixSeconds: time)
        #expect([civil.year, civil.month, civil.day, civil.hour] == [year, month, day, hour])
    }

    @Test("month boundaries")
    func months() {
        let civil = CivilTime(unixSeconds: 1_798_761_599)
        #expect(civil.startOfNextMonth == 1_798_761_600)
        #expect(civil.monthKey == 202_612)
        #expect(CivilTime(unixSeconds: civil.startOfMonth).day == 1)
    }

    @Test("a sleeper wakes when the virtual clock passes its deadline, not before")
    func virtualClockWakes() async throws {
        let clock = VirtualClock(start: 100)
        let task = Task { try await clock.sleep(until: 160) }
        await clock.waitForSleepers(1)
        clock.advance(by: 30)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 30)
        try await task.value
        #expect(clock.now == 160)
        #expect(clock.sleeperCount == 0)
    }

    @Test("the real clock waits for a deadline in the year 9999 (more nanoseconds than a UInt64 holds) until cancelled")
    func systemClockFarDeadline() async throws {
        let clock = SystemClock()
        let task = Task { try await clock.sleep(until: 253_402_300_799) }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        // A deadline that is no time at all is no wait.
        try await clock.sleep(until: .nan)
    }

    @Test("cancelling a sleeper removes it")
    func virtualClockCancels() async {
        let clock = VirtualClock()
        let task = Task { try await clock.sleep(for: 10) }
        await clock.waitForSleepers(1)
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }
}
