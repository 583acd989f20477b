/// One WebSocket frame as it travels on the wire, without its mask (RFC 6455 §5.2).
///
/// Decoders hand out frames already unmasked; encoders add the mask when the role requires it.
/// RSV bits are not represented: no extension is ever negotiated, so they are always zero.
public struct WebSocketFrame: Sendable, Hashable {
    /// True on the last frame of a message (always true for control frames).
    public var fin: Bool
    /// What the frame carries.
    public var opcode: WebSocketOpcode
    /// The application bytes, unmasked.
    public var payload: [UInt8]

    /// A frame; `fin` defaults to true (a whole message in one frame).
    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// A single-frame text message.
    public static func text(_ text: String) -> WebSocketFrame {
        WebSocketFrame(opcode: .text, payload: Array(text.utf8))
    }

    /// A single-frame binary message.
    public static func binary(_ bytes: [UInt8]) -> WebSocketFrame {
        WebSocketFrame(opcode: .binary, payload: bytes)
    }

    /// A ping; the payload is cut to the 125 bytes a control frame may carry.
    public static func ping(_ payload: [UInt8] = []) -> WebSocketFrame {
        WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125)))
    }

    /// A pong; the payload is cut to the 125 bytes a control frame may carry.
    public static func pong(_ payload: [UInt8] = []) -> WebSocketFrame {
        WebSocketFrame(opcode: .pong, payload: Array(payload.prefix(125)))
    }

    /// A close frame with `code` and `reason` (reason cut to 123 UTF-8 bytes on a character
    /// boundary). Codes that must not be sent (1005, 1006, 1015) produce an empty close frame.
    public static func close(code: WebSocketCloseCode, reason: String = "") -> WebSocketFrame {
        guard code.isValidOnWire else { return WebSocketFrame(opcode: .close) }
        return WebSocketFrame(opcode: .close, payload: WebSocketClose(code: code, reason: reason).payload)
    }

    /// An empty close frame (no status code).
    public static func close() -> WebSocketFrame {
        WebSocketFrame(opcode: .close)
    }
}
