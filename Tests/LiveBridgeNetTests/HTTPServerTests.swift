import Foundation
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

@Suite("HTTPServer", .timeLimit(.minutes(1)))
struct HTTPServerTests {
    /// A server whose handler answers `/ok` with 200 "ok" and echoes everything else.
    static func makeServer(
        _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        events: HTTPTestEvents = HTTPTestEvents()
    ) throws -> HTTPServer {
        try HTTPServer(configuration: configuration) { request in
            events.record("entered \(request.path)")
            switch request.path {
            case "/ok":
                return .text("ok")
            case "/wait":
                let released = await events.wait(for: "release", within: 20)
                return .text(released ? "released" : "gave up")
            case "/hang":
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    events.record("cancelled \(request.path)")
                }
                return .text("late")
            case "/drop":
                return .dropConnection
            default:
                var headers: HTTPHeaders = ["X-Echo-Method": request.method, "Content-Type": "text/plain"]
                headers.add(name: "X-Echo-Header", value: request.headers.first(name: "x-test") ?? "-")
                let query = request.query.keys.sorted().map { "\($0)=\(request.query[$0]!)" }.joined(separator: ",")
                let text = "\(request.path)|\(query)|\(request.text)"
                return HTTPServerResponse(status: 201, headers: headers, body: Array(text.utf8))
            }
        }
    }

    static func exchange(_ port: UInt16, _ bytes: String) async throws -> HTTPRawResponse {
        let connection = try await HTTPRawConnection.connect(port: port)
        defer { connection.close() }
        try await connection.send(bytes)
        return try await connection.readResponse()
    }

    static func expectServing(_ port: UInt16) async throws {
        let response = try await exchange(port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.text == "ok")
    }

    static let badRequests: [(String, String, Int)] = [
        ("malformed request line", "HELLO\r\n\r\n", 400),
        ("malformed header", "GET / HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n", 400),
        ("bare line feeds", "GET / HTTP/1.1\nHost: x\n\n", 400),
        ("unknown method", "BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("body without length", "POST /hook HTTP/1.1\r\nHost: x\r\n\r\n", 411),
        (
            "chunked body",
            "POST /hook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 501
        ),
        ("HTTP/2 request line", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        (
            "oversize headers", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 20_000))\r\n\r\n",
            431
        ),
        (
            "oversize body",
            "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"
                + String(repeating: "x", count: 200_000), 413
        ),
    ]

    @Test("bad requests get the right status and the server keeps serving", arguments: badRequests)
    func badRequest(name: String, bytes: String, status: Int) async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let response = try await Self.exchange(server.port, bytes)
        #expect(response.status == status, "\(name): \(response.statusLine)")
        #expect(response.header("Connection") == "close")
        #expect(response.text.hasPrefix("\(status) "))
        if status == 405 {
            #expect(response.header("Allow") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        }
        try await Self.expectServing(server.port)
    }

    @Test("a client that sends half a request and stalls gets 408 at the deadline")
    func slowlorisStall() async throws {
        let server = try Self.makeServer(HTTPServerConfiguration(requestDeadline: 0.5))
        defer { server.shutdown() }
        // Measured from before connecting: the server's deadline starts at accept.
        let start = ContinuousClock.now
        let connection = try await HTTPRawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n")
        let response = try await connection.readResponse()
        let elapsed = secondsSince(start)
        #expect(response.status == 408)
        #expect(elapsed >= 0.45 && elapsed < 5, "408 after \(elapsed) s (socket timeout is 5-10 s)")
        try await Self.expectServing(server.port)
    }

    @Test("a client dripping bytes cannot extend the whole-request deadline")
    func slowlorisDrip() async throws {
        let server = try Self.makeServer(HTTPServerConfiguration(requestDeadline: 0.5, socketTimeout: 5))
        defer { server.shutdown() }
        // Measured from before connecting: the server's deadline starts at accept.
        let start = ContinuousClock.now
        let connection = try await HTTPRawConnection.connect(port: server.port)
        defer { connection.close() }
        let dripper = Task {
            for byte in "GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "s", count: 100))".utf8 {
                guard (try? await connection.send([byte])) != nil else { return }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { dripper.cancel() }
        let response = try await connection.readResponse()
        let elapsed = secondsSince(start)
        #expect(response.status == 408)
        #expect(elapsed >= 0.45 && elapsed < 5, "408 after \(elapsed) s (socket timeout is 5-10 s)")
        try await Self.expectServing(server.port)
    }

    @Test("connections over the cap get 503 and the server recovers")
    func connectionCap() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(HTTPServerConfiguration(maxConnections: 2), events: events)
        defer { server.shutdown() }
        let first = try await HTTPRawConnection.connect(port: server.port)
        let second = try await HTTPRawConnection.connect(port: server.port)
        defer {
            first.close()
            second.close()
        }
        try await first.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        try await second.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await events.wait(for: "entered /wait", count: 2))

        let third = try await HTTPRawConnection.connect(port: server.port)
        defer { third.close() }
        let refused = try await third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")

        events.record("release")
        #expect(try await first.readResponse().text == "released")
        #expect(try await second.readResponse().text == "released")
        // Both answers were read to EOF, and the server frees a slot before it closes the socket.
        try await Self.expectServing(server.port)
    }

    @Test("the handler sees method, decoded path and query, headers and body; framing is the server's")
    func roundTrip() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let response = try await Self.exchange(
            server.port,
            "PATCH /items/a%20b?x=1&y=two+words HTTP/1.1\r\nHost: x\r\nX-Test: hello\r\nContent-Length: 4\r\n\r\nbody")
        #expect(response.statusLine == "HTTP/1.1 201 Created")
        #expect(response.header("X-Echo-Method") == "PATCH")
        #expect(response.header("X-Echo-Header") == "hello")
        #expect(response.header("Content-Length") == "\(response.body.count)")
        #expect(response.header("Connection") == "close")
        #expect(response.text == "/items/a b|x=1,y=two words|body")
    }

    @Test("HEAD gets the headers with Content-Length but no body")
    func head() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let response = try await Self.exchange(server.port, "HEAD /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "2")
        #expect(response.body.isEmpty)
    }

    @Test("dropConnection closes without writing a byte")
    func dropConnection() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let connection = try await HTTPRawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send("GET /drop HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await connection.readToEnd().isEmpty)
        try await Self.expectServing(server.port)
    }

    @Test("a client hanging up while the handler runs cancels the handler's task")
    func clientHangUpCancelsHandler() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        defer { server.shutdown() }
        let connection = try await HTTPRawConnection.connect(port: server.port)
        try await connection.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await events.wait(for: "entered /hang"))
        connection.close()
        #expect(await events.wait(for: "cancelled /hang"))
        try await Self.expectServing(server.port)
    }

    @Test("shutdown returns promptly with a handler still running, cancels it and stops listening")
    func shutdownWithStuckHandler() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        let port = server.port
        let connection = try await HTTPRawConnection.connect(port: port)
        defer { connection.close() }
        try await connection.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await events.wait(for: "entered /hang"))
        let start = ContinuousClock.now
        try await HTTPBlockingWork.run { server.shutdown() }
        #expect(secondsSince(start) < 2)
        #expect(await events.wait(for: "cancelled /hang"))
        #expect(try await connection.readToEnd().isEmpty)
        await #expect(throws: HTTPTestSocketError.self) {
            _ = try await HTTPRawConnection.connect(port: port)
        }
        server.shutdown()  // idempotent
    }

    @Test("run() returns when its task is cancelled, shutting the server down")
    func runUntilCancelled() async throws {
        let server = try Self.makeServer()
        let runner = Task { await server.run() }
        try await Self.expectServing(server.port)
        runner.cancel()
        await runner.value
        await #expect(throws: HTTPTestSocketError.self) {
            _ = try await HTTPRawConnection.connect(port: server.port)
        }
    }

    @Test("listen addresses: host:port parsing, port 0, address in use, invalid host")
    func addresses() throws {
        let server = try HTTPServer(address: "127.0.0.1:0") { _ in .text("x") }
        defer { server.shutdown() }
        #expect(server.port != 0)
        #expect(server.address == "127.0.0.1:\(server.port)")
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(address: "127.0.0.1:\(server.port)") { _ in .text("x") }
        }
        do {
            _ = try HTTPServer(address: "127.0.0.1:\(server.port)") { _ in .text("x") }
        } catch {
            #expect(error.code == .addressInUse)
            #expect(error.message.contains("already in use"))
        }
        for bad in ["nonsense", "127.0.0.1", "127.0.0.1:99999", "example.com:80", "[::1"] {
            #expect(throws: HTTPServerError.self, "\(bad)") {
                _ = try HTTPServer(address: bad) { _ in .text("x") }
            }
        }
        let v6 = try HTTPServerConfiguration(address: "[::1]:8080")
        #expect(v6.host == "::1" && v6.port == 8080)
    }
}
