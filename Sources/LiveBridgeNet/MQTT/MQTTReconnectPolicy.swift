public import LiveBridgeFoundation

/// How quickly the session retries after a failed attempt or a dropped connection.
///
/// Delays start at `initialDelay` and double up to `maximumDelay`. Refusals that repeating cannot
/// fix (wrong password, certificate mismatch) wait the maximum straight away, so a misconfigured
/// bridge does not hammer a printer. A connection that drops before it was up for
/// `stableConnectionDuration` keeps the escalated delay, so a broker that accepts and then kicks
/// the client (duplicate client id, connection limit) is not reconnected to every second.
public struct MQTTReconnectPolicy: Sendable, Equatable {
    /// First retry delay in seconds.
    public var initialDelay: Double
    /// Upper bound of the delay in seconds.
    public var maximumDelay: Double
    /// Seconds a connection must last before the delay falls back to `initialDelay`.
    public var stableConnectionDuration: Double

    /// 1 s doubling to 30 s; a connection is stable after 30 s.
    public static let standard = MQTTReconnectPolicy()

    /// A policy; delays are clamped to be positive and `maximumDelay ≥ initialDelay`.
    public init(initialDelay: Double = 1, maximumDelay: Double = 30, stableConnectionDuration: Double = 30) {
        self.initialDelay = max(0.001, initialDelay)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.stableConnectionDuration = max(0, stableConnectionDuration)
    }
}

extension Backoff {
    /// The reconnect schedule of `policy`: doubling from its first delay to its maximum, back to
    /// the first after a connection that lasted `stableConnectionDuration`.
    public init(reconnect policy: MQTTReconnectPolicy) {
        self.init(
            initial: policy.initialDelay, maximum: policy.maximumDelay, stableAfter: policy.stableConnectionDuration)
    }
}
