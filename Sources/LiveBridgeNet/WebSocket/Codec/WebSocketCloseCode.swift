/// A WebSocket close status code (RFC 6455 §7.4).
///
/// A struct rather than an enum so that application codes (3000–4999) and codes registered
/// later pass through unchanged.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent on the wire.
    public var rawValue: UInt16

    /// Wraps any code; use `isValidOnWire` to check whether a peer may send it.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Wraps any code (shorthand for `init(rawValue:)`).
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint goes away (server shutdown, client navigating away or stopping).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the WebSocket protocol.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: the endpoint cannot accept this kind of data (e.g. binary when it expects text).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: no code was present in the close frame. Never sent on the wire.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: the connection dropped without a close frame. Never sent on the wire.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a text message was not valid UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a message was larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client required an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(1011)
    /// 1012: the service is restarting (IANA registry).
    public static let serviceRestart = WebSocketCloseCode(1012)
    /// 1013: try again later (IANA registry).
    public static let tryAgainLater = WebSocketCloseCode(1013)
    /// 1014: a gateway received an invalid response (IANA registry).
    public static let badGateway = WebSocketCloseCode(1014)
    /// 1015: the TLS handshake failed. Never sent on the wire.
    public static let tlsHandshakeFailure = WebSocketCloseCode(1015)

    /// True when a peer may put this code in a close frame: 1000–1003, 1007–1014 and the
    /// application range 3000–4999. 1004 is reserved; 1005, 1006 and 1015 are local-only.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The code and its meaning, e.g. `1000 (normal closure)`.
    public var description: String {
        let meaning: String? =
            switch rawValue {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1005: "no status received"
            case 1006: "abnormal closure"
            case 1007: "invalid payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1010: "mandatory extension"
            case 1011: "internal server error"
            case 1012: "service restart"
            case 1013: "try again later"
            case 1014: "bad gateway"
            case 1015: "TLS handshake failure"
            default: nil
            }
        return meaning.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
