/// How delivery retries: exponential backoff with jitter, `Retry-After` clamping, and the
/// circuit breaker's thresholds.
public struct RetryPolicy: Sendable, Hashable {
    /// First backoff delay in seconds.
    public var initialDelay: Double = 1
    /// Backoff cap in seconds.
    public var maximumDelay: Double = 30
    /// Growth per attempt.
    public var multiplier: Double = 2
    /// ± fraction of random spread on each delay.
    public var jitter: Double = 0.2
    /// Attempts per frame before it is given up; nil = keep trying (the daemon: nothing is lost).
    public var maximumAttempts: Int?
    /// Longest `Retry-After` honoured on a 429, in seconds.
    public var rateLimitCap: Double = 120
    /// Consecutive unavailable faults that open the circuit breaker.
    public var breakerThreshold: Int = 5
    /// First open period of the breaker; doubles while the service stays down.
    public var breakerCooldown: Double = 30
    /// Longest open period.
    public var breakerMaximumCooldown: Double = 300
    /// How long an authentication failure stops a sink before one more try.
    public var authenticationPause: Double = 900
    /// While a spent quota holds, the sink is asked this often whether it takes updates again
    /// (`Sink.quotaAvailable`): an upgrade lifts the quota before its reset, and the held state
    /// then goes out within this long, not on the 1st.
    public var quotaRecheck: Double = 3600

    public init() {}

    /// The delay before retry number `attempt` (1-based), with `random` in 0…1 spreading it.
    public func delay(attempt: Int, random: Double) -> Double {
        Backoff(initial: initialDelay, maximum: maximumDelay, multiplier: multiplier, jitter: jitter)
            .delay(failure: max(1, attempt), random: random)
    }
}

/// A tiny deterministic random source for jitter (xorshift), so tests can fix the seed.
public struct JitterSource: Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    /// A number in 0…1.
    public mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(UInt64(1) << 53)
    }
}
