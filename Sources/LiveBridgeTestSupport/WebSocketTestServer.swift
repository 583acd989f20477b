import Foundation
import Glibc
public import LiveBridgeNet
import Synchronization

/// A plain-TCP `ws://` server on 127.0.0.1 (port 0) for tests and fakes.
///
/// It does the server side of the opening handshake with LiveBridgeNet's codec and hands each
/// accepted WebSocket to the test as a `Connection`: an async handle to receive what the client
/// sent (messages, pings, pongs, closes) and to send text, binary, control frames or raw bytes.
/// A connection can stop answering pings (a silently dead link) or drop its TCP connection (a
/// crashed server), which is what dead-link and reconnect tests need. A fake Home Assistant is
/// this server plus a script: check `request.target` in the handshake closure, then read and
/// answer messages on each connection.
///
/// Every wait is bounded (`timeout:` parameters); `stop()` drops everything. Threads: one
/// accept thread and one thread per connection, never the cooperative pool.
///
/// ```swift
/// let server = try WebSocketTestServer()
/// defer { server.stop() }
/// // … client connects to server.url(path: "/api/websocket") …
/// let connection = try await server.nextConnection()
/// connection.send(text: #"{"type":"auth_required"}"#)
/// let auth = try await connection.nextText()
/// ```
public final class WebSocketTestServer: Sendable {
    /// How the server answers an upgrade request.
    public enum HandshakeAnswer: Sendable {
        /// `101 Switching Protocols` (with extra header fields); the connection goes to `nextConnection()`.
        case accept(headers: [WebSocketHTTPHead.Field])
        /// An HTTP error page, then the TCP connection is closed.
        case reject(status: Int, reason: String, contentType: String, body: String)
        /// Arbitrary bytes (e.g. a broken 101), then the TCP connection is closed.
        case raw([UInt8])
        /// Reads the request and never answers (handshake-timeout tests); closed on `stop()`.
        case noAnswer

        /// `101 Switching Protocols` without extra fields.
        public static let accept = HandshakeAnswer.accept(headers: [])
    }

    /// The bound port on 127.0.0.1.
    public let port: Int

    private struct State {
        var stopped = false
        var connections: [Connection] = []
        var requests: [WebSocketHandshakeRequest] = []
        var unansweredSockets: [Int32] = []
    }

    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let accepted = WebSocketTestMailbox<Connection>(label: "a WebSocket connection")
    private let upgradeRequests = WebSocketTestMailbox<WebSocketHandshakeRequest>(label: "an upgrade request")
    private let state = Mutex(State())
    private let handshake: @Sendable (WebSocketHandshakeRequest) -> HandshakeAnswer

    /// Starts listening on 127.0.0.1 with a free port; `handshake` decides each answer
    /// (default: accept everything). It runs on the connection's server thread.
    public init(
        handshake: @escaping @Sendable (WebSocketHandshakeRequest) -> HandshakeAnswer = { _ in .accept }
    ) throws {
        self.handshake = handshake
        let (listener, port) = try Self.listen()
        self.listener = listener
        self.port = port
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            Glibc.close(listener)
            throw WebSocketTestServerError("pipe failed: errno \(errno)")
        }
        wake = (fds[0], fds[1])
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "ws-test-server accept"
        thread.start()
    }

    /// `ws://127.0.0.1:<port><path>`.
    public func url(path: String = "/") -> String {
        "ws://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)"
    }

    /// The next connection whose handshake was accepted.
    public func nextConnection(timeout: Duration = .seconds(10)) async throws -> Connection {
        try await accepted.next(timeout: timeout)
    }

    /// Every upgrade request received so far (accepted or not), oldest first.
    public var requests: [WebSocketHandshakeRequest] { state.withLock { $0.requests } }

    /// The next upgrade request, accepted or not, as soon as it arrives (before it is answered).
    public func nextRequest(timeout: Duration = .seconds(10)) async throws -> WebSocketHandshakeRequest {
        try await upgradeRequests.next(timeout: timeout)
    }

    /// Stops accepting and drops every connection (TCP close without a close frame). Idempotent.
    public func stop() {
        let connections = state.withLock { state -> [Connection] in
            guard !state.stopped else { return [] }
            state.stopped = true
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
            // Under the lock: a listed socket is not closed yet (its thread unlists it first).
            for socket in state.unansweredSockets { shutdown(socket, Int32(SHUT_RDWR)) }
            defer { state.connections = [] }
            return state.connections
        }
        for connection in connections { connection.drop() }
        accepted.finish(WebSocketTestServerError("the server was stopped"))
        upgradeRequests.finish(WebSocketTestServerError("the server was stopped"))
    }

    // MARK: - Accepting

    private static func listen() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WebSocketTestServerError("socket failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw WebSocketTestServerError("bind/listen on 127.0.0.1 failed: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func acceptLoop() {
        while true {
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let result = poll(&fds, 2, -1)
            if result < 0, errno == EINTR { continue }
            if result < 0 || fds[1].revents != 0 { break }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            let thread = Thread { [self] in serve(client) }
            thread.name = "ws-test-server connection"
            thread.start()
        }
        Glibc.close(listener)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// Handshake on the connection's own thread, then the frame loop.
    private func serve(_ socket: Int32) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = Date().addingTimeInterval(10)
        var parsed: (head: WebSocketHTTPHead, count: Int)?
        while parsed == nil {
            guard Date() < deadline, WebSocketTestSocket.waitReadable(socket, milliseconds: 100) != .failed else {
                Glibc.close(socket)
                return
            }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                Glibc.close(socket)
                return
            }
            if count > 0 { received.append(contentsOf: chunk[0..<count]) }
            if let first = received.first, !(0x41...0x5A).contains(first) {
                // Not an HTTP request (e.g. a TLS ClientHello): answer 400 like a real HTTP server.
                _ = WebSocketTestSocket.sendAll(
                    socket, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                WebSocketTestSocket.closeGracefully(socket)
                return
            }
            parsed = try? WebSocketHTTPHead.parse(received)
        }
        guard let (head, headCount) = parsed, let request = try? WebSocketHandshakeRequest(head: head) else {
            _ = WebSocketTestSocket.sendAll(socket, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
            WebSocketTestSocket.closeGracefully(socket)
            return
        }
        let stopped = state.withLock { state -> Bool in
            state.requests.append(request)
            return state.stopped
        }
        upgradeRequests.put(request)
        guard !stopped else {
            Glibc.close(socket)
            return
        }
        switch handshake(request) {
        case .accept(let headers):
            guard
                WebSocketTestSocket.sendAll(
                    socket,
                    Array(WebSocketHandshake.switchingProtocolsResponse(key: request.key, headers: headers).utf8))
            else {
                Glibc.close(socket)
                return
            }
            let connection = Connection(socket: socket, request: request, leftover: Array(received[headCount...]))
            let registered = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.append(connection)
                return true
            }
            guard registered else {
                connection.drop()
                connection.run()
                return
            }
            accepted.put(connection)
            connection.run()
        case .reject(let status, let reason, let contentType, let body):
            let bodyBytes = Array(body.utf8)
            let text =
                "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\n"
                + "Connection: close\r\n\r\n"
            _ = WebSocketTestSocket.sendAll(socket, Array(text.utf8) + bodyBytes)
            WebSocketTestSocket.closeGracefully(socket)
        case .raw(let bytes):
            _ = WebSocketTestSocket.sendAll(socket, bytes)
            WebSocketTestSocket.closeGracefully(socket)
        case .noAnswer:
            let registered = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.unansweredSockets.append(socket)
                return true
            }
            // Wait until the client gives up or the server stops (which shuts the socket down).
            while registered, WebSocketTestSocket.waitReadable(socket, milliseconds: -1) == .ready {
                let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { break }
            }
            state.withLock { $0.unansweredSockets.removeAll { $0 == socket } }
            Glibc.close(socket)
        }
    }
}

/// Something in the test server went wrong (it could not listen, was stopped, the peer closed).
public struct WebSocketTestServerError: Error, CustomStringConvertible {
    /// What happened.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// A short human-readable form for logs and messages.
    public var description: String { message }
}

/// Blocking-with-timeout helpers over non-blocking sockets (test-support threads only).
enum WebSocketTestSocket {
    enum Wait { case ready, timedOut, failed }

    static func waitReadable(_ socket: Int32, milliseconds: Int32) -> Wait {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, 1, milliseconds)
            if result < 0, errno == EINTR { continue }
            if result < 0 { return .failed }
            return result == 0 ? .timedOut : .ready
        }
    }

    /// Sends everything, waiting for room up to 10 s; false on error.
    static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        let deadline = Date().addingTimeInterval(10)
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                offset += count
                continue
            }
            guard count < 0, errno == EAGAIN || errno == EINTR, Date() < deadline else { return false }
            var fds = [pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)]
            _ = poll(&fds, 1, 100)
        }
        return true
    }

    /// Half-closes, waits (≤ 2 s) for the peer to close its side, then closes: the peer reads
    /// everything we sent instead of getting a reset.
    static func closeGracefully(_ socket: Int32) {
        shutdown(socket, Int32(SHUT_WR))
        let deadline = Date().addingTimeInterval(2)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline, waitReadable(socket, milliseconds: 100) != .failed {
            let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { break }
        }
        Glibc.close(socket)
    }
}
