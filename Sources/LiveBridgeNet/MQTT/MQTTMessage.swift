/// One application message received from the broker.
public struct MQTTMessage: Sendable, Equatable {
    /// The topic it was published to.
    public var topic: String
    /// The payload bytes, unmodified (Bambu reports may contain invalid UTF-8; decoding is the
    /// consumer's job).
    public var payload: [UInt8]
    /// The QoS it was delivered with.
    public var qos: MQTTQualityOfService
    /// True when the broker delivered a retained message (sent on subscribe, not live).
    public var retained: Bool

    /// A message value.
    public init(topic: String, payload: [UInt8], qos: MQTTQualityOfService = .atMostOnce, retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
    }

    /// The payload decoded as UTF-8 (invalid sequences replaced).
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
