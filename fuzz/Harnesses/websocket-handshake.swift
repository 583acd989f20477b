// Harness `websocket-handshake`: the client side of the opening handshake — the HTTP head a
// server (Home Assistant, or whatever proxy answers instead) sends back
// (`WebSocketHTTPHead.parse` then `WebSocketHandshake.validateResponse` in LiveBridgeNet).
//
// Invariants: parsing never crashes; it needs more bytes, throws a typed error, or returns a head
// that occupies at most the bytes given; validation accepts only a 101 whose Sec-WebSocket-Accept
// matches the key and otherwise throws a typed `WebSocketHandshakeError` whose message has no
// control characters (it reaches logs and `/health`).

import LiveBridgeNet

/// The key the seeds' 101 answers were computed for.
private let key = "dGhlIHNhbXBsZSBub25jZQ=="

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketHandshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let parsed: (head: WebSocketHTTPHead, count: Int)?
    do {
        parsed = try WebSocketHTTPHead.parse(input.bytes, limit: 2048)
    } catch {
        fuzzTrace("parse: \(error)")
        return 0
    }
    guard let (head, count) = parsed else {
        fuzzTrace("needs more bytes")
        return 0
    }
    fuzzCheck((4...input.bytes.count).contains(count), "head of \(count) bytes in \(input.bytes.count)")
    do {
        try WebSocketHandshake.validateResponse(head, bodyPrefix: Array(input.bytes[count...]), key: key)
        fuzzTrace("accepted: \(head.startLine)")
        // Leniency in the status line's form ("HTTP/1.0", "0101") is harmless: the accept value
        // proves a WebSocket server read our key.
        let status = head.startLine.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        fuzzCheck(status == 101, "accepted \(head.startLine)")
        fuzzCheck(head["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(for: key), "accepted a wrong accept")
    } catch {
        fuzzTrace("rejected: \(error)")
        let text = "\(error)"
        fuzzCheck(
            !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control character in \(text)")
    }
    return 0
}
