/// The one backoff schedule: the n-th consecutive failure waits `initial · multiplier^(n−1)`, at
/// most `maximum`, spread by ± `jitter`; a connection that lasted `stableAfter` starts the count
/// again.
///
/// A value without clocks or I/O, so every schedule is unit-tested exactly: delivery's retries
/// (`RetryPolicy`), the supervisor's adapter restarts, the MQTT and Home Assistant reconnects and
/// SABnzbd's failed polls all count their failures with it; the owner performs the waits.
public struct Backoff: Sendable, Hashable {
    /// The first failure's delay in seconds.
    public var initial: Double
    /// The longest delay in seconds.
    public var maximum: Double
    /// Growth per consecutive failure.
    public var multiplier: Double
    /// ± fraction of random spread on each delay (0: none).
    public var jitter: Double
    /// Seconds a connection must last before a drop counts as the first failure again; nil: never.
    public var stableAfter: Double?
    /// Consecutive failures since the last reset.
    public private(set) var failures = 0

    public init(
        initial: Double, maximum: Double, multiplier: Double = 2, jitter: Double = 0, stableAfter: Double? = nil
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
        self.stableAfter = stableAfter
    }

    /// The delay after the `failure`-th consecutive failure (1-based; 0 for none), with `random`
    /// in 0…1 spreading it by `jitter` (0.5: the middle).
    public func delay(failure: Int, random: Double = 0.5) -> Double {
        guard failure > 0 else { return 0 }
        var base = initial
        var step = 1
        while step < failure, base < maximum {
            base *= multiplier
            step += 1
        }
        base = min(maximum, base)
        guard jitter > 0 else { return base }
        return min(maximum, max(0, base + base * jitter * (2 * random - 1)))
    }

    /// The delay for the current failure count.
    public var currentDelay: Double { delay(failure: failures) }

    /// An attempt failed; returns the delay before the next one. `permanent` marks a refusal a
    /// retry cannot fix (bad credentials, a certificate mismatch): it waits `maximum` at once.
    public mutating func attemptFailed(permanent: Bool = false, random: Double = 0.5) -> Double {
        if permanent {
            failures = max(failures + 1, failuresToMaximum)
            return maximum
        }
        failures += 1
        return delay(failure: failures, random: random)
    }

    /// An established connection dropped after `uptime` seconds; returns the delay before the
    /// next attempt (the first failure's after a stable connection).
    public mutating func connectionLost(after uptime: Double) -> Double {
        if let stableAfter, uptime >= stableAfter { failures = 0 }
        return attemptFailed()
    }

    /// Success: the next failure is the first again.
    public mutating func reset() {
        failures = 0
    }

    /// Consecutive failures after which the delay reaches `maximum`.
    private var failuresToMaximum: Int {
        var base = initial
        var steps = 1
        while base < maximum, multiplier > 1 {
            base *= multiplier
            steps += 1
        }
        return steps
    }
}
