import LiveBridgeNet

/// SplitMix64: a tiny deterministic generator so codec tests and fuzzing are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a decoder produced from a byte stream: the events, then the error that stopped it.
struct DecodeOutcome: Equatable {
    var events: [WebSocketEvent]
    var error: WebSocketProtocolError?
}

/// Decodes `bytes` fed in pieces of the given sizes (cycled), or all at once when `chunkSizes` is empty.
func decodeAll(
    _ bytes: [UInt8], role: WebSocketRole = .client, chunkSizes: [Int] = [],
    maximumMessageSize: Int = WebSocketDecoder.defaultMaximumMessageSize
) -> DecodeOutcome {
    var decoder = WebSocketDecoder(role: role, maximumMessageSize: maximumMessageSize)
    var outcome = DecodeOutcome(events: [], error: nil)
    var offset = 0
    var chunkIndex = 0
    while offset < bytes.count {
        let size = chunkSizes.isEmpty ? bytes.count : max(1, chunkSizes[chunkIndex % chunkSizes.count])
        chunkIndex += 1
        let end = min(bytes.count, offset + size)
        decoder.append(contentsOf: Array(bytes[offset..<end]))
        offset = end
        do {
            while let event = try decoder.next() { outcome.events.append(event) }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

/// Server-side (unmasked) encoding of several frames back to back.
func serverBytes(_ frames: [WebSocketFrame]) -> [UInt8] {
    frames.flatMap { WebSocketFrameEncoder.encodeServerFrame($0) }
}

/// A frame header with raw first and second bytes followed by `payload` (no mask).
func rawFrame(_ first: UInt8, _ second: UInt8, _ rest: [UInt8] = []) -> [UInt8] {
    [first, second] + rest
}
