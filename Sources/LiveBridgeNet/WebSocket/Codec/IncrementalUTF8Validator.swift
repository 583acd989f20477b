/// Checks UTF-8 that arrives in pieces (a fragmented text message), failing at the first byte
/// that can never be part of valid UTF-8 — including a code point split across fragments.
struct IncrementalUTF8Validator: Sendable {
    /// Continuation bytes still owed by the current code point.
    private var needed = 0
    /// Allowed range of the next continuation byte (narrowed after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// True when the bytes so far end on a code point boundary.
    var isComplete: Bool { needed == 0 }

    /// Feeds more bytes; false as soon as they cannot be valid UTF-8 (overlong forms,
    /// surrogates, code points above U+10FFFF, stray continuation bytes).
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return true }
        var index = 0
        while index < count {
            if needed == 0 {
                // ASCII fast path, eight bytes at a time.
                while index + 8 <= count,
                    base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
                index += 1
            }
        }
        return true
    }

    /// Feeds more bytes.
    mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }
}
