/// A peer broke RFC 6455: the frame or message cannot be accepted and the connection must be
/// closed with `closeCode`.
///
/// The decoder stops at the first violation; the connection answers with a close frame carrying
/// `closeCode` (1002 protocol error, 1007 invalid UTF-8, 1009 too big) and drops the link.
public struct WebSocketProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which rule was broken; compare against the static members (`.reservedBitsSet`, …).
    public struct Violation: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case reservedBitsSet, unknownOpcode, maskedFrameFromServer, unmaskedFrameFromClient
            case fragmentedControlFrame, controlFrameTooLong, invalidPayloadLength, messageTooBig
            case unexpectedContinuation, expectedContinuation, invalidUTF8, invalidClosePayload
            case invalidCloseCode
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// RSV1–3 set although no extension was negotiated (1002).
        public static let reservedBitsSet = Violation(.reservedBitsSet)
        /// Opcode 3–7 or 0xB–0xF (1002).
        public static let unknownOpcode = Violation(.unknownOpcode)
        /// A server sent a masked frame; servers must not mask (1002).
        public static let maskedFrameFromServer = Violation(.maskedFrameFromServer)
        /// A client sent an unmasked frame; clients must mask (1002).
        public static let unmaskedFrameFromClient = Violation(.unmaskedFrameFromClient)
        /// A close, ping or pong frame had FIN 0 (1002).
        public static let fragmentedControlFrame = Violation(.fragmentedControlFrame)
        /// A close, ping or pong frame carried more than 125 bytes (1002).
        public static let controlFrameTooLong = Violation(.controlFrameTooLong)
        /// A 64-bit payload length had its most significant bit set (1002).
        public static let invalidPayloadLength = Violation(.invalidPayloadLength)
        /// A frame or reassembled message exceeded the configured maximum (1009).
        public static let messageTooBig = Violation(.messageTooBig)
        /// A continuation frame arrived while no fragmented message was open (1002).
        public static let unexpectedContinuation = Violation(.unexpectedContinuation)
        /// A new text/binary frame arrived while a fragmented message was still open (1002).
        public static let expectedContinuation = Violation(.expectedContinuation)
        /// A text message or close reason was not valid UTF-8 (1007).
        public static let invalidUTF8 = Violation(.invalidUTF8)
        /// A close frame carried exactly one byte (1002).
        public static let invalidClosePayload = Violation(.invalidClosePayload)
        /// A close frame carried a code that must not appear on the wire (1002).
        public static let invalidCloseCode = Violation(.invalidCloseCode)

        /// A short human-readable form for logs and messages.
        public var description: String {
            switch base {
            case .reservedBitsSet: "reserved bits set"
            case .unknownOpcode: "unknown opcode"
            case .maskedFrameFromServer: "masked frame from server"
            case .unmaskedFrameFromClient: "unmasked frame from client"
            case .fragmentedControlFrame: "fragmented control frame"
            case .controlFrameTooLong: "control frame too long"
            case .invalidPayloadLength: "invalid payload length"
            case .messageTooBig: "message too big"
            case .unexpectedContinuation: "unexpected continuation frame"
            case .expectedContinuation: "expected continuation frame"
            case .invalidUTF8: "invalid UTF-8"
            case .invalidClosePayload: "invalid close payload"
            case .invalidCloseCode: "invalid close code"
            }
        }
    }

    /// Which rule was broken.
    public let violation: Violation
    /// The close code to send to the peer.
    public let closeCode: WebSocketCloseCode
    /// One sentence for logs and error messages, e.g. `frame has RSV1 set but no extension was negotiated`.
    public let detail: String

    /// Creates an error; the codec and tests use it, applications only read it.
    public init(_ violation: Violation, closeCode: WebSocketCloseCode, detail: String) {
        self.violation = violation
        self.closeCode = closeCode
        self.detail = detail
    }

    /// A short human-readable form for logs and messages.
    public var description: String { "WebSocket protocol error (close code \(closeCode)): \(detail)" }
}
