/// The parsed payload of a close frame: an optional status code and a UTF-8 reason.
public struct WebSocketClose: Sendable, Hashable, CustomStringConvertible {
    /// The code the peer sent; nil when the close frame was empty (what RFC 6455 calls 1005).
    public var code: WebSocketCloseCode?
    /// The reason text; empty when none was given.
    public var reason: String

    /// A close status; `reason` is truncated to fit a control frame when encoded.
    public init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Parses a close frame payload: empty, or a 2-byte big-endian code plus a UTF-8 reason.
    ///
    /// A single byte, a code that must not be sent (1005, 1006, 1015, reserved or out of range)
    /// → 1002; a reason that is not UTF-8 → 1007.
    public init(payload: [UInt8]) throws(WebSocketProtocolError) {
        if payload.isEmpty {
            self.init(code: nil)
            return
        }
        guard payload.count >= 2 else {
            throw WebSocketProtocolError(
                .invalidClosePayload, closeCode: .protocolError,
                detail: "close frame carries 1 byte; expected none or a 2-byte status code")
        }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else {
            throw WebSocketProtocolError(
                .invalidCloseCode, closeCode: .protocolError,
                detail: "close frame carries status code \(code.rawValue), which must not be sent on the wire")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketProtocolError(
                .invalidUTF8, closeCode: .invalidFramePayloadData, detail: "close reason is not valid UTF-8")
        }
        self.init(code: code, reason: reason)
    }

    /// The longest reason that fits a control frame next to the 2-byte code.
    public static let maximumReasonByteCount = 123

    /// The payload to put in a close frame: code + reason cut to 123 bytes on a character
    /// boundary; empty when `code` is nil.
    public var payload: [UInt8] {
        guard let code else { return [] }
        var bytes: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes = 0
        for character in reason {
            let utf8 = character.utf8
            guard reasonBytes + utf8.count <= Self.maximumReasonByteCount else { break }
            bytes.append(contentsOf: utf8)
            reasonBytes += utf8.count
        }
        return bytes
    }

    /// `1000 (normal closure) "bye"` or `no status code`.
    public var description: String {
        guard let code else { return "no status code" }
        return reason.isEmpty ? "\(code)" : "\(code) \"\(reason)\""
    }
}
