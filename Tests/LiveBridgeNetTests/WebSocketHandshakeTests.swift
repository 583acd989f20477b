import LiveBridgeNet
import Testing

@Suite("WebSocket opening handshake")
struct WebSocketHandshakeTests {
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    static func head(_ text: String) throws -> WebSocketHTTPHead {
        try #require(try WebSocketHTTPHead.parse(Array(text.utf8))).head
    }

    static func response(_ lines: [String], body: String = "") -> String {
        lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    /// RFC 6455 §1.3 and §4.2.2: key `dGhlIHNhbXBsZSBub25jZQ==` → `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`
    /// (cross-checked with `openssl sha1 -binary | base64`).
    @Test("Sec-WebSocket-Accept of the RFC 6455 sample key")
    func acceptOfSampleKey() {
        #expect(WebSocketHandshake.acceptValue(for: Self.sampleKey) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("Keys are 16 random bytes in base64, fresh each time, reproducible with an injected generator")
    func keyGeneration() {
        let key = WebSocketHandshake.makeKey()
        #expect(key.utf8.count == 24)
        #expect(key.hasSuffix("=="))
        #expect(WebSocketHandshake.makeKey() != key)
        var first = SeededGenerator(seed: 1)
        var second = SeededGenerator(seed: 1)
        #expect(WebSocketHandshake.makeKey(using: &first) == WebSocketHandshake.makeKey(using: &second))
    }

    @Test("The request is a GET upgrade with the key, version 13 and extra headers, and parses on the server side")
    func requestText() throws {
        let text = WebSocketHandshake.requestText(
            hostHeader: "ha.local:8123", target: "/api/websocket", key: Self.sampleKey,
            headers: [WebSocketHTTPHead.Field(name: "Origin", value: "http://ha.local:8123")])
        #expect(text.hasPrefix("GET /api/websocket HTTP/1.1\r\nHost: ha.local:8123\r\n"))
        #expect(text.hasSuffix("Origin: http://ha.local:8123\r\n\r\n"))
        let request = try WebSocketHandshakeRequest(head: Self.head(text))
        #expect(request.key == Self.sampleKey)
        #expect(request.target == "/api/websocket")
        #expect(request.head["origin"] == "http://ha.local:8123")
    }

    @Test("A proper 101 answer validates; the server builder produces one")
    func validResponse() throws {
        let response = WebSocketHandshake.switchingProtocolsResponse(key: Self.sampleKey)
        let parsed = try #require(try WebSocketHTTPHead.parse(Array((response + "\u{81}\u{00}").utf8)))
        #expect(parsed.count == response.utf8.count)
        try WebSocketHandshake.validateResponse(parsed.head, key: Self.sampleKey)
        // Case-insensitive header names and values, Connection with several tokens.
        let relaxed = try Self.head(
            Self.response([
                "HTTP/1.1 101 Switching Protocols", "upgrade: WebSocket", "connection: keep-alive, upgrade",
                "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
            ]))
        try WebSocketHandshake.validateResponse(relaxed, key: Self.sampleKey)
    }

    @Test("An incomplete head parses as nil; an endless one fails")
    func incompleteHead() throws {
        #expect(try WebSocketHTTPHead.parse(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: web".utf8)) == nil)
        let endless = [UInt8](repeating: 0x41, count: WebSocketHandshake.maximumHeadSize + 10)
        #expect(throws: WebSocketHandshakeError.self) { try WebSocketHTTPHead.parse(endless) }
    }

    @Test("Wrong accept, missing Upgrade or Connection, unoffered extension are rejected")
    func invalidSwitch() throws {
        func check(_ lines: [String], _ reason: WebSocketHandshakeError.Reason) throws {
            let error = #expect(throws: WebSocketHandshakeError.self) {
                try WebSocketHandshake.validateResponse(Self.head(Self.response(lines)), key: Self.sampleKey)
            }
            #expect(error?.reason == reason)
        }
        let status = "HTTP/1.1 101 Switching Protocols"
        let accept = "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        try check([status, "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: AAAA"], .acceptMismatch)
        try check([status, "Upgrade: websocket", "Connection: Upgrade"], .acceptMismatch)
        try check([status, "Upgrade: h2c", "Connection: Upgrade", accept], .missingUpgrade)
        try check([status, "Upgrade: websocket", accept], .missingConnectionUpgrade)
        try check(
            [
                status, "Upgrade: websocket", "Connection: Upgrade", accept,
                "Sec-WebSocket-Extensions: permessage-deflate",
            ],
            .unexpectedExtension)
    }

    @Test("HTTP 404 and 401 are reported with their status and a hint")
    func rejectedStatus() throws {
        let notFound = try Self.head(
            Self.response(["HTTP/1.1 404 Not Found", "Content-Type: text/html"], body: "<html>nope</html>"))
        let error404 = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(
                notFound, bodyPrefix: Array("<html>nope</html>".utf8), key: Self.sampleKey)
        }
        #expect(error404?.reason == .rejected)
        #expect(error404?.statusCode == 404)
        #expect(error404?.detail.contains("HTTP 404 Not Found") == true)
        #expect(error404?.detail.contains("check the URL path") == true)

        let unauthorized = try Self.head(Self.response(["HTTP/1.1 401 Unauthorized", "Content-Type: text/plain"]))
        let error401 = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(
                unauthorized, bodyPrefix: Array("401: Unauthorized".utf8), key: Self.sampleKey)
        }
        #expect(error401?.statusCode == 401)
        #expect(error401?.detail.contains("\"401: Unauthorized\"") == true)
        #expect(error401?.detail.contains("check the token") == true)
    }

    @Test("An ordinary web page is reported as not a WebSocket endpoint")
    func htmlPage() throws {
        let page = try Self.head(Self.response(["HTTP/1.1 200 OK", "Content-Type: text/html; charset=utf-8"]))
        let error = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(
                page, bodyPrefix: Array("<!DOCTYPE html><html>".utf8), key: Self.sampleKey)
        }
        #expect(error?.reason == .notAWebSocketEndpoint)
        #expect(error?.statusCode == 200)
        #expect(error?.detail.contains("not a WebSocket endpoint") == true)
        #expect(error?.detail.contains("HTML page") == true)
    }

    @Test("A non-HTTP answer is reported as such")
    func notHTTP() throws {
        let garbage = try Self.head("SSH-2.0-OpenSSH_9.2\r\n\r\n")
        let error = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(garbage, key: Self.sampleKey)
        }
        #expect(error?.reason == .notHTTP)
    }

    @Test("Server-side parsing rejects requests that are not WebSocket upgrades")
    func invalidRequests() throws {
        #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshakeRequest(head: Self.head("POST / HTTP/1.1\r\nHost: x\r\n\r\n"))
        }
        #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshakeRequest(
                head: Self.head("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
        }
    }

    @Test("Header text with CR or LF is unsafe")
    func headerInjection() {
        #expect(WebSocketHandshake.isSafeHeaderText("Bearer abc"))
        #expect(!WebSocketHandshake.isSafeHeaderText("x\r\nEvil: 1"))
    }
}
