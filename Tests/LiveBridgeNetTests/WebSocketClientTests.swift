import Glibc
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The client against `WebSocketTestServer` over real loopback sockets.
@Suite("WebSocket client over real sockets", .timeLimit(.minutes(1)))
struct WebSocketClientTests {
    /// Echoes every message back until the connection ends.
    static func echo(_ connection: WebSocketTestServer.Connection) -> Task<Void, Never> {
        Task {
            while let message = try? await connection.nextMessage(timeout: .seconds(30)) {
                switch message {
                case .text(let text): connection.send(text: text)
                case .binary(let bytes): connection.send(binary: bytes)
                }
            }
        }
    }

    static func configuration(_ url: String, pingInterval: Duration? = nil) -> WebSocketConfiguration {
        WebSocketConfiguration(
            url: url, connectTimeout: .seconds(5), handshakeTimeout: .seconds(5), pingInterval: pingInterval,
            closeTimeout: .seconds(2))
    }

    @Test("Echo round trip of small text, binary and a 1 MB message")
    func echoRoundTrip() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url(path: "/api/websocket")))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        #expect(serverSide.request.target == "/api/websocket")
        let echo = Self.echo(serverSide)
        defer { echo.cancel() }

        try await client.send(text: "hello ✓")
        #expect(try await inbox.next() == .text("hello ✓"))
        try await client.send(binary: [0, 1, 2, 255])
        #expect(try await inbox.next() == .binary([0, 1, 2, 255]))

        let big = String((0..<1_000_000).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
        try await client.send(text: big)
        #expect(try await inbox.next(timeout: .seconds(20)) == .text(big))
        let bigBinary = (0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await client.send(binary: bigBinary)
        #expect(try await inbox.next(timeout: .seconds(20)) == .binary(bigBinary))

        await client.close()
        #expect(try await inbox.end() == nil)
    }

    @Test("Many messages in both directions keep their order")
    func ordering() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        let echo = Self.echo(serverSide)
        defer { echo.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<500 { try await client.send(text: "message \(index)") }
            }
            try await group.waitForAll()
        }
        for index in 0..<500 {
            #expect(try await inbox.nextText() == "message \(index)")
        }
        await client.close()
    }

    @Test("A server ping is answered with a pong carrying the same payload")
    func pingAnswered() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let serverSide = try await server.nextConnection()
        serverSide.sendPing([1, 2, 3])
        #expect(try await serverSide.nextEvent() == .pong([1, 2, 3]))
        await client.close()
    }

    @Test("A server close is answered with a close, and the stream ends with closedByPeer, code and reason")
    func serverCloseAnswered() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.sendClose(code: .goingAway, reason: "restarting")
        #expect(try await serverSide.nextEvent() == .close(WebSocketClose(code: .goingAway)))
        try await serverSide.waitUntilClosed()
        let error = try await inbox.endError()
        #expect(error.kind == .closedByPeer)
        #expect(error.closeCode == .goingAway)
        #expect(error.closeReason == "restarting")
        #expect(error.description.contains("1001 (going away)"))
        // Sending afterwards fails at once with notOpen.
        let sendError = await #expect(throws: WebSocketError.self) { try await client.send(text: "late") }
        #expect(sendError?.kind == .notOpen)
        await client.close()
    }

    @Test("Our close sends a close frame, waits for the answer and ends the stream normally")
    func clientClose() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        await client.close(code: .normalClosure, reason: "bye")
        #expect(try await serverSide.nextEvent() == .close(WebSocketClose(code: .normalClosure, reason: "bye")))
        #expect(try await inbox.end() == nil)
        try await serverSide.waitUntilClosed()
        await client.close()  // idempotent
    }

    @Test("Our close gives up after closeTimeout when the server never answers")
    func clientCloseWithoutAnswer() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        var configuration = Self.configuration(server.url())
        configuration.closeTimeout = .milliseconds(300)
        let client = try await WebSocketConnection.connect(configuration)
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.setAnswersClose(false)
        let started = ContinuousClock.now
        await client.close()
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try await inbox.end() == nil)
    }

    @Test("Our pings keep a healthy connection open")
    func pingsKeepAlive() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        // Only one ping is ever outstanding: a second ping proves the first pong was accepted,
        // so the pong timeout can be generous (no flakiness on a loaded machine).
        var configuration = Self.configuration(server.url(), pingInterval: .milliseconds(100))
        configuration.pongTimeout = .seconds(5)
        let client = try await WebSocketConnection.connect(configuration)
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        for _ in 0..<3 {
            guard case .ping = try await serverSide.nextEvent() else {
                Issue.record("expected a ping from the client")
                return
            }
        }
        serverSide.send(text: "still here")
        #expect(try await inbox.nextText() == "still here")
        await client.close()
    }

    @Test("A server that stops answering pings fails the connection with a ping timeout")
    func pingTimeout() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(
            Self.configuration(server.url(), pingInterval: .milliseconds(200)))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.setAnswersPings(false)
        let error = try await inbox.endError()
        #expect(error.kind == .pingTimeout)
        #expect(error.description.contains("no pong within 0.2 s"))
        // The server did see the unanswered ping, and the client dropped the TCP connection.
        guard case .ping = try await serverSide.nextEvent() else {
            Issue.record("expected the unanswered ping")
            return
        }
        try await serverSide.waitUntilClosed()
        await client.close()
    }

    @Test("A server dropping TCP ends the stream with connectionLost", arguments: [false, true])
    func serverDropsTCP(reset: Bool) async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.send(text: "last words")
        #expect(try await inbox.nextText() == "last words")
        serverSide.drop(reset: reset)
        let error = try await inbox.endError()
        #expect(error.kind == .connectionLost)
        #expect(error.description.contains("without a WebSocket close"))
        await client.close()
    }

    @Test("Connecting to a port nobody listens on fails with connectionRefused")
    func refused() async throws {
        let (port, descriptor) = try refusedPort()
        defer { close(descriptor) }
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration("ws://127.0.0.1:\(port)/api/websocket"))
        }
        #expect(error?.kind == .connectionRefused)
        #expect(error?.description.contains("connection refused by 127.0.0.1 port \(port)") == true)
    }

    @Test("An unknown host fails with dnsFailure")
    func unknownHost() async throws {
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration("ws://livebridge-test.invalid/"))
        }
        #expect(error?.kind == .dnsFailure)
        #expect(error?.description.contains("livebridge-test.invalid") == true)
    }

    @Test("HTTP 404 and 401 answers are reported with their status")
    func handshakeRejected() async throws {
        let server = try WebSocketTestServer { request in
            request.target == "/secret"
                ? .reject(status: 401, reason: "Unauthorized", contentType: "text/plain", body: "401: Unauthorized")
                : .reject(
                    status: 404, reason: "Not Found", contentType: "text/html", body: "<html><body>404</body></html>")
        }
        defer { server.stop() }
        let notFound = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration(server.url(path: "/wrong")))
        }
        #expect(notFound?.kind == .handshakeRejected)
        #expect(notFound?.httpStatus == 404)
        #expect(notFound?.description.contains("HTTP 404 Not Found") == true)
        #expect(notFound?.description.contains("/wrong") == true)

        let unauthorized = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration(server.url(path: "/secret")))
        }
        #expect(unauthorized?.kind == .handshakeRejected)
        #expect(unauthorized?.httpStatus == 401)
        #expect(unauthorized?.description.contains("HTTP 401 Unauthorized") == true)
    }

    @Test("An HTML page answered with 200 is reported as not a WebSocket endpoint")
    func htmlAnswer() async throws {
        let server = try WebSocketTestServer { _ in
            .reject(status: 200, reason: "OK", contentType: "text/html", body: "<!DOCTYPE html><html></html>")
        }
        defer { server.stop() }
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration(server.url()))
        }
        #expect(error?.kind == .notAWebSocketEndpoint)
        #expect(error?.description.contains("not a WebSocket endpoint") == true)
    }

    @Test("A 101 with a wrong accept value fails the handshake")
    func wrongAccept() async throws {
        let answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: bm9wZQ==\r\n\r\n"
        let server = try WebSocketTestServer { _ in .raw(Array(answer.utf8)) }
        defer { server.stop() }
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(Self.configuration(server.url()))
        }
        #expect(error?.kind == .handshakeFailed)
        #expect(error?.description.contains("Sec-WebSocket-Accept") == true)
    }

    @Test("A server that never answers the upgrade fails with a handshake timeout")
    func handshakeTimeout() async throws {
        let server = try WebSocketTestServer { _ in .noAnswer }
        defer { server.stop() }
        var configuration = Self.configuration(server.url())
        configuration.handshakeTimeout = .milliseconds(300)
        let error = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(configuration)
        }
        #expect(error?.kind == .timeout)
        #expect(error?.description.contains("did not complete the WebSocket upgrade within 0.3 s") == true)
    }

    @Test("Cancelling connect returns at once with CancellationError")
    func cancelConnect() async throws {
        let server = try WebSocketTestServer { _ in .noAnswer }
        defer { server.stop() }
        let task = Task {
            _ = try await WebSocketConnection.connect(Self.configuration(server.url()))
        }
        // Wait until the request reached the server, so the cancel hits a connect in progress.
        _ = try await server.nextRequest()
        task.cancel()
        let result = try await withTimeout(.seconds(5), "the cancelled connect") { await task.result }
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("Extra request headers reach the server")
    func extraHeaders() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        var configuration = Self.configuration(server.url(path: "/api/websocket?x=1"))
        configuration.headers = [WebSocketHTTPHead.Field(name: "Authorization", value: "Bearer canary-token")]
        let client = try await WebSocketConnection.connect(configuration)
        let serverSide = try await server.nextConnection()
        #expect(serverSide.request.head["authorization"] == "Bearer canary-token")
        #expect(serverSide.request.target == "/api/websocket?x=1")
        #expect(client.endpoint == "ws://127.0.0.1:\(server.port)/api/websocket")
        await client.close()
    }

    @Test("A masked frame from the server fails the connection with 1002, sent back to the server")
    func serverProtocolError() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.sendRaw(WebSocketFrameEncoder.encode(.text("masked"), maskingKey: WebSocketMaskingKey(1, 2, 3, 4)))
        let error = try await inbox.endError()
        #expect(error.kind == .protocolError)
        #expect(error.closeCode == .protocolError)
        guard case .close(let close) = try await serverSide.nextEvent() else {
            Issue.record("expected the client's close frame")
            return
        }
        #expect(close.code == .protocolError)
        await client.close()
    }

    @Test("A message over the configured limit fails with 1009")
    func messageTooBig() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        var configuration = Self.configuration(server.url())
        configuration.maximumMessageSize = 1_000
        let client = try await WebSocketConnection.connect(configuration)
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.send(binary: [UInt8](repeating: 1, count: 2_000))
        let error = try await inbox.endError()
        #expect(error.kind == .protocolError)
        #expect(error.closeCode == .messageTooBig)
        await client.close()
    }

    @Test("Fragmented server messages with a ping in between arrive whole, and the ping is answered")
    func fragmentsWithPing() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.send(frame: WebSocketFrame(fin: false, opcode: .text, payload: Array("{\"a\":".utf8)))
        serverSide.sendPing([42])
        serverSide.send(frame: WebSocketFrame(fin: true, opcode: .continuation, payload: Array("1}".utf8)))
        #expect(try await inbox.nextText() == "{\"a\":1}")
        #expect(try await serverSide.nextEvent() == .pong([42]))
        await client.close()
    }

    @Test("Cancelling the task that reads messages closes the connection with 1001")
    func cancelledReaderCloses() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        let client = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let serverSide = try await server.nextConnection()
        let reader = Task {
            for try await _ in client.messages {}
        }
        serverSide.send(text: "one")
        reader.cancel()
        guard case .close(let close) = try await serverSide.nextMessageOrClose() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(close.code == .goingAway)
        await client.close()
    }

    @Test("Secrets in the URL query and in headers never reach log lines or error messages")
    func secretsStayOut() async throws {
        let server = try WebSocketTestServer { request in
            request.target.hasPrefix("/missing")
                ? .reject(status: 404, reason: "Not Found", contentType: "text/plain", body: "nope") : .accept
        }
        defer { server.stop() }
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "ws", level: .trace, handler: logs)
        var configuration = Self.configuration(server.url(path: "/api/websocket?access_token=canary-query-1"))
        configuration.headers = [WebSocketHTTPHead.Field(name: "Authorization", value: "Bearer canary-header-2")]
        let client = try await WebSocketConnection.connect(configuration, logger: logger)
        let inbox = ClientInbox(client)
        let serverSide = try await server.nextConnection()
        serverSide.drop()
        let lost = try await inbox.endError()
        await client.close()

        var missing = configuration
        missing.url = server.url(path: "/missing?access_token=canary-query-1")
        let rejected = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(missing, logger: logger)
        }
        let texts = logs.lines + [lost.description, rejected?.description ?? ""]
        #expect(!logs.lines.isEmpty)
        for text in texts {
            #expect(!text.contains("canary"), "\(text)")
        }
    }

    @Test("A connection dropped without close() closes itself with 1001")
    func droppedConnectionCloses() async throws {
        let server = try WebSocketTestServer()
        defer { server.stop() }
        _ = try await WebSocketConnection.connect(Self.configuration(server.url()))
        let serverSide = try await server.nextConnection()
        guard case .close(let close) = try await serverSide.nextMessageOrClose() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(close.code == .goingAway)
        try await serverSide.waitUntilClosed()
    }

    @Test("Invalid URLs and headers are rejected before connecting")
    func invalidConfiguration() async throws {
        for url in ["http://127.0.0.1/", "ftp://x/", "ws://", "ws://user:pw@host/", "not a url"] {
            let error = await #expect(throws: WebSocketError.self) {
                _ = try await WebSocketConnection.connect(Self.configuration(url))
            }
            #expect(error?.kind == .invalidConfiguration, "\(url)")
        }
        var injected = Self.configuration("ws://127.0.0.1:1/")
        injected.headers = [WebSocketHTTPHead.Field(name: "X-Test", value: "a\r\nEvil: 1")]
        let injection = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(injected)
        }
        #expect(injection?.kind == .invalidConfiguration)
        var reserved = Self.configuration("ws://127.0.0.1:1/")
        reserved.headers = [WebSocketHTTPHead.Field(name: "Sec-WebSocket-Key", value: "x")]
        let reservedError = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(reserved)
        }
        #expect(reservedError?.kind == .invalidConfiguration)
    }
}

extension WebSocketTestServer.Connection {
    /// The next message or close event (pings and pongs skipped).
    func nextMessageOrClose(timeout: Duration = .seconds(10)) async throws -> WebSocketEvent {
        while true {
            let event = try await nextEvent(timeout: timeout)
            switch event {
            case .message, .close: return event
            case .ping, .pong: continue
            }
        }
    }
}
