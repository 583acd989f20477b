import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// wss:// against a Python TLS echo server with certificates from `TestCertificateAuthority`.
@Suite("WebSocket client over TLS (wss://)", .timeLimit(.minutes(1)))
struct WebSocketTLSTests {
    static func configuration(
        _ url: String, pin: String? = nil, caFile: String? = nil, pingInterval: Duration? = nil
    ) -> WebSocketConfiguration {
        WebSocketConfiguration(
            url: url, pinnedPublicKey: pin, caFile: caFile, connectTimeout: .seconds(5), handshakeTimeout: .seconds(5),
            pingInterval: pingInterval, closeTimeout: .seconds(2))
    }

    /// Runs `body` with a fresh CA and a running echo server, then cleans both up.
    static func withEchoServer(
        _ body: (TestCertificateAuthority, WebSocketTLSEchoServer) async throws -> Void
    ) async throws {
        let authority = try TestCertificateAuthority(prefix: "wss")
        defer { authority.remove() }
        let server = try await WebSocketTLSEchoServer.start(certificateAuthority: authority)
        defer { server.stop() }
        try await body(authority, server)
    }

    @Test("wss:// with the right pin connects and echoes, including a 1 MB message")
    func rightPin() async throws {
        try await Self.withEchoServer { authority, server in
            let client = try await WebSocketConnection.connect(
                Self.configuration(server.url(path: "/api/websocket"), pin: authority.serverPublicKeyPin))
            let inbox = ClientInbox(client)
            try await client.send(text: "over TLS ✓")
            #expect(try await inbox.next() == .text("over TLS ✓"))
            let big = (0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            try await client.send(binary: big)
            #expect(try await inbox.next(timeout: .seconds(30)) == .binary(big))
            await client.close()
            #expect(try await inbox.end() == nil)
        }
    }

    @Test("wss:// with a wrong pin fails with pinMismatch")
    func wrongPin() async throws {
        try await Self.withEchoServer { _, server in
            let wrongPin = "sha256//" + String(repeating: "A", count: 43) + "="
            let error = await #expect(throws: WebSocketError.self) {
                _ = try await WebSocketConnection.connect(Self.configuration(server.url(), pin: wrongPin))
            }
            #expect(error?.kind == .pinMismatch)
            #expect(error?.description.contains("does not match the configured pin") == true)
        }
    }

    @Test("wss:// trusts a configured CA file, and refuses an unknown CA without a pin")
    func caFile() async throws {
        try await Self.withEchoServer { authority, server in
            let client = try await WebSocketConnection.connect(
                Self.configuration(server.url(), caFile: authority.caCertificatePath))
            let inbox = ClientInbox(client)
            try await client.send(text: "trusted")
            #expect(try await inbox.nextText() == "trusted")
            await client.close()

            let error = await #expect(throws: WebSocketError.self) {
                _ = try await WebSocketConnection.connect(Self.configuration(server.url()))
            }
            #expect(error?.kind == .tlsFailure)
        }
    }

    @Test("Our pings are sent and their pongs accepted over TLS")
    func pingsOverTLS() async throws {
        try await Self.withEchoServer { authority, server in
            var configuration = Self.configuration(
                server.url(), pin: authority.serverPublicKeyPin, pingInterval: .milliseconds(50))
            configuration.pongTimeout = .seconds(5)
            let client = try await WebSocketConnection.connect(configuration)
            let inbox = ClientInbox(client)
            // The server counts pings; only one is ever outstanding, so a count of 3 proves the
            // first two pongs were accepted. Round trips pace the loop; the inbox bounds each wait.
            var pings = 0
            while pings < 3 {
                try await client.send(text: WebSocketTLSEchoServer.pingCountRequest)
                pings = Int(try await inbox.nextText()) ?? -1
                try #require(pings >= 0)
            }
            await client.close()
            #expect(try await inbox.end() == nil)
        }
    }

    @Test("ws:// to a TLS port and wss:// to a plain port fail with a hint about the scheme")
    func schemeMismatch() async throws {
        try await Self.withEchoServer { _, server in
            let plainToTLS = await #expect(throws: WebSocketError.self) {
                _ = try await WebSocketConnection.connect(Self.configuration("ws://127.0.0.1:\(server.port)/"))
            }
            #expect(plainToTLS?.kind == .handshakeFailed)
            #expect(plainToTLS?.description.contains("wss://") == true)
        }
        let plain = try WebSocketTestServer()
        defer { plain.stop() }
        let tlsToPlain = await #expect(throws: WebSocketError.self) {
            _ = try await WebSocketConnection.connect(
                Self.configuration(
                    "wss://127.0.0.1:\(plain.port)/", pin: "sha256//" + String(repeating: "A", count: 43) + "="))
        }
        #expect(tlsToPlain?.kind == .tlsFailure)
    }
}
