// Compiled into every harness (see fuzz/build.sh): the byte reader harnesses use to make
// structured choices, and the one way a harness reports a broken invariant.

#if canImport(Glibc)
    import Glibc
#endif

/// The fuzzer's input as bytes, plus a cursor for harnesses that draw structured choices from it.
///
/// Reading past the end yields zeros instead of failing, so every input decodes to something and
/// libFuzzer's mutations of the tail never make an input useless.
struct FuzzInput {
    /// Every byte of the input.
    let bytes: [UInt8]
    private var cursor = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        if let data, size > 0 {
            bytes = Array(UnsafeBufferPointer(start: data, count: size))
        } else {
            bytes = []
        }
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// True once every byte was consumed.
    var isExhausted: Bool { cursor >= bytes.count }

    /// Bytes not consumed yet.
    var remaining: ArraySlice<UInt8> { bytes[min(cursor, bytes.count)...] }

    /// The next byte, or 0 past the end.
    mutating func byte() -> UInt8 {
        guard cursor < bytes.count else { return 0 }
        defer { cursor += 1 }
        return bytes[cursor]
    }

    /// A value in `range`, from one or two bytes.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = range.upperBound - range.lowerBound
        guard width > 0 else { return range.lowerBound }
        let raw = width < 256 ? Int(byte()) : Int(byte()) << 8 | Int(byte())
        return range.lowerBound + raw % (width + 1)
    }

    /// True or false from one byte's low bit.
    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Up to `count` of the next bytes.
    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let start = min(cursor, bytes.count)
        let end = min(start + max(0, count), bytes.count)
        cursor = end
        return bytes[start..<end]
    }

    /// Everything not consumed yet.
    mutating func rest() -> ArraySlice<UInt8> { take(bytes.count) }
}

/// Reports a broken invariant: prints `message` and aborts, which libFuzzer records as a crash
/// (the input is saved under the artifact prefix and `fuzz/run.sh` counts it).
func fuzzFailure(_ message: @autoclosure () -> String) -> Never {
    let text = "FUZZ INVARIANT BROKEN: " + message() + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    abort()
}

/// Checks an invariant; on violation reports it through `fuzzFailure`.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fuzzFailure(message()) }
}

/// True when `FUZZ_TRACE` is set: harnesses then say what each input reached (run a binary on
/// seed files to check that they get past the first error: `FUZZ_TRACE=1 .build/fuzz/bin/config
/// fuzz/corpus/config/*`).
let fuzzTracing = getenv("FUZZ_TRACE") != nil

/// Prints `message` to standard error when tracing.
func fuzzTrace(_ message: @autoclosure () -> String) {
    guard fuzzTracing else { return }
    let text = message() + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}
