import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// HTTPS against a real TLS server (Python's `http.server` + `ssl`) with a throw-away CA.
@Suite("HTTPClient TLS", .timeLimit(.minutes(1)))
struct HTTPClientTLSTests {
    /// Runs `body` against a fresh CA and HTTPS server, always stopping and removing both.
    static func withTLSServer(
        _ body: (TestCertificateAuthority, TLSTestServer) async throws -> Void
    ) async throws {
        // Certificate generation and process teardown block; keep them off the task pool so
        // parallel tests' deadlines are not stretched.
        let certificates = try await HTTPBlockingWork.run { try TestCertificateAuthority(prefix: "http-tls") }
        let server: TLSTestServer
        do {
            server = try await TLSTestServer.start(certificates: certificates)
        } catch {
            certificates.remove()
            throw error
        }
        let outcome: Result<Void, any Error>
        do {
            try await body(certificates, server)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try await HTTPBlockingWork.run {
            server.stop()
            certificates.remove()
        }
        try outcome.get()
    }

    @Test("a server certificate from the configured CA file verifies")
    func caFileVerifies() async throws {
        try await Self.withTLSServer { certificates, server in
            let response = try await HTTPClientTests.client.execute(
                HTTPRequest(url: server.url, tls: TLSOptions(caFile: certificates.caCertificatePath)))
            #expect(response.status == 200)
            #expect(response.text == TLSTestServer.responseBody)
            // The certificate names 127.0.0.1 and localhost; both verify.
            let byName = try await HTTPClientTests.client.execute(
                HTTPRequest(
                    url: "https://localhost:\(server.port)/", tls: TLSOptions(caFile: certificates.caCertificatePath)))
            #expect(byName.status == 200)
        }
    }

    @Test("the right SPKI pin connects without any CA (self-signed Home Assistant case)")
    func rightPinConnects() async throws {
        try await Self.withTLSServer { certificates, server in
            let response = try await HTTPClientTests.client.execute(
                HTTPRequest(url: server.url, tls: TLSOptions(pinnedPublicKey: certificates.serverPublicKeyPin)))
            #expect(response.text == TLSTestServer.responseBody)
            // A pin together with the CA enforces both.
            let both = try await HTTPClientTests.client.execute(
                HTTPRequest(
                    url: server.url,
                    tls: TLSOptions(
                        caFile: certificates.caCertificatePath, pinnedPublicKey: certificates.serverPublicKeyPin)))
            #expect(both.status == 200)
        }
    }

    @Test("a wrong pin fails with pinMismatch, even with a trusted CA or insecure mode")
    func wrongPinFails() async throws {
        try await Self.withTLSServer { certificates, server in
            let wrongPin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            for tls in [
                TLSOptions(pinnedPublicKey: wrongPin),
                TLSOptions(caFile: certificates.caCertificatePath, pinnedPublicKey: wrongPin),
                TLSOptions(pinnedPublicKey: wrongPin, insecure: true),
            ] {
                let error = await #expect(throws: HTTPClientError.self) {
                    _ = try await HTTPClientTests.client.execute(HTTPRequest(url: server.url, tls: tls))
                }
                #expect(error?.code == .pinMismatch, "\(tls): \(error.map { "\($0)" } ?? "no error")")
            }
        }
    }

    @Test("an untrusted certificate fails with tls by default; insecure mode accepts it")
    func untrustedCertificateFails() async throws {
        try await Self.withTLSServer { _, server in
            let error = await #expect(throws: HTTPClientError.self) {
                _ = try await HTTPClientTests.client.execute(HTTPRequest(url: server.url))
            }
            #expect(error?.code == .tls, "\(error.map { "\($0)" } ?? "no error")")
            let insecure = try await HTTPClientTests.client.execute(
                HTTPRequest(url: server.url, tls: TLSOptions(insecure: true)))
            #expect(insecure.status == 200)
        }
    }

    @Test("a CA file that does not sign the server fails with tls")
    func otherCAFails() async throws {
        try await Self.withTLSServer { _, server in
            let other = try await HTTPBlockingWork.run { try TestCertificateAuthority(prefix: "http-tls-other") }
            defer { other.remove() }
            let error = await #expect(throws: HTTPClientError.self) {
                _ = try await HTTPClientTests.client.execute(
                    HTTPRequest(url: server.url, tls: TLSOptions(caFile: other.caCertificatePath)))
            }
            #expect(error?.code == .tls)
        }
    }
}
