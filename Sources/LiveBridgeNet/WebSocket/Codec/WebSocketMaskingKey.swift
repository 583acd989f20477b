/// The 4-byte key a client XORs over every payload it sends (RFC 6455 §5.3).
///
/// Masking exists so that a client's bytes are unpredictable to intermediaries; the key must
/// come from a strong random source. Tests inject a seeded generator or a fixed key.
public struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key bytes in wire order.
    public let bytes: (UInt8, UInt8, UInt8, UInt8)

    /// A fixed key (tests, or a key read from a frame header).
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        bytes = (b0, b1, b2, b3)
    }

    /// A fresh key from `generator`.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> WebSocketMaskingKey {
        let word = generator.next() as UInt32
        return WebSocketMaskingKey(
            UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
            UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24))
    }

    /// A fresh key from the system's cryptographic random source.
    public static func random() -> WebSocketMaskingKey {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Two keys are equal when all four bytes are.
    public static func == (lhs: WebSocketMaskingKey, rhs: WebSocketMaskingKey) -> Bool {
        lhs.bytes == rhs.bytes
    }

    /// Hashes the four key bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }

    /// XORs the key over `buffer` in place; masking and unmasking are the same operation.
    ///
    /// `keyOffset` is the payload position of `buffer[0]` (to mask a payload in pieces).
    public func apply(to buffer: UnsafeMutableRawBufferPointer, keyOffset: Int = 0) {
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return }
        // The key rotated to line up with buffer[0] and repeated twice, least significant byte
        // first: byte j of `word` masks the payload byte at j (mod 8) past a word boundary.
        let shift = keyOffset & 3
        var word: UInt64 = 0
        withUnsafeBytes(of: bytes) { key in
            for index in 0..<8 { word |= UInt64(key[(index + shift) & 3]) << (8 * UInt64(index)) }
        }
        var index = 0
        while index + 8 <= count {
            let value = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ word
            base.storeBytes(of: value.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            let mask = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index & 7)))
            base.storeBytes(of: byte ^ mask, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }

    /// XORs the key over `bytes` in place.
    public func apply(to bytes: inout [UInt8], keyOffset: Int = 0) {
        bytes.withUnsafeMutableBytes { apply(to: $0, keyOffset: keyOffset) }
    }
}
