import FoundationEssentials
import Synchronization

/// Wall-clock time and sleeping, injected everywhere so tests of hour-long jobs run in
/// milliseconds.
///
/// Times are Unix seconds as `Double`: the push services speak Unix seconds (`end_date`), and
/// one type for both "now" and deadlines keeps the tracker's arithmetic plain.
public protocol TimeSource: Sendable {
    /// Unix seconds now.
    var now: Double { get }
    /// Suspends until `deadline` (Unix seconds); throws `CancellationError` when cancelled.
    func sleep(until deadline: Double) async throws
}

extension TimeSource {
    /// Suspends for `seconds`.
    public func sleep(for seconds: Double) async throws {
        try await sleep(until: now + seconds)
    }
}

/// The real clock.
public struct SystemClock: TimeSource {
    public init() {}

    public var now: Double { Date().timeIntervalSince1970 }

    public func sleep(until deadline: Double) async throws {
        var delay = deadline - now
        guard delay > 0 else {
            try Task.checkCancellation()
            return
        }
        // A day at a time: a deadline centuries ahead (a fixed finish in the year 9999, a quota
        // reset a service dates that far) is more nanoseconds than a UInt64 holds.
        while delay > 0 {
            try await Task.sleep(nanoseconds: UInt64(min(delay, Self.longestSleep) * 1_000_000_000))
            delay = deadline - now
        }
    }

    /// The longest single sleep, in seconds.
    static let longestSleep: Double = 86_400
}

/// A clock that moves only when a test (or a replay) advances it.
///
/// `waitForSleepers` lets a test wait until the code under test has gone to sleep, which is how
/// tests synchronise with background tasks without sleeping themselves.
public final class VirtualClock: TimeSource {
    private struct Sleeper {
        var id: UInt64
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Double
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var waiters: [Waiter] = []
    }

    private let state: Mutex<State>

    /// A clock starting at `start` (Unix seconds; default 2026-06-15T10:00:00Z).
    public init(start: Double = 1_781_517_600) {
        state = Mutex(State(now: start))
    }

    public var now: Double { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    public var nextDeadline: Double? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Double) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, cancelled, waiters): (Bool, Bool, [Waiter]) = state.withLock { state in
                    if Task.isCancelled { return (false, true, []) }
                    if deadline <= state.now { return (true, false, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.waiters.filter { $0.count <= count }
                    state.waiters.removeAll { $0.count <= count }
                    return (false, false, ready)
                }
                for waiter in waiters { waiter.continuation.resume() }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if resumeNow {
                    continuation.resume()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `seconds`, waking every sleeper whose deadline is reached.
    public func advance(by seconds: Double) {
        advance(to: now + seconds)
    }

    /// Moves time to `time` (never backwards), waking every sleeper whose deadline is reached.
    public func advance(to time: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, time)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are asleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.waiters.append(Waiter(count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Calendar fields of a Unix time in UTC, computed without Foundation's calendar.
public struct CivilTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    public init(unixSeconds: Double) {
        let totalMilliseconds = Int64((unixSeconds * 1000).rounded(.down))
        var days =
            totalMilliseconds >= 0 ? totalMilliseconds / 86_400_000 : (totalMilliseconds - 86_399_999) / 86_400_000
        let dayMilliseconds = totalMilliseconds - days * 86_400_000
        hour = Int(dayMilliseconds / 3_600_000)
        minute = Int(dayMilliseconds / 60_000 % 60)
        second = Int(dayMilliseconds / 1000 % 60)
        millisecond = Int(dayMilliseconds % 1000)
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthPrime + 2) / 5 + 1)
        month = Int(monthPrime < 10 ? monthPrime + 3 : monthPrime - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// `YYYYMM`, the key of a calendar month (UTC) for budget counters.
    public var monthKey: Int { year * 100 + month }

    /// Unix seconds of 00:00 UTC on the first day of the month after this one.
    public var startOfNextMonth: Double {
        let nextYear = month == 12 ? year + 1 : year
        let nextMonth = month == 12 ? 1 : month + 1
        return Double(Self.daysFromCivil(year: nextYear, month: nextMonth, day: 1)) * 86400
    }

    /// Unix seconds of 00:00 UTC on the first day of this month.
    public var startOfMonth: Double {
        Double(Self.daysFromCivil(year: year, month: month, day: 1)) * 86400
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A virtual clock that jumps forward whenever someone sleeps on it: one-shot commands and
/// their tests run retry backoffs and `Retry-After` waits instantly, and the test can still
/// read how much time "passed".
public final class SteppingClock: TimeSource {
    private let current: Mutex<Double>

    public init(start: Double = 1_781_517_600) {
        current = Mutex(start)
    }

    public var now: Double { current.withLock { $0 } }

    public func sleep(until deadline: Double) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
    }

    /// Moves time forward by hand.
    public func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }
}

/// Real time sped up: `now` runs `rate` times faster than the wall clock from `start`, and
/// sleeps take 1/`rate` of the time. `livebridge demo` plays hour-long jobs in minutes with it.
public struct ScaledClock: TimeSource {
    /// Virtual seconds per real second.
    public let rate: Double
    private let origin: Double
    private let realOrigin: ContinuousClock.Instant

    public init(rate: Double, start: Double? = nil) {
        self.rate = max(0.001, rate)
        origin = start ?? Date().timeIntervalSince1970
        realOrigin = ContinuousClock.now
    }

    public var now: Double {
        let elapsed = ContinuousClock.now - realOrigin
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return origin + seconds * rate
    }

    public func sleep(until deadline: Double) async throws {
        let remaining = (deadline - now) / rate
        if remaining <= 0 {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(for: .milliseconds(Int((remaining * 1000).rounded(.up))))
    }
}
