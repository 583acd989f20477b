import LiveBridgeNet
import Testing

@Suite("WebSocket frame codec")
struct WebSocketCodecTests {
    // MARK: - Lengths and masking

    @Test(
        "7-, 16- and 64-bit lengths encode and decode both ways",
        arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 100_000])
    func lengthsRoundTrip(count: Int) throws {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let frame = WebSocketFrame(opcode: .binary, payload: payload)

        let serverEncoded = WebSocketFrameEncoder.encodeServerFrame(frame)
        let expectedLengthByte: UInt8 = count <= 125 ? UInt8(count) : (count <= 65_535 ? 126 : 127)
        #expect(serverEncoded[1] == expectedLengthByte)
        #expect(serverEncoded.count == WebSocketFrameEncoder.headerCount(payloadCount: count, masked: false) + count)
        #expect(decodeAll(serverEncoded, role: .client) == DecodeOutcome(events: [.message(.binary(payload))]))

        var generator = SeededGenerator(seed: UInt64(count))
        let clientEncoded = WebSocketFrameEncoder.encodeClientFrame(frame, using: &generator)
        #expect(clientEncoded[1] == 0x80 | expectedLengthByte)
        #expect(clientEncoded.count == WebSocketFrameEncoder.headerCount(payloadCount: count, masked: true) + count)
        #expect(decodeAll(clientEncoded, role: .server) == DecodeOutcome(events: [.message(.binary(payload))]))
    }

    @Test("RFC 6455 §5.7 sample frames decode as specified")
    func rfcSamples() {
        // A single-frame unmasked text message.
        #expect(decodeAll([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]).events == [.message(.text("Hello"))])
        // A single-frame masked text message (client → server).
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(decodeAll(masked, role: .server).events == [.message(.text("Hello"))])
        // A fragmented unmasked text message.
        let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]
        #expect(decodeAll(fragmented).events == [.message(.text("Hello"))])
        // Unmasked ping.
        #expect(decodeAll([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]).events == [.ping(Array("Hello".utf8))])
        // 256 bytes binary in a single unmasked frame uses the 16-bit length.
        let header256 = Array(
            WebSocketFrameEncoder.encodeServerFrame(.binary([UInt8](repeating: 7, count: 256)))[0..<4])
        #expect(header256 == [0x82, 0x7E, 0x01, 0x00])
        // 64 KiB uses the 64-bit length.
        let header64k = Array(
            WebSocketFrameEncoder.encodeServerFrame(.binary([UInt8](repeating: 7, count: 65_536)))[0..<10])
        #expect(header64k == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("Client frames are masked with the injected key and unmask to the original payload")
    func maskingRoundTrip() {
        let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)
        let encoded = WebSocketFrameEncoder.encode(.text("Hello"), maskingKey: key)
        #expect(encoded == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])

        // The same seed gives the same key; the key ends up in the header.
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        let frame = WebSocketFrame(opcode: .binary, payload: Array(0..<200))
        let a = WebSocketFrameEncoder.encodeClientFrame(frame, using: &first)
        let b = WebSocketFrameEncoder.encodeClientFrame(frame, using: &second)
        #expect(a == b)
        var replay = SeededGenerator(seed: 42)
        let expectedKey = WebSocketMaskingKey.random(using: &replay)
        #expect(
            Array(a[4..<8]) == [expectedKey.bytes.0, expectedKey.bytes.1, expectedKey.bytes.2, expectedKey.bytes.3])
        #expect(Array(a[8...]) != frame.payload)

        // Masking in pieces at any offset equals masking in one go; applying twice restores.
        let original = (0..<1_003).map { UInt8(truncatingIfNeeded: $0) }
        var whole = original
        key.apply(to: &whole)
        for split in [1, 3, 4, 7, 8, 9, 500] {
            var head = Array(original[..<split])
            var tail = Array(original[split...])
            key.apply(to: &head)
            key.apply(to: &tail, keyOffset: split)
            #expect(head + tail == whole)
        }
        key.apply(to: &whole)
        #expect(whole == original)
    }

    // MARK: - Fragmentation and control frames

    @Test("Fragmented text and binary messages are reassembled")
    func fragmentedMessages() {
        let text = serverBytes([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(fin: false, opcode: .continuation, payload: []),
            WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)),
        ])
        #expect(decodeAll(text) == DecodeOutcome(events: [.message(.text("Hello"))]))
        let binary = serverBytes([
            WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2]),
            WebSocketFrame(fin: true, opcode: .continuation, payload: [3]),
        ])
        #expect(decodeAll(binary) == DecodeOutcome(events: [.message(.binary([1, 2, 3]))]))
    }

    @Test("Control frames between fragments come out at once, the message after its last fragment")
    func controlFramesBetweenFragments() {
        let bytes = serverBytes([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("a".utf8)),
            .ping([9]),
            WebSocketFrame(fin: false, opcode: .continuation, payload: Array("b".utf8)),
            .pong([8]),
            WebSocketFrame(fin: true, opcode: .continuation, payload: Array("c".utf8)),
            .close(code: .normalClosure, reason: "done"),
        ])
        #expect(
            decodeAll(bytes).events == [
                .ping([9]), .pong([8]), .message(.text("abc")),
                .close(WebSocketClose(code: .normalClosure, reason: "done")),
            ])
    }

    @Test("Continuation without a start and a new message inside a fragmented one are protocol errors")
    func fragmentOrder() {
        let orphan = serverBytes([WebSocketFrame(fin: true, opcode: .continuation, payload: [1])])
        #expect(decodeAll(orphan).error?.violation == .unexpectedContinuation)
        #expect(decodeAll(orphan).error?.closeCode == .protocolError)

        let interleaved = serverBytes([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("a".utf8)),
            WebSocketFrame(fin: true, opcode: .binary, payload: [1]),
        ])
        #expect(decodeAll(interleaved).error?.violation == .expectedContinuation)
        #expect(decodeAll(interleaved).error?.closeCode == .protocolError)
    }

    // MARK: - Header violations

    @Test("Unknown opcodes are protocol errors (1002)", arguments: [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF])
    func unknownOpcodes(opcode: UInt8) {
        let outcome = decodeAll(rawFrame(0x80 | opcode, 0x00))
        #expect(outcome.error?.violation == .unknownOpcode)
        #expect(outcome.error?.closeCode == .protocolError)
    }

    @Test("RSV bits without a negotiated extension are protocol errors (1002)", arguments: [0x40, 0x20, 0x10, 0x70])
    func reservedBits(bits: UInt8) {
        let outcome = decodeAll(rawFrame(0x81 | bits, 0x01, [0x41]))
        #expect(outcome.error?.violation == .reservedBitsSet)
        #expect(outcome.error?.closeCode == .protocolError)
    }

    @Test("A masked frame from a server and an unmasked frame from a client are protocol errors (1002)")
    func maskingRules() {
        let masked = WebSocketFrameEncoder.encode(.text("hi"), maskingKey: WebSocketMaskingKey(1, 2, 3, 4))
        #expect(decodeAll(masked, role: .client).error?.violation == .maskedFrameFromServer)
        #expect(decodeAll(masked, role: .client).error?.closeCode == .protocolError)
        let unmasked = WebSocketFrameEncoder.encodeServerFrame(.text("hi"))
        #expect(decodeAll(unmasked, role: .server).error?.violation == .unmaskedFrameFromClient)
    }

    @Test("Control frames must have FIN 1 and at most 125 bytes (1002)")
    func controlFrameRules() {
        let fragmentedPing = rawFrame(0x09, 0x00)
        #expect(decodeAll(fragmentedPing).error?.violation == .fragmentedControlFrame)
        #expect(decodeAll(fragmentedPing).error?.closeCode == .protocolError)
        let longPing = rawFrame(0x89, 126, [0x00, 126] + [UInt8](repeating: 0, count: 126))
        #expect(decodeAll(longPing).error?.violation == .controlFrameTooLong)
        #expect(decodeAll(longPing).error?.closeCode == .protocolError)
        // The error comes from the header alone, before any payload arrives.
        #expect(decodeAll(rawFrame(0x88, 126)).error?.violation == .controlFrameTooLong)
        // 125 is fine.
        let maxPing = rawFrame(0x89, 125, [UInt8](repeating: 1, count: 125))
        #expect(decodeAll(maxPing).events == [.ping([UInt8](repeating: 1, count: 125))])
    }

    @Test("A 64-bit length with the top bit set is a protocol error (1002)")
    func topBitLength() {
        let outcome = decodeAll(rawFrame(0x82, 127, [0x80, 0, 0, 0, 0, 0, 0, 1]))
        #expect(outcome.error?.violation == .invalidPayloadLength)
        #expect(outcome.error?.closeCode == .protocolError)
    }

    // MARK: - Size limits

    @Test("A frame announcing more than the limit fails with 1009 before its payload arrives")
    func oversizeFrame() {
        // 16 MiB + 1 announced with a 64-bit length; no payload follows.
        let announced = UInt64(WebSocketDecoder.defaultMaximumMessageSize + 1)
        let lengthBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: announced >> (8 * UInt64($0))) }
        let outcome = decodeAll(rawFrame(0x82, 127, lengthBytes))
        #expect(outcome.error?.violation == .messageTooBig)
        #expect(outcome.error?.closeCode == .messageTooBig)
        // A 16-bit length over a small configured limit.
        let small = decodeAll(rawFrame(0x82, 126, [0x01, 0x00]), maximumMessageSize: 200)
        #expect(small.error?.closeCode == .messageTooBig)
    }

    @Test("Fragments adding up to more than the limit fail with 1009")
    func oversizeFragmentedMessage() {
        let bytes = serverBytes([
            WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 600)),
            WebSocketFrame(fin: false, opcode: .continuation, payload: [UInt8](repeating: 0, count: 600)),
        ])
        let outcome = decodeAll(bytes, maximumMessageSize: 1_000)
        #expect(outcome.error?.violation == .messageTooBig)
        #expect(outcome.error?.closeCode == .messageTooBig)
        #expect(decodeAll(bytes, maximumMessageSize: 1_200).error == nil)
    }

    // MARK: - UTF-8

    @Test(
        "Invalid UTF-8 in a text message fails with 1007",
        arguments: [
            [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82],
        ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        let outcome = decodeAll(serverBytes([WebSocketFrame(opcode: .text, payload: Array("ok".utf8) + bytes)]))
        #expect(outcome.error?.violation == .invalidUTF8)
        #expect(outcome.error?.closeCode == .invalidFramePayloadData)
    }

    @Test("Invalid UTF-8 split across fragments fails with 1007")
    func invalidUTF8AcrossFragments() {
        // E2 82 needs one more continuation byte; the next fragment starts with 'A'.
        let split = serverBytes([
            WebSocketFrame(fin: false, opcode: .text, payload: [0x61, 0xE2, 0x82]),
            WebSocketFrame(fin: true, opcode: .continuation, payload: [0x41]),
        ])
        #expect(decodeAll(split).error?.closeCode == .invalidFramePayloadData)
        // A message that ends in the middle of a code point.
        let truncated = serverBytes([
            WebSocketFrame(fin: false, opcode: .text, payload: [0x61]),
            WebSocketFrame(fin: true, opcode: .continuation, payload: [0xF0, 0x9F]),
        ])
        #expect(decodeAll(truncated).error?.closeCode == .invalidFramePayloadData)
        // Fails fast: an invalid first fragment fails before the message is complete.
        let early = serverBytes([WebSocketFrame(fin: false, opcode: .text, payload: [0x61, 0xFF])])
        #expect(decodeAll(early).error?.violation == .invalidUTF8)
    }

    @Test("A valid multi-byte character split across fragments is accepted", arguments: ["€", "😀", "ä", "日本"])
    func validCharacterAcrossFragments(text: String) {
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            let frames = serverBytes([
                WebSocketFrame(fin: false, opcode: .text, payload: Array(bytes[..<split])),
                WebSocketFrame(fin: true, opcode: .continuation, payload: Array(bytes[split...])),
            ])
            #expect(decodeAll(frames) == DecodeOutcome(events: [.message(.text(text))]), "split at \(split)")
        }
    }

    // MARK: - Close frames

    @Test("Close payloads: empty, code with reason, application codes")
    func closePayloads() throws {
        #expect(try WebSocketClose(payload: []) == WebSocketClose(code: nil))
        #expect(
            try WebSocketClose(payload: [0x03, 0xE8] + Array("bye".utf8))
                == WebSocketClose(code: .normalClosure, reason: "bye"))
        #expect(try WebSocketClose(payload: [0x0B, 0xB8]).code == WebSocketCloseCode(3000))
        #expect(try WebSocketClose(payload: [0x13, 0x87]).code == WebSocketCloseCode(4999))
        #expect(decodeAll(serverBytes([.close(code: .goingAway)])).events == [.close(WebSocketClose(code: .goingAway))])
    }

    @Test("A one-byte close payload is a protocol error (1002)")
    func oneByteClose() {
        let outcome = decodeAll(rawFrame(0x88, 0x01, [0x03]))
        #expect(outcome.error?.violation == .invalidClosePayload)
        #expect(outcome.error?.closeCode == .protocolError)
    }

    @Test(
        "Close codes that must not be on the wire are protocol errors (1002)",
        arguments: [
            0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65_535,
        ] as [UInt16])
    func invalidCloseCodes(code: UInt16) {
        let outcome = decodeAll(rawFrame(0x88, 0x02, [UInt8(code >> 8), UInt8(code & 0xFF)]))
        #expect(outcome.error?.violation == .invalidCloseCode)
        #expect(outcome.error?.closeCode == .protocolError)
    }

    @Test("A close reason that is not UTF-8 fails with 1007")
    func closeReasonUTF8() {
        let outcome = decodeAll(rawFrame(0x88, 0x04, [0x03, 0xE8, 0xC3, 0x28]))
        #expect(outcome.error?.closeCode == .invalidFramePayloadData)
    }

    @Test("The close builder keeps the code and cuts long reasons to 123 bytes on a character boundary")
    func closeBuilder() throws {
        let frame = WebSocketFrame.close(code: .goingAway, reason: String(repeating: "€", count: 60))
        #expect(frame.opcode == .close)
        #expect(frame.payload.count <= 125)
        #expect(frame.payload.count == 2 + 41 * 3)
        let parsed = try WebSocketClose(payload: frame.payload)
        #expect(parsed.code == .goingAway)
        #expect(parsed.reason == String(repeating: "€", count: 41))
        // Local-only codes are never sent: an empty close frame instead.
        #expect(WebSocketFrame.close(code: .abnormalClosure).payload.isEmpty)
    }

    // MARK: - Incremental feeding

    /// A realistic stream: several messages, fragments, control frames, big and small.
    static let mixedStream: [UInt8] = serverBytes([
        .text("{\"type\":\"auth_required\",\"ha_version\":\"2024.3.3\"}"),
        WebSocketFrame(fin: false, opcode: .text, payload: Array("[{\"id\":1,".utf8)),
        .ping(Array("keepalive".utf8)),
        WebSocketFrame(fin: true, opcode: .continuation, payload: Array("\"type\":\"result\"}]".utf8)),
        .binary((0..<70_000).map { UInt8(truncatingIfNeeded: $0) }),
        .text(String(repeating: "é", count: 300)),
        .pong([]),
        .binary([]),
        .close(code: .normalClosure, reason: "bye"),
    ])

    @Test("Feeding one byte at a time, or in odd chunks, gives exactly what one whole buffer gives")
    func byteAtATimeEqualsWhole() {
        let whole = decodeAll(Self.mixedStream)
        #expect(whole.error == nil)
        #expect(whole.events.count == 8)
        #expect(decodeAll(Self.mixedStream, chunkSizes: [1]) == whole)
        #expect(decodeAll(Self.mixedStream, chunkSizes: [2, 3, 5, 7, 11, 4096]) == whole)
        var generator = SeededGenerator(seed: 7)
        let random = (0..<64).map { _ in Int.random(in: 1...3000, using: &generator) }
        #expect(decodeAll(Self.mixedStream, chunkSizes: random) == whole)
    }

    @Test("A decoder stays failed after a protocol error")
    func stickyFailure() {
        var decoder = WebSocketDecoder(role: .client)
        decoder.append(contentsOf: rawFrame(0xC1, 0x00) + serverBytes([.text("later")]))
        #expect(throws: WebSocketProtocolError.self) { try decoder.next() }
        #expect(throws: WebSocketProtocolError.self) { try decoder.next() }
    }

    @Test("Fuzz: mutated and random streams never crash, and chunking never changes the outcome")
    func fuzz() {
        var generator = SeededGenerator(seed: 0xF00D)
        for iteration in 0..<1_500 {
            var bytes: [UInt8]
            if iteration % 3 == 0 {
                let count = Int.random(in: 0...300, using: &generator)
                bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = Array(Self.mixedStream.prefix(Int.random(in: 0...2_000, using: &generator)))
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            }
            let role: WebSocketRole = iteration.isMultiple(of: 2) ? .client : .server
            let whole = decodeAll(bytes, role: role, maximumMessageSize: 4_096)
            let chunks = (0..<8).map { _ in Int.random(in: 1...64, using: &generator) }
            #expect(decodeAll(bytes, role: role, chunkSizes: chunks, maximumMessageSize: 4_096) == whole)
        }
    }
}
