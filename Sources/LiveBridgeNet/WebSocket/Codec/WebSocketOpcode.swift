/// The four-bit operation code of a WebSocket frame (RFC 6455 §5.2).
///
/// Only the opcodes RFC 6455 defines exist here: a frame with any other opcode is a protocol
/// error (close code 1002), so a decoded frame can never carry one.
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A later fragment of a fragmented text or binary message.
    case continuation = 0x0
    /// The first (or only) frame of a UTF-8 text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// Starts or answers the closing handshake.
    case close = 0x8
    /// Asks the peer for a pong carrying the same payload.
    case ping = 0x9
    /// Answers a ping (or announces liveness unsolicited).
    case pong = 0xA

    /// True for close, ping and pong: frames that must not be fragmented and carry ≤ 125 bytes.
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// A short human-readable form for logs and messages.
    public var description: String {
        switch self {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
