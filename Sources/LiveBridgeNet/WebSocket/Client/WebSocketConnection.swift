import FoundationEssentials
import Glibc
public import LiveBridgeFoundation

/// A client WebSocket connection (RFC 6455) over libcurl: `ws://` and `wss://` with optional
/// public-key pinning, automatic pongs, keep-alive pings with dead-link detection, and the
/// closing handshake.
///
/// Each connection owns one I/O thread, so nothing here blocks the cooperative pool. Messages
/// arrive on `messages`; it ends normally after our own `close()`, and throws `WebSocketError`
/// when the connection ends any other way (`.closedByPeer`, `.pingTimeout`, `.connectionLost`,
/// `.protocolError`). There is no reconnect logic here: the session above owns reconnects.
///
/// Always end a connection with `close()` (or use `withConnection`). As a safety net, cancelling
/// the task that iterates `messages`, or dropping the connection, closes it with 1001.
///
/// Inbound messages are buffered without limit until read, so read `messages` promptly (Home
/// Assistant disconnects clients that fall far behind anyway). Sends complete in order.
public final class WebSocketConnection: Sendable {
    /// Inbound text and binary messages, in order.
    public let messages: AsyncThrowingStream<WebSocketMessage, any Error>

    /// The endpoint without query or credentials, e.g. `wss://ha.local:8123/api/websocket`.
    public var endpoint: String { core.endpoint.description }

    private let core: WebSocketConnectionCore

    private init(core: WebSocketConnectionCore, messages: AsyncThrowingStream<WebSocketMessage, any Error>) {
        self.core = core
        self.messages = messages
    }

    /// Opens a connection: DNS, TCP, TLS, opening handshake. Returns once the server has
    /// switched to WebSocket.
    ///
    /// - Throws: `WebSocketError` (refused, DNS, TLS, pin mismatch, handshake rejected with its
    ///   HTTP status, …) or `CancellationError` when the calling task is cancelled.
    public static func connect(
        _ configuration: WebSocketConfiguration, logger: Logger = .disabled
    ) async throws -> WebSocketConnection {
        let endpoint = try WebSocketEndpoint(configuration.url)
        try validate(configuration, endpoint: endpoint)
        return try await connect(configuration, endpoint: endpoint, logger: logger) {
            CurlWebSocketTransport(endpoint: endpoint, configuration: configuration, logger: logger)
        }
    }

    /// Opens a connection, runs `body` with it and closes it (1000) however `body` ends.
    public static func withConnection<Result: Sendable>(
        _ configuration: WebSocketConfiguration, logger: Logger = .disabled,
        _ body: (WebSocketConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await connect(configuration, logger: logger)
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Sends a text message. Returns once it is handed to the network.
    ///
    /// Cancelling the calling task does not withdraw a message already queued (a half-written
    /// frame cannot be taken back); the call still returns when it is written or the link ends.
    /// - Throws: `WebSocketError` `.notOpen` when the connection has ended (also when it ends
    ///   before the message is written).
    public func send(text: String) async throws {
        try await send(.text(text))
    }

    /// Sends a binary message. Returns once it is handed to the network.
    ///
    /// - Throws: `WebSocketError` `.notOpen` when the connection has ended.
    public func send(binary: [UInt8]) async throws {
        try await send(.binary(binary))
    }

    /// Starts the closing handshake with `code` and `reason` and returns once the connection is
    /// torn down (the server answered, or `closeTimeout` passed). Idempotent; after it,
    /// `messages` ends normally unless the connection had already failed.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        core.submit(.close(code, reason))
        await core.waitUntilFinished()
    }

    private func send(_ frame: WebSocketFrame) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            core.submit(.send(frame, waiter))
        }
    }

    /// Opens a connection over the transport `makeTransport` builds on the I/O thread.
    static func connect(
        _ configuration: WebSocketConfiguration, endpoint: WebSocketEndpoint, logger: Logger,
        makeTransport: @escaping @Sendable () -> any WebSocketTransport
    ) async throws -> WebSocketConnection {
        guard let wakePipe = WebSocketPolling.makeWakePipe() else {
            throw WebSocketError(
                .connectionFailed, endpoint: endpoint.description,
                detail: "could not create a wake-up pipe (errno \(errno)); the process may be out of file descriptors")
        }
        let (messages, continuation) = AsyncThrowingStream.makeStream(of: WebSocketMessage.self)
        let core = WebSocketConnectionCore(endpoint: endpoint, wakePipe: wakePipe, continuation: continuation)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                guard core.installConnectContinuation(waiter) else {
                    core.finish(nil)
                    waiter.resume(throwing: CancellationError())
                    return
                }
                let thread = HTTPIOThread(name: "lb-websocket") {
                    let loop = WebSocketConnectionLoop(
                        core: core, transport: makeTransport(), configuration: configuration, logger: logger)
                    loop.run()
                }
                guard let thread else {
                    fatalError("cannot start the WebSocket connection thread (thread limit reached)")
                }
                thread.detach()
            }
        } onCancel: {
            core.abandonConnect()
        }
        core.closeWhenStreamIsAbandoned()
        return WebSocketConnection(core: core, messages: messages)
    }

    private static func validate(_ configuration: WebSocketConfiguration, endpoint: WebSocketEndpoint) throws {
        func invalid(_ detail: String) -> WebSocketError {
            WebSocketError(.invalidConfiguration, endpoint: endpoint.description, detail: detail)
        }
        for field in configuration.headers {
            guard !field.name.isEmpty, WebSocketHandshake.isSafeHeaderText(field.name), !field.name.contains(":"),
                WebSocketHandshake.isSafeHeaderText(field.value)
            else {
                throw invalid(
                    "header \"\(WebSocketHandshake.printable(field.name))\" contains characters that cannot be sent")
            }
            guard !WebSocketHandshake.reservedHeaderNames.contains(field.name.lowercased()) else {
                throw invalid("header \"\(field.name)\" is set by the WebSocket handshake itself; remove it")
            }
        }
        if let pin = configuration.pinnedPublicKey, !pin.hasPrefix("sha256//") || pin.count <= 8 {
            throw invalid("the public-key pin must look like sha256//<base64>; got a value without that prefix")
        }
        if let caFile = configuration.caFile, access(caFile, R_OK) != 0 {
            throw invalid("the CA file \"\(caFile)\" cannot be read")
        }
        guard configuration.maximumMessageSize > 0 else {
            throw invalid("maximumMessageSize must be positive")
        }
    }
}
