import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

@Suite("HTTPClient", .timeLimit(.minutes(1)))
struct HTTPClientTests {
    /// One client for the suite, as in the program; tests that shut a client down make their own.
    static let client = HTTPClient()

    /// A loopback server: `/echo` reflects the request, `/big` sends `n` bytes, `/status`
    /// answers `code`, `/hang` waits until cancelled, `/redirect` answers 302.
    static func makeServer(events: HTTPTestEvents = HTTPTestEvents()) throws -> HTTPServer {
        try HTTPServer(address: "127.0.0.1:0") { request in
            events.record("entered \(request.path)")
            switch request.path {
            case "/echo":
                var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
                headers.add(name: "X-Method", value: request.method)
                headers.add(
                    name: "X-Query",
                    value: request.query.keys.sorted().map { "\($0)=\(request.query[$0]!)" }.joined(separator: "&"))
                headers.add(name: "X-Token", value: request.headers.first(name: "x-token") ?? "-")
                headers.add(name: "X-Request-Content-Type", value: request.headers.first(name: "content-type") ?? "-")
                headers.add(name: "X-Request-Length", value: request.headers.first(name: "content-length") ?? "-")
                headers.add(name: "X-Multi", value: "one")
                headers.add(name: "x-multi", value: "two")
                return HTTPServerResponse(status: 201, headers: headers, body: request.body)
            case "/big":
                let size = Int(request.query["n"] ?? "0") ?? 0
                return HTTPServerResponse(body: [UInt8](repeating: 0x61, count: size))
            case "/status":
                return .text("status", status: Int(request.query["code"] ?? "200") ?? 200)
            case "/redirect":
                return HTTPServerResponse(status: 302, headers: ["Location": "/echo"])
            case "/hang":
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    events.record("cancelled \(request.path)")
                }
                return .text("late")
            default:
                return .text("not found", status: 404)
            }
        }
    }

    @Test("GET, POST and PATCH round trip with headers, query and body")
    func roundTrip() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"

        let get = try await Self.client.execute(
            HTTPRequest(url: "\(base)/echo?a=1&b=two%20words", headers: ["X-Token": "t1"]))
        #expect(get.status == 201)
        #expect(get.headers.first(name: "x-method") == "GET")
        #expect(get.headers.first(name: "X-QUERY") == "a=1&b=two words")
        #expect(get.headers.first(name: "x-token") == "t1")
        #expect(get.headers["X-Multi"] == ["one", "two"])
        #expect(get.body.isEmpty)

        let json = Array(#"{"state":"downloading"}"#.utf8)
        let post = try await Self.client.execute(
            HTTPRequest(
                method: "POST", url: "\(base)/echo", headers: ["Content-Type": "application/json"], body: json))
        #expect(post.headers.first(name: "x-method") == "POST")
        #expect(post.headers.first(name: "x-request-content-type") == "application/json")
        #expect(post.body == json)

        let binary: [UInt8] = (0...255).map { UInt8($0) } + [0, 0, 13, 10]
        let patch = try await Self.client.execute(
            HTTPRequest(
                method: "PATCH", url: "\(base)/echo", headers: ["Content-Type": "application/merge-patch+json"],
                body: binary))
        #expect(patch.headers.first(name: "x-method") == "PATCH")
        #expect(patch.body == binary)

        let emptyPatch = try await Self.client.execute(HTTPRequest(method: "PATCH", url: "\(base)/echo"))
        #expect(emptyPatch.status == 201, "PATCH without a body still sends Content-Length: 0")
        #expect(emptyPatch.headers.first(name: "x-request-length") == "0")
        #expect(emptyPatch.headers.first(name: "x-request-content-type") == "-", "no default form content type")

        let delete = try await Self.client.execute(HTTPRequest(method: "DELETE", url: "\(base)/echo"))
        #expect(delete.headers.first(name: "x-method") == "DELETE")

        let head = try await Self.client.execute(HTTPRequest(method: "HEAD", url: "\(base)/big?n=10"))
        #expect(head.status == 200)
        #expect(head.headers.first(name: "content-length") == "10")
        #expect(head.body.isEmpty)
    }

    @Test("non-2xx statuses are responses, and redirects are not followed")
    func statusesAndRedirects() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"
        for code in [204, 404, 429, 500, 503] {
            let response = try await Self.client.execute(HTTPRequest(url: "\(base)/status?code=\(code)"))
            #expect(response.status == code)
            #expect(response.isSuccess == (200..<300).contains(code))
        }
        let redirect = try await Self.client.execute(HTTPRequest(url: "\(base)/redirect"))
        #expect(redirect.status == 302)
        #expect(redirect.headers.first(name: "location") == "/echo")
    }

    @Test("100 concurrent requests all succeed")
    func concurrentRequests() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let response = try await Self.client.execute(
                        HTTPRequest(method: "POST", url: "\(base)/echo", body: Array("request \(index)".utf8)))
                    return (index, response.text)
                }
            }
            var collected: [Int: String] = [:]
            for try await (index, text) in group { collected[index] = text }
            return collected
        }
        #expect(bodies.count == 100)
        #expect((0..<100).allSatisfy { bodies[$0] == "request \($0)" })
    }

    @Test("a response body over the cap fails with tooLarge (announced and unannounced length)")
    func responseCap() async throws {
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"
        let fits = try await Self.client.execute(HTTPRequest(url: "\(base)/big?n=1000", maxResponseBytes: 1000))
        #expect(fits.body.count == 1000)
        let announced = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(HTTPRequest(url: "\(base)/big?n=1001", maxResponseBytes: 1000))
        }
        #expect(announced?.code == .tooLarge)

        // A close-delimited body (no Content-Length) is cut off by the write callback.
        let raw = try HTTPRawListener()
        defer { raw.close() }
        let reply =
            Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + [UInt8](repeating: 0x62, count: 200_000)
        async let served = raw.serveOnce(reply: reply)
        let unannounced = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(
                HTTPRequest(url: "http://127.0.0.1:\(raw.port)/", maxResponseBytes: 50_000))
        }
        #expect(unannounced?.code == .tooLarge)
        #expect(unannounced?.message.contains("50000 bytes") == true)
        _ = try await served
    }

    @Test("a server that never answers fails with timeout")
    func timeout() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        defer { server.shutdown() }
        let start = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(HTTPRequest(url: "http://127.0.0.1:\(server.port)/hang", timeout: 0.3))
        }
        #expect(error?.code == .timeout)
        #expect(secondsSince(start) < 5)
        // libcurl closed the connection, so the server cancels the abandoned handler.
        #expect(await events.wait(for: "cancelled /hang"))
    }

    @Test("a closed port fails with connectionRefused")
    func connectionRefused() async throws {
        let closed = try HTTPRawListener(listening: false)
        defer { closed.close() }
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(HTTPRequest(url: "http://127.0.0.1:\(closed.port)/", connectTimeout: 5))
        }
        #expect(error?.code == .connectionRefused)
    }

    @Test("an unresolvable host fails with dns")
    func dnsFailure() async throws {
        // `.invalid` is reserved (RFC 6761): it never resolves, and resolvers answer at once.
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(
                HTTPRequest(url: "http://livebridge-test.invalid/", connectTimeout: 5, timeout: 10))
        }
        #expect(error?.code == .dns)
    }

    @Test("cancelling the task throws cancelled and closes the connection")
    func cancellation() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        defer { server.shutdown() }
        let url = "http://127.0.0.1:\(server.port)/hang"
        let request = Task { () async throws -> HTTPResponse in
            try await Self.client.execute(HTTPRequest(url: url, timeout: 20))
        }
        #expect(await events.wait(for: "entered /hang"))
        let start = ContinuousClock.now
        request.cancel()
        let result = await request.result
        #expect(secondsSince(start) < 2)
        #expect(result.clientError?.code == .cancelled, "\(result)")
        #expect(await events.wait(for: "cancelled /hang"), "the server saw the connection close")
    }

    @Test("a task cancelled before the request starts fails without a connection")
    func cancelledBeforeStart() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        defer { server.shutdown() }
        let url = "http://127.0.0.1:\(server.port)/echo"
        let request = Task { () async throws -> HTTPResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.client.execute(HTTPRequest(url: url))
        }
        let result = await request.result
        #expect(result.clientError?.code == .cancelled, "\(result)")
        #expect(events.count("entered /echo") == 0)
    }

    @Test("invalid URLs and header injection are refused before any I/O")
    func invalidRequests() async throws {
        for url in ["ftp://example.com/", "example.com/path", "http://exa mple.com/", "file:///etc/passwd", ""] {
            let error = await #expect(throws: HTTPClientError.self, "\(url)") {
                _ = try await Self.client.execute(HTTPRequest(url: url))
            }
            #expect(error?.code == .invalidURL)
        }
        let injected = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(
                HTTPRequest(url: "http://127.0.0.1:1/", headers: ["X-Evil": "a\r\nInjected: yes"]))
        }
        #expect(injected?.code == .invalidRequest)
        let badMethod = await #expect(throws: HTTPClientError.self) {
            _ = try await Self.client.execute(HTTPRequest(method: "GET /x", url: "http://127.0.0.1:1/"))
        }
        #expect(badMethod?.code == .invalidRequest)
    }

    @Test("error descriptions never contain secrets from the URL or the headers")
    func errorsAreRedacted() async throws {
        let closed = try HTTPRawListener(listening: false)
        defer { closed.close() }
        let server = try Self.makeServer()
        defer { server.shutdown() }
        let secretQuery = "apikey=CANARYAPIKEY123&token=CANARYTOKEN456&mode=queue&output=json"
        let headers: HTTPHeaders = ["X-Api-Key": "CANARYHEADER789", "Authorization": "Bearer CANARYBEARER000"]
        let requests = [
            HTTPRequest(url: "http://127.0.0.1:\(closed.port)/api?\(secretQuery)", headers: headers),
            HTTPRequest(url: "http://user:CANARYPASSWORD@livebridge-test.invalid/api?\(secretQuery)", headers: headers),
            HTTPRequest(url: "http://127.0.0.1:\(server.port)/hang?\(secretQuery)", headers: headers, timeout: 0.2),
            HTTPRequest(
                url: "http://127.0.0.1:\(server.port)/big?n=100&\(secretQuery)", headers: headers,
                maxResponseBytes: 10),
            HTTPRequest(url: "ftp://host/api?\(secretQuery)", headers: headers),
        ]
        for request in requests {
            let error = await #expect(throws: HTTPClientError.self) {
                _ = try await Self.client.execute(request)
            }
            let text = error.map { "\($0) \($0.message)" } ?? ""
            #expect(!text.contains("CANARY"), "leaked: \(text)")
            #expect(text.contains("apikey=[redacted]&token=[redacted]&mode=queue&output=json"), "\(text)")
        }
    }

    @Test("shutdown fails in-flight requests with clientShutdown and refuses new ones")
    func shutdown() async throws {
        let events = HTTPTestEvents()
        let server = try Self.makeServer(events: events)
        defer { server.shutdown() }
        let client = HTTPClient()
        let url = "http://127.0.0.1:\(server.port)/hang"
        let pending = Task { () async throws -> HTTPResponse in
            try await client.execute(HTTPRequest(url: url, timeout: 20))
        }
        #expect(await events.wait(for: "entered /hang"))
        try await HTTPBlockingWork.run { client.shutdown() }
        let result = await pending.result
        #expect(result.clientError?.code == .clientShutdown, "\(result)")
        let late = await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPRequest(url: url))
        }
        #expect(late?.code == .clientShutdown)
        client.shutdown()  // idempotent
        #expect(await events.wait(for: "cancelled /hang"))
    }
}

extension Result where Failure == any Error {
    /// The `HTTPClientError` a failed task threw.
    var clientError: HTTPClientError? {
        if case .failure(let error) = self { return error as? HTTPClientError }
        return nil
    }
}
