/// What a decoder hands on after a frame: a complete message or a control frame.
///
/// Pings, pongs and closes are surfaced rather than handled here because answering them is
/// connection policy (the client pongs automatically, a test server may choose not to).
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text or binary message.
    case message(WebSocketMessage)
    /// A ping with its payload (≤ 125 bytes); answer with a pong carrying the same bytes.
    case ping([UInt8])
    /// A pong with its payload.
    case pong([UInt8])
    /// A close frame with its parsed status.
    case close(WebSocketClose)
}
