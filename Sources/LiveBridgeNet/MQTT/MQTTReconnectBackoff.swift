/// The reconnect-delay state machine: feed it what happened, it answers how long to wait.
///
/// A value type without clocks or I/O so the schedule is unit-tested exactly; the session's loop
/// thread owns one and performs the waits.
public struct MQTTReconnectBackoff: Sendable, Equatable {
    /// The schedule.
    public let policy: MQTTReconnectPolicy
    /// Consecutive failures (attempts and short-lived connections) since the last stable connection.
    public private(set) var failures: Int = 0

    /// A fresh schedule (the first retry waits `initialDelay`).
    public init(policy: MQTTReconnectPolicy = .standard) {
        self.policy = policy
    }

    /// A connection attempt failed; returns the delay before the next one.
    ///
    /// `permanent` marks refusals a retry cannot fix (bad credentials, certificate mismatch):
    /// those wait `maximumDelay` at once.
    public mutating func attemptFailed(permanent: Bool) -> Double {
        if permanent {
            failures = max(failures + 1, stepsToMaximum)
            return policy.maximumDelay
        }
        failures += 1
        return currentDelay
    }

    /// An established connection dropped after `uptime` seconds; returns the delay before reconnecting.
    public mutating func connectionLost(after uptime: Double) -> Double {
        if uptime >= policy.stableConnectionDuration {
            failures = 0
        }
        failures += 1
        return currentDelay
    }

    /// The delay for the current failure count: `initialDelay · 2^(failures−1)`, capped.
    public var currentDelay: Double {
        guard failures > 0 else { return 0 }
        var delay = policy.initialDelay
        var step = 1
        while step < failures, delay < policy.maximumDelay {
            delay *= 2
            step += 1
        }
        return min(delay, policy.maximumDelay)
    }

    /// Failures after which the delay reaches the maximum.
    private var stepsToMaximum: Int {
        var delay = policy.initialDelay
        var steps = 1
        while delay < policy.maximumDelay {
            delay *= 2
            steps += 1
        }
        return steps
    }
}
