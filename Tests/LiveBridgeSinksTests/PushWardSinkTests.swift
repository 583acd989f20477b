import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

@Suite("PushWard sink against the strict fake")
struct PushWardSinkTests {
    let key = "hlk_CANARYpushward0123456789abcdefghij"

    func frame(
        _ kind: FrameKind, sequence: Int, patch: JSONValue, content: JSONValue? = nil, state: String? = "ongoing"
    )
        -> ActivityFrame
    {
        ActivityFrame(
            slug: "sabnzbd-home", name: "SABnzbd (home)", kind: kind, activityState: state, patch: patch,
            content: content ?? patch,
            ttls: kind == .seed ? ActivityTTLs(stale: 7200, ended: 900, dismissal: 900) : ActivityTTLs(),
            priority: 1, time: 0, reason: .structural, sequence: sequence)
    }

    func makeSink(_ fake: FakePushWardServer, apiKey: String? = nil) -> PushWardSink {
        PushWardSink(
            configuration: .init(
                name: "phone", baseURL: fake.baseURL, apiKey: apiKey ?? key, timeout: 5, keyPath: "sinks[0].apiKey"),
            transport: HTTPClient.shared)
    }

    static let seedContent: JSONValue = [
        "template": "generic", "progress": 0.1, "state": "Downloading", "icon": "arrow.down.circle",
        "end_date": 1_781_519_400, "live_progress": true,
    ]

    @Test("a new job on the same slug starts from a clean card: the last job's accent and subtitle do not linger")
    func seedReplacesOldCard() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        let failed: JSONValue = [
            "progress": 0.4, "state": "Failed: repair failed", "subtitle": "ubuntu.iso", "accent_color": "red",
            "end_date": .null, "live_progress": .null,
        ]
        _ = try await sink.deliver(frame(.final, sequence: 2, patch: failed))
        _ = try await sink.deliver(frame(.end, sequence: 3, patch: [:], state: "ended"))
        #expect(fake.activity("sabnzbd-home")?.content["accent_color"] == "red")
        _ = try await sink.deliver(frame(.seed, sequence: 4, patch: Self.seedContent))
        let activity = try #require(fake.activity("sabnzbd-home"))
        #expect(activity.content == Self.seedContent, "\(activity.content)")
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test("PushWard's activities end at 8 h and go stale without updates: the tracker renews and heartbeats them")
    func displayLimits() throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        #expect(sink.lifecycleLimit == FakePushWardServer.lifecycleLimit)
        #expect(sink.expiresStale)
    }

    @Test("seed creates and fills the activity; updates merge; the final frame clears with null; end ends")
    func lifecycle() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        let seed = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        #expect(seed.requests == 2)
        var activity = try #require(fake.activity("sabnzbd-home"))
        #expect(activity.state == "ongoing" && activity.content == Self.seedContent)
        #expect(
            activity.staleTTL == 7200 && activity.endedTTL == 900 && activity.dismissalTTL == 900
                && activity.priority == 1)
        _ = try await sink.deliver(frame(.update, sequence: 2, patch: ["progress": 0.5, "end_date": 1_781_519_500]))
        let final: JSONValue = [
            "progress": 1, "state": "Complete", "end_date": .null, "live_progress": .null, "remaining_time": .null,
        ]
        _ = try await sink.deliver(frame(.final, sequence: 3, patch: final))
        activity = try #require(fake.activity("sabnzbd-home"))
        #expect(activity.content["end_date"] == nil && activity.content["live_progress"] == nil)
        #expect(activity.content["state"] == "Complete" && activity.state == "ongoing")
        _ = try await sink.deliver(frame(.end, sequence: 4, patch: [:], state: "ended"))
        #expect(fake.activity("sabnzbd-home")?.state == "ended")
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let patch = try #require(fake.records.first { $0.method == "PATCH" })
        #expect(patch.path == "/activities/sabnzbd-home")
    }

    @Test("a 404 recreates the activity once and re-seeds the whole content")
    func recreatesOnNotFound() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        fake.forget("sabnzbd-home")
        var full = Self.seedContent
        full["progress"] = 0.6
        let receipt = try await sink.deliver(frame(.update, sequence: 2, patch: ["progress": 0.6], content: full))
        #expect(receipt.requests == 3)
        #expect(fake.activity("sabnzbd-home")?.content == full)
        #expect(fake.activity("sabnzbd-home")?.state == "ongoing")
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test("the strict fake takes a repeated frame as a retry, and a different frame with an old number as out of order")
    func fakeOrdering() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        let update = frame(.update, sequence: 2, patch: ["progress": 0.5])
        _ = try await sink.deliver(update)
        _ = try await sink.deliver(update)  // the answer was lost; the same frame is sent again
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.activity("sabnzbd-home")?.retriedFrames == 1)
        await #expect(throws: SinkError.self) {
            _ = try await sink.deliver(frame(.update, sequence: 2, patch: ["progress": 0.4]))
        }
        #expect(fake.violations.count == 1 && fake.violations[0].contains("out of order"))
        #expect(fake.activity("sabnzbd-home")?.content["progress"] == 0.5)
    }

    @Test("a 404 on the ending frame is taken as ended: nothing is recreated")
    func endOfMissingActivity() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        fake.forget("sabnzbd-home")
        let receipt = try await sink.deliver(frame(.end, sequence: 2, patch: [:], state: "ended"))
        #expect(receipt.requests == 1)
        #expect(fake.activity("sabnzbd-home") == nil)
        #expect(fake.records.filter { $0.method == "POST" }.count == 1)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test(
        "errors are classified by their problem code",
        arguments: [
            (FakePushWardServer.Fault.status(503), "unavailable"),
            (.status(500), "unavailable"),
            (.rateLimit(retryAfter: 7, inBody: false), "rateLimited 7"),
            (.rateLimit(retryAfter: 3, inBody: true), "rateLimited 3"),
            (.dropConnection, "unavailable"),
        ])
    func classification(fault: FakePushWardServer.Fault, expected: String) async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        fake.inject([fault])
        do {
            _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
            Issue.record("expected a failure")
        } catch {
            switch error.kind {
            case .unavailable: #expect(expected == "unavailable")
            case .rateLimited(let after): #expect(expected == "rateLimited \(Int(after))")
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("an exhausted quota is sticky until reset_at")
    func quota() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
        fake.setQuota(limit: 1, used: 1, resetAt: 1_782_864_000)
        await #expect {
            _ = try await sink.deliver(frame(.update, sequence: 2, patch: ["progress": 0.2]))
        } throws: { error in
            (error as? SinkError)?.kind == .quotaExhausted(until: 1_782_864_000)
        }
    }

    @Test("a wrong key is an authentication error naming the config key, and never shows the key")
    func wrongKey() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let wrong = "hlk_CANARYwrongwrongwrongwrongwrong00"
        let sink = makeSink(fake, apiKey: wrong)
        do {
            _ = try await sink.deliver(frame(.seed, sequence: 1, patch: Self.seedContent))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .authentication)
            #expect(error.description.contains("sinks[0].apiKey"))
            #expect(!error.description.contains("CANARY"))
        }
    }

    @Test("invalid content is refused by the fake and classified as rejected")
    func invalidContent() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake)
        var bad = Self.seedContent
        bad["end_date"] = nil
        do {
            _ = try await sink.deliver(frame(.seed, sequence: 1, patch: bad))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .rejected && error.status == 422)
            #expect(error.description.contains("live_progress"))
        }
        #expect(fake.violations.count == 1)
    }

    @Test("a server answering HTML is reported as such")
    func htmlAnswer() async throws {
        let server = try HTTPServer(address: "127.0.0.1:0") { _ in
            var response = HTTPServerResponse(status: 502, body: Array("<html><body>Bad Gateway</body></html>".utf8))
            response.headers.add(name: "Content-Type", value: "text/html")
            return response
        }
        defer { server.shutdown() }
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: "http://127.0.0.1:\(server.port)", apiKey: key),
            transport: HTTPClient.shared)
        do {
            _ = try await sink.deliver(frame(.update, sequence: 1, patch: ["progress": 0.1]))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .unavailable && error.status == 502)
            #expect(error.description.contains("HTML"))
        }
    }

    @Test("connection refused is unavailable, so delivery retries it")
    func refused() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        let url = fake.baseURL
        fake.shutdown()
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: url, apiKey: key), transport: HTTPClient.shared)
        await #expect {
            _ = try await sink.deliver(frame(.update, sequence: 1, patch: ["progress": 0.1]))
        } throws: { error in
            (error as? SinkError)?.kind == .unavailable
        }
    }

    @Test("GET /auth/me gives the quota for check")
    func probe() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        fake.setQuota(limit: 250, used: 86)
        let result = await makeSink(fake).probe()
        #expect(result.ok)
        #expect(result.detail.contains("86 of 250"))
    }

    @Test(
        "a spent quota is asked about with GET /auth/me, which spends none: updates left or no limit (an upgrade) say it is lifted; a service that does not answer says nothing"
    )
    func quotaAvailable() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        let sink = makeSink(fake)
        #expect(sink.reportsQuota)
        fake.setQuota(limit: 250, used: 250)
        #expect(await sink.quotaAvailable() == false)
        fake.setQuota(limit: nil, used: 250)
        #expect(await sink.quotaAvailable() == true, "an unlimited plan states no limit")
        fake.setQuota(limit: 5000, used: 250)
        #expect(await sink.quotaAvailable() == true)
        #expect(fake.records.allSatisfy { $0.method == "GET" && $0.path == "/auth/me" })
        #expect(await makeSink(fake, apiKey: "wrong").quotaAvailable() == nil, "a refused key says nothing")
        fake.shutdown()
        #expect(await sink.quotaAvailable() == nil)
    }
}
