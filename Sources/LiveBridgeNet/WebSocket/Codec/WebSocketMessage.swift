/// A complete application message, reassembled from one or more frames.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message; the decoder has checked it is valid UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}
