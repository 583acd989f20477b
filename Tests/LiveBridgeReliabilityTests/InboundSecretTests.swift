import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// What LiveBridge's own HTTP endpoints accept: a webhook needs its source's secret and the
/// activities API its bearer token whenever one is configured — missing, empty, partial, longer
/// or differently-schemed credentials are refused — and the comparison takes the same time
/// wherever a guess goes wrong. At the HTTP level, through `LiveBridgeRuntime` built from config
/// text. (`RunRuntimeTests.webhookSecret` covers the basic wrong/right cases with a test source.)
@Suite("Secrets: inbound webhooks and the activities API", .serialized, .timeLimit(.minutes(1)))
struct InboundSecretTests {
    static let webhookSecret = "hook-secret-0123456789abcdef"
    static let apiToken = "api-token-0123456789abcdefghij"

    @Test("missing, empty, partial, longer and wrong-scheme credentials are refused; the right ones accepted")
    func refusedUnlessExact() async throws {
        let directory = try TemporaryDirectory(prefix: "inbound")
        defer { directory.remove() }
        let pushward = try FakePushWardServer()
        defer { pushward.shutdown() }
        let sab = try ScriptedSABnzbd(apiKey: "sabkey0123456789abcdef0123456789", clock: SystemClock())
        defer { sab.shutdown() }
        let config = try ConfigLoader.parse(
            text: """
                {
                  dataDir: "\(directory.file("data"))",
                  server: { listen: "127.0.0.1:0", apiToken: "\(Self.apiToken)" },
                  sinks: [ { name: "phone", type: "pushward", url: "\(pushward.baseURL)", apiKey: "\(pushward.apiKey)" } ],
                  sources: [
                    { name: "guarded", type: "sabnzbd", url: "\(sab.baseURL)", apiKey: "\(sab.apiKey)",
                      webhookSecret: "\(Self.webhookSecret)" },
                    { name: "open", type: "sabnzbd", url: "\(sab.baseURL)", apiKey: "\(sab.apiKey)" },
                  ],
                }
                """, environment: [:])
        let logs = InMemoryLogHandler()
        let runtime = try LiveBridgeRuntime(config: config, logHandler: logs)
        let task = Task { await runtime.run() }
        defer { task.cancel() }
        let base = "http://127.0.0.1:\(try #require(runtime.port))"

        func post(_ path: String, _ headers: HTTPHeaders) async throws -> HTTPResponse {
            var headers = headers
            headers.add(name: "Content-Type", value: "application/json")
            return try await HTTPClient.shared.execute(
                HTTPRequest(
                    method: "POST", url: base + path, headers: headers,
                    body: Array(#"{"state": "Working", "progress": 0.5}"#.utf8), timeout: 5))
        }

        let secret = Self.webhookSecret
        let refusedHooks: [(String, HTTPHeaders)] = [
            ("no header", [:]),
            ("an empty header", ["X-LiveBridge-Secret": ""]),
            ("a prefix", ["X-LiveBridge-Secret": String(secret.dropLast())]),
            ("the secret and more", ["X-LiveBridge-Secret": secret + "0"]),
            ("same length, last byte wrong", ["X-LiveBridge-Secret": String(secret.dropLast()) + "g"]),
            ("the token of the other endpoint", ["X-LiveBridge-Secret": Self.apiToken]),
            ("the secret as a bearer token", ["Authorization": "Bearer \(secret)"]),
        ]
        for (what, headers) in refusedHooks {
            let response = try await post("/webhook/guarded", headers)
            #expect(response.status == 401, "webhook with \(what): \(response.status)")
        }
        #expect(try await post("/webhook/guarded", ["X-LiveBridge-Secret": secret]).status == 202)
        #expect(
            try await post("/webhook/guarded", ["x-livebridge-secret": secret]).status == 202,
            "header names ignore case")
        #expect(try await post("/webhook/open", [:]).status == 202, "no secret configured: none needed")
        #expect(
            runtime.services.metrics.value(
                "livebridge_webhooks_total", ["source": "guarded", "result": "unauthorized"])
                == Double(refusedHooks.count))

        let token = Self.apiToken
        let refusedCalls: [(String, HTTPHeaders)] = [
            ("no Authorization", [:]),
            ("an empty bearer", ["Authorization": "Bearer "]),
            ("the scheme alone", ["Authorization": "Bearer"]),
            ("Basic instead of Bearer", ["Authorization": "Basic \(token)"]),
            ("the bare token", ["Authorization": token]),
            ("a prefix", ["Authorization": "Bearer \(token.dropLast())"]),
            ("the token and more", ["Authorization": "Bearer \(token)0"]),
            ("the webhook secret", ["Authorization": "Bearer \(secret)"]),
            ("the token in the webhook header", ["X-LiveBridge-Secret": token]),
        ]
        for (what, headers) in refusedCalls {
            let response = try await post("/api/activities/oven", headers)
            #expect(response.status == 401, "activities API with \(what): \(response.status)")
            #expect(response.headers.first(name: "WWW-Authenticate") == "Bearer")
        }
        #expect(pushward.activity("oven") == nil, "nothing refused reached the engine")
        #expect(try await post("/api/activities/oven", ["Authorization": "Bearer \(token)"]).status == 202)
        #expect(await pushward.waitUntil { $0.activity("oven")?.content["state"] == "Working" })
        let lines = logs.lines.joined(separator: "\n")
        #expect(!lines.contains(secret) && !lines.contains(token) && !lines.contains(String(token.dropLast())))
    }

    @Test("without server.apiToken the activities API is off, whatever a client sends")
    func activitiesAPIOffWithoutToken() async throws {
        let directory = try TemporaryDirectory(prefix: "inbound-off")
        defer { directory.remove() }
        let config = try ConfigLoader.parse(
            text: """
                { dataDir: "\(directory.file("data"))", server: { listen: "127.0.0.1:0" },
                  sinks: [ { name: "out", type: "console", format: "jsonl" } ] }
                """, environment: [:])
        let runtime = try LiveBridgeRuntime(config: config, logHandler: InMemoryLogHandler())
        let task = Task { await runtime.run() }
        defer { task.cancel() }
        let url = "http://127.0.0.1:\(try #require(runtime.port))/api/activities/oven"
        for authorization in ["", "Bearer ", "Bearer anything"] {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if !authorization.isEmpty { headers.add(name: "Authorization", value: authorization) }
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(method: "POST", url: url, headers: headers, body: Array("{}".utf8), timeout: 5))
            #expect(response.status == 404, "\(authorization): \(response.status)")
        }
    }

    @Test("the comparison takes as long when the first byte is wrong as when only the last one is")
    func constantTimeComparison() {
        // A long secret makes any early exit visible: an ordinary comparison that stops at the
        // first differing byte is hundreds of times faster for the first guess than the second.
        let length = 1 << 16
        let secret = String(repeating: "s", count: length - 1) + "t"
        let wrongFirst = "x" + String(secret.dropFirst())
        let wrongLast = String(secret.dropLast()) + "x"
        #expect(!ConstantTime.equal(wrongFirst, secret) && !ConstantTime.equal(wrongLast, secret))
        #expect(ConstantTime.equal(secret, secret))
        #expect(!ConstantTime.equal("", secret) && !ConstantTime.equal("", ""), "an empty secret matches nothing")
        func fastest(_ guess: String) -> Double {
            var best = Double.infinity
            for _ in 0..<15 {
                let start = ContinuousClock.now
                _ = ConstantTime.equal(guess, secret)
                best = min(best, seconds(since: start))
            }
            return best
        }
        var first = Double.infinity
        var last = Double.infinity
        for _ in 0..<3 {
            first = min(first, fastest(wrongFirst))
            last = min(last, fastest(wrongLast))
        }
        let ratio = max(first, last) / max(min(first, last), 1e-9)
        #expect(ratio < 3, "first byte wrong: \(first) s, last byte wrong: \(last) s")
        Figures.record(
            "constant-time secret comparison (64 KiB)",
            "first byte wrong \(String(format: "%.0f", first * 1e6)) µs, last byte wrong "
                + "\(String(format: "%.0f", last * 1e6)) µs (ratio \(String(format: "%.2f", ratio)))")
    }
}
