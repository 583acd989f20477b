/// Turns validated frames into messages and control events, enforcing the message-level rules
/// of RFC 6455: fragment order, the message size limit and UTF-8 validity of text.
///
/// Control frames may arrive between the fragments of a message and come out at once. Text is
/// checked as fragments arrive, so an invalid byte fails the message before it is complete; a
/// code point split across two fragments is fine.
///
/// After an error the assembler is spent: every later call throws the same error.
public struct WebSocketMessageAssembler: Sendable {
    /// Reassembled messages longer than this fail with close code 1009.
    public let maximumMessageSize: Int

    private var openOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []
    private var validator = IncrementalUTF8Validator()
    private var failure: WebSocketProtocolError?

    /// An assembler that accepts messages up to `maximumMessageSize` bytes.
    public init(maximumMessageSize: Int = WebSocketDecoder.defaultMaximumMessageSize) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// True while a fragmented message has started but not finished.
    public var isAssemblingMessage: Bool { openOpcode != nil }

    /// Consumes one frame; returns an event when the frame completes one, nil for a
    /// non-final fragment.
    public mutating func assemble(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        if let failure { throw failure }
        do {
            return try process(frame)
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func process(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return .close(try WebSocketClose(payload: frame.payload))
        case .text, .binary:
            if let openOpcode {
                throw WebSocketProtocolError(
                    .expectedContinuation, closeCode: .protocolError,
                    detail: "\(frame.opcode) frame arrived while a fragmented \(openOpcode) message was still open")
            }
            try checkSize(frame.payload.count)
            if frame.fin {
                return .message(try message(frame.opcode, frame.payload))
            }
            openOpcode = frame.opcode
            fragments = frame.payload
            if frame.opcode == .text {
                validator = IncrementalUTF8Validator()
                guard validator.validate(frame.payload) else { throw invalidText() }
            }
            return nil
        case .continuation:
            guard let openOpcode else {
                throw WebSocketProtocolError(
                    .unexpectedContinuation, closeCode: .protocolError,
                    detail: "continuation frame arrived but no fragmented message was open")
            }
            try checkSize(fragments.count + frame.payload.count)
            if openOpcode == .text {
                guard validator.validate(frame.payload) else { throw invalidText() }
            }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            self.openOpcode = nil
            let bytes = fragments
            fragments = []
            if openOpcode == .text {
                guard validator.isComplete else { throw invalidText() }
                return .message(.text(String(decoding: bytes, as: UTF8.self)))
            }
            return .message(.binary(bytes))
        }
    }

    private func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError)
        -> WebSocketMessage
    {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else { throw invalidText() }
        return .text(text)
    }

    private func checkSize(_ count: Int) throws(WebSocketProtocolError) {
        guard count <= maximumMessageSize else {
            throw WebSocketProtocolError(
                .messageTooBig, closeCode: .messageTooBig,
                detail: "message grows past \(maximumMessageSize) bytes, the configured limit")
        }
    }

    private func invalidText() -> WebSocketProtocolError {
        WebSocketProtocolError(
            .invalidUTF8, closeCode: .invalidFramePayloadData, detail: "text message is not valid UTF-8")
    }
}
