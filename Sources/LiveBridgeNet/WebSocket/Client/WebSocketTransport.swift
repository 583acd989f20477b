/// The network side of a WebSocket connection as the connection's I/O thread sees it: open a
/// link (TCP, TLS, opening handshake), then move whole frames in and out.
///
/// It is a seam, not an abstraction for its own sake: today `CurlWebSocketTransport` does TCP
/// and TLS with libcurl `CONNECT_ONLY` plus our own handshake and frame codec; once libcurl's
/// `curl_ws_*` API is available (stable from 8.11) a transport built on it can replace that
/// without touching the connection's policy (pings, close handshake, message assembly).
///
/// Every method runs on the connection's own thread; implementations need no locking.
protocol WebSocketTransport: AnyObject {
    /// Connects and completes the opening handshake. Blocks the calling (owned) thread.
    ///
    /// `interrupt` is polled alongside the socket during the handshake; when it is readable and
    /// `shouldAbort()` is true the open gives up with `CancellationError`.
    /// - Throws: `WebSocketError` or `CancellationError`.
    func open(interrupt: Int32, shouldAbort: () -> Bool) throws

    /// The descriptor to poll for input and for room to write, valid after `open`.
    var pollDescriptor: Int32 { get }

    /// Reads and decodes everything available, passing each frame to `onFrame` until it
    /// returns false.
    func receive(_ onFrame: (WebSocketFrame) -> Bool) throws(WebSocketTransportFailure) -> WebSocketReceiveStatus

    /// Queues `frame` for sending and returns its sequence number (1, 2, …).
    @discardableResult
    func enqueue(_ frame: WebSocketFrame) -> Int

    /// Writes queued frames until done or the socket is full.
    func flush() throws(WebSocketTransportFailure)

    /// True while queued bytes wait to be written.
    var hasPendingOutput: Bool { get }

    /// How many queued frames have been written completely (sequence numbers up to this are out).
    var completedFrameCount: Int { get }

    /// Drops the link and frees everything; idempotent.
    func close()
}

/// Where `receive` stopped.
enum WebSocketReceiveStatus: Equatable, Sendable {
    /// Nothing more to read now: wait for the descriptor to become readable.
    case drained
    /// Stopped to let other work run; more input may be buffered: call again without waiting.
    case paused
    /// `onFrame` asked to stop.
    case stopped
    /// The peer ended the byte stream.
    case endOfStream
}

/// Why `receive` or `flush` failed.
enum WebSocketTransportFailure: Error, Equatable, Sendable {
    /// The peer's frames broke RFC 6455.
    case protocolViolation(WebSocketProtocolError)
    /// The link failed (reset, TLS error); the text says how.
    case linkFailed(String)
}
