/// A topic filter the session subscribes to on every (re)connect.
///
/// Sessions use a clean start, so the broker forgets subscriptions when the link drops; the
/// session renews all of them in each on-connect, before the on-connect hook runs.
public struct MQTTSubscription: Sendable, Hashable, CustomStringConvertible {
    /// Topic filter; `+` and `#` wildcards allowed. Case-sensitive (Bambu serials are upper case).
    public var topicFilter: String
    /// Maximum QoS the broker should use for matching messages.
    public var qos: MQTTQualityOfService

    /// A subscription to `topicFilter` at `qos`.
    public init(_ topicFilter: String, qos: MQTTQualityOfService = .atMostOnce) {
        self.topicFilter = topicFilter
        self.qos = qos
    }

    /// `filter (qos N)`.
    public var description: String { "\(topicFilter) (qos \(qos.rawValue))" }
}
