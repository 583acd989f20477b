/// Bytes in, messages and control events out: a `WebSocketFrameDecoder` followed by a
/// `WebSocketMessageAssembler`.
///
/// This is the whole receive side of a WebSocket endpoint as a pure value: no I/O, no clock,
/// so it is tested and fuzzed byte by byte. The first protocol violation is thrown with the
/// close code to send; after that the decoder is spent and keeps throwing it.
public struct WebSocketDecoder: Sendable {
    /// 16 MiB: Home Assistant snapshots reach several MiB; anything far beyond is a fault.
    public static let defaultMaximumMessageSize = 16 * 1024 * 1024

    private var frames: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var failure: WebSocketProtocolError?

    /// A decoder for the local `role` (`.client` reads unmasked server frames) accepting
    /// messages up to `maximumMessageSize` bytes.
    public init(role: WebSocketRole, maximumMessageSize: Int = defaultMaximumMessageSize) {
        frames = WebSocketFrameDecoder(role: role, maximumPayloadCount: maximumMessageSize)
        assembler = WebSocketMessageAssembler(maximumMessageSize: maximumMessageSize)
    }

    /// Bytes received but not yet decoded into frames.
    public var bufferedByteCount: Int { frames.bufferedByteCount }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        frames.append(bytes)
    }

    /// Adds received bytes.
    public mutating func append(contentsOf bytes: [UInt8]) {
        frames.append(contentsOf: bytes)
    }

    /// The next message or control event, or nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketEvent? {
        if let failure { throw failure }
        do {
            while let frame = try frames.nextFrame() {
                if let event = try assembler.assemble(frame) { return event }
            }
            return nil
        } catch {
            failure = error
            throw error
        }
    }
}
