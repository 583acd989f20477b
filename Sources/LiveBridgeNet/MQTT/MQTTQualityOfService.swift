/// MQTT delivery guarantee for a publish or a subscription.
public enum MQTTQualityOfService: Int, Sendable, Equatable, Comparable, CaseIterable {
    /// Fire and forget (QoS 0).
    case atMostOnce = 0
    /// Acknowledged by PUBACK; may arrive twice (QoS 1).
    case atLeastOnce = 1
    /// Four-way handshake; arrives once (QoS 2).
    case exactlyOnce = 2

    /// Orders by strength of the guarantee.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
