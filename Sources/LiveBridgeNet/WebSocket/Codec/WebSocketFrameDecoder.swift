/// Cuts an incoming byte stream into frames, checking every per-frame rule of RFC 6455.
///
/// Feed it whatever the socket delivered (any chunk size, down to one byte at a time) with
/// `append`, then call `nextFrame()` until it returns nil. It checks RSV bits, opcodes, the
/// masking rule for the role, control-frame limits, the 64-bit length rule and the size limit
/// as soon as the header bytes are there, so a hostile length never makes it buffer anything.
/// Message-level rules (fragment order, UTF-8) belong to `WebSocketMessageAssembler`.
///
/// After an error the decoder is spent: every later call throws the same error.
public struct WebSocketFrameDecoder: Sendable {
    /// Whose frames this decoder reads: `.client` expects unmasked server frames.
    public let role: WebSocketRole
    /// Frames with a longer payload fail with close code 1009.
    public let maximumPayloadCount: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failure: WebSocketProtocolError?

    /// A decoder for the local `role` (`.client` decodes what a server sends).
    public init(role: WebSocketRole, maximumPayloadCount: Int = WebSocketDecoder.defaultMaximumMessageSize) {
        self.role = role
        self.maximumPayloadCount = max(125, maximumPayloadCount)
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    public mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try parseFrame()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096, readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    private mutating func parseFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        guard first & 0x70 == 0 else {
            let bits = [(0x40, "RSV1"), (0x20, "RSV2"), (0x10, "RSV3")].filter { Int(first) & $0.0 != 0 }.map(\.1)
            throw WebSocketProtocolError(
                .reservedBitsSet, closeCode: .protocolError,
                detail: "frame has \(bits.joined(separator: "+")) set but no extension was negotiated")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(
                .unknownOpcode, closeCode: .protocolError,
                detail: "frame has unknown opcode 0x\(String(first & 0x0F, radix: 16, uppercase: true))")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        switch (role, masked) {
        case (.client, true):
            throw WebSocketProtocolError(
                .maskedFrameFromServer, closeCode: .protocolError,
                detail: "server sent a masked \(opcode) frame; servers must not mask")
        case (.server, false):
            throw WebSocketProtocolError(
                .unmaskedFrameFromClient, closeCode: .protocolError,
                detail: "client sent an unmasked \(opcode) frame; clients must mask every frame")
        default:
            break
        }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else {
                throw WebSocketProtocolError(
                    .fragmentedControlFrame, closeCode: .protocolError,
                    detail: "\(opcode) frame has FIN 0; control frames must not be fragmented")
            }
            guard shortLength <= 125 else {
                throw WebSocketProtocolError(
                    .controlFrameTooLong, closeCode: .protocolError,
                    detail: "\(opcode) frame announces more than 125 bytes")
            }
        }
        let lengthCount = shortLength == 126 ? 2 : (shortLength == 127 ? 8 : 0)
        guard available >= 2 + lengthCount else { return nil }
        var payloadCount = shortLength
        if lengthCount == 2 {
            payloadCount = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
        } else if lengthCount == 8 {
            var length: UInt64 = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[readIndex + 2 + index]) }
            guard length & (1 << 63) == 0 else {
                throw WebSocketProtocolError(
                    .invalidPayloadLength, closeCode: .protocolError,
                    detail: "64-bit payload length has its most significant bit set")
            }
            guard length <= UInt64(maximumPayloadCount) else {
                throw tooBig(String(length))
            }
            payloadCount = Int(length)
        }
        guard payloadCount <= maximumPayloadCount else { throw tooBig(String(payloadCount)) }
        let headerCount = 2 + lengthCount + (masked ? 4 : 0)
        let frameCount = headerCount + payloadCount
        guard available >= frameCount else {
            if buffer.capacity < readIndex + frameCount { buffer.reserveCapacity(readIndex + frameCount) }
            return nil
        }
        let payloadStart = readIndex + headerCount
        var payload = Array(buffer[payloadStart..<(payloadStart + payloadCount)])
        if masked {
            let keyStart = readIndex + 2 + lengthCount
            let key = WebSocketMaskingKey(
                buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
            key.apply(to: &payload)
        }
        readIndex += frameCount
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    private func tooBig(_ length: String) -> WebSocketProtocolError {
        WebSocketProtocolError(
            .messageTooBig, closeCode: .messageTooBig,
            detail: "frame announces \(length) bytes; the limit is \(maximumPayloadCount) bytes")
    }
}
