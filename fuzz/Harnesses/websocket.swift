// Harness `websocket`: the RFC 6455 receive side (`WebSocketDecoder` in LiveBridgeNet), both roles.
//
// Input: byte 0 picks the role (bit 0: client reads unmasked server frames, server reads masked
// client frames) and the message size limit (bits 1-2); the rest is the byte stream. Invariants:
//   - decoding never crashes; it yields events until it needs more bytes or throws a typed
//     `WebSocketProtocolError` with a close code, and after that keeps throwing the same error;
//   - every event respects the protocol: control payloads ≤ 125 bytes, messages within the limit,
//     close codes valid on the wire;
//   - the outcome does not depend on how the bytes were cut (chunk sizes drawn from the input);
//   - re-encoding the events as single frames for the same role and decoding them again gives
//     the same events (encoder and decoder agree, masking is its own inverse).

import LiveBridgeNet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let role: WebSocketRole = control & 1 == 0 ? .client : .server
    let limit = [125, 1024, 70_000, WebSocketDecoder.defaultMaximumMessageSize][Int(control >> 1) & 3]
    let stream = Array(input.rest())

    let whole = decode(stream, role: role, limit: limit, chunkSizes: [max(1, stream.count)])
    fuzzTrace("\(role) limit \(limit): \(whole.events) \(whole.failure.map(String.init(describing:)) ?? "")")
    for event in whole.events { check(event, limit: limit) }
    if let failure = whole.failure {
        fuzzCheck(failure.closeCode.isValidOnWire, "error close code \(failure.closeCode) cannot be sent")
    }

    let sizes = [1, 2, 3, 5, 8, 13].map { ($0 + Int(control)) % 16 + 1 }
    let chunked = decode(stream, role: role, limit: limit, chunkSizes: sizes)
    fuzzCheck(whole.events == chunked.events, "chunked decode yields other events")
    fuzzCheck(
        whole.failure == chunked.failure,
        "chunked decode fails differently: \(whole.failure as Any) vs \(chunked.failure as Any)")

    // Re-encode what was decoded, for the same role, and decode it again.
    var encoded: [UInt8] = []
    let key = WebSocketMaskingKey(control, 0x5A, 0xA5, ~control)
    for event in whole.events {
        let frame: WebSocketFrame
        switch event {
        case .message(.text(let text)): frame = .text(text)
        case .message(.binary(let bytes)): frame = .binary(bytes)
        case .ping(let payload): frame = .ping(payload)
        case .pong(let payload): frame = .pong(payload)
        case .close(let close): frame = WebSocketFrame(opcode: .close, payload: close.payload)
        }
        WebSocketFrameEncoder.append(frame, maskingKey: role == .server ? key : nil, to: &encoded)
    }
    let again = decode(encoded, role: role, limit: limit, chunkSizes: [max(1, encoded.count)])
    fuzzCheck(again.failure == nil, "re-encoded events fail to decode: \(again.failure as Any)")
    fuzzCheck(again.events == whole.events, "re-encoded events decode to other events")

    // Masking at any key offset equals the byte-by-byte XOR of RFC 6455 §5.3.
    var masked = stream
    let offset = Int(control >> 3)
    masked.withUnsafeMutableBytes { key.apply(to: $0, keyOffset: offset) }
    let keyBytes = [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3]
    for index in stream.indices {
        fuzzCheck(masked[index] == stream[index] ^ keyBytes[(index + offset) & 3], "masking differs at byte \(index)")
    }
    return 0
}

private struct Decoded {
    var events: [WebSocketEvent] = []
    var failure: WebSocketProtocolError?
}

private func decode(_ bytes: [UInt8], role: WebSocketRole, limit: Int, chunkSizes: [Int]) -> Decoded {
    var decoder = WebSocketDecoder(role: role, maximumMessageSize: limit)
    var result = Decoded()
    var offset = 0
    var chunk = 0
    repeat {
        let end = min(bytes.count, offset + chunkSizes[chunk % chunkSizes.count])
        chunk += 1
        decoder.append(contentsOf: Array(bytes[offset..<end]))
        offset = end
        do {
            while let event = try decoder.next() { result.events.append(event) }
        } catch {
            result.failure = error
            do {
                _ = try decoder.next()
                fuzzFailure("a spent decoder returned instead of throwing")
            } catch let again {
                fuzzCheck(again == error, "a spent decoder threw another error")
            }
            return result
        }
    } while offset < bytes.count
    return result
}

private func check(_ event: WebSocketEvent, limit: Int) {
    switch event {
    case .message(.text(let text)):
        fuzzCheck(text.utf8.count <= limit, "text message of \(text.utf8.count) bytes over the limit \(limit)")
    case .message(.binary(let bytes)):
        fuzzCheck(bytes.count <= limit, "binary message of \(bytes.count) bytes over the limit \(limit)")
    case .ping(let payload), .pong(let payload):
        fuzzCheck(payload.count <= 125, "control payload of \(payload.count) bytes")
    case .close(let close):
        if let code = close.code { fuzzCheck(code.isValidOnWire, "close code \(code) is not valid on the wire") }
        fuzzCheck(close.reason.utf8.count <= 123, "close reason of \(close.reason.utf8.count) bytes")
    }
}
