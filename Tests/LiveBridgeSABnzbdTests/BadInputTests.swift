import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import Testing

/// Wrong keys, wrong pages, slow and dead servers: reported in `/health` and the log, never
/// ending, blanking or faking the activity, never showing the key, never hammering.
@Suite("Bad input from SABnzbd", .serialized)
struct BadInputTests {
    static let start = 1_795_999_000.0
    static let wrongKey = "CANARYwrongsabkey0123456789abcdef"

    func configuration(url: String, key: String = "0123456789abcdef0123456789abcdef", timeout: Double = 20)
        -> SABnzbdConfiguration
    {
        SABnzbdConfiguration(
            name: "home", path: "sources[0]", url: url, apiKey: key, idleInterval: 15, activeInterval: 0.5,
            timeout: timeout)
    }

    func expectNoSecret(_ harness: AdapterHarness, _ secret: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        for line in harness.lines where line.contains(secret) {
            Issue.record("secret in a log line: \(line)", sourceLocation: sourceLocation)
        }
        #expect(harness.health()?.lastError?.contains(secret) != true, sourceLocation: sourceLocation)
    }

    @Test("403 API Key Incorrect: an authentication error naming sources[0].apiKey, backing off to 5 minutes")
    func wrongKey() async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(lines: Fixtures.lines("a-steady/raw.jsonl"), clock: clock, start: Self.start)
        defer { fake.shutdown() }
        let harness = AdapterHarness()
        await harness.run(
            SABnzbdAdapter(configuration: configuration(url: fake.baseURL, key: Self.wrongKey)),
            context: harness.context(clock: clock, store: MemoryStateStore()), fake: fake
        ) { _ in fake.requests.count >= 8 }
        let health = try #require(harness.health())
        #expect(health.status == .error)
        let message = try #require(health.lastError)
        #expect(message.contains("sabnzbd \"home\": HTTP 403 \"API Key Incorrect\""))
        #expect(message.contains("check sources[0].apiKey"))
        expectNoSecret(harness, Self.wrongKey)
        let times = fake.requests.prefix(8).map(\.time)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps == [15, 30, 60, 120, 240, 300, 300], "\(gaps)")
        #expect(harness.updates.isEmpty)
        // Said once at error level, not once per poll.
        #expect(harness.logs.records.filter { $0.level == .error }.count == 1)
        #expect(
            harness.metrics.value("livebridge_sabnzbd_poll_errors_total", ["source": "home", "kind": "authentication"])
                >= 7)
    }

    @Test("HTML and non-JSON answers mid-download: health and log say so; the activity carries on unchanged")
    func htmlMidSession() async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(lines: Fixtures.lines("a-steady/raw.jsonl"), clock: clock, start: Self.start)
        defer { fake.shutdown() }
        let html = FakeSABnzbd.Fault.answer(
            status: 200, contentType: "text/html", body: "<!DOCTYPE html><html><body>Login</body></html>")
        for index in 30..<33 { fake.inject(html, atRequest: index) }
        fake.inject(.answer(status: 200, contentType: "text/plain", body: "Service starting"), atRequest: 33)
        fake.inject(.answer(status: 502, contentType: "text/html", body: "<html>Bad Gateway</html>"), atRequest: 34)
        fake.inject(.drop, atRequest: 35)
        let harness = AdapterHarness()
        let ended = await harness.run(
            SABnzbdAdapter(configuration: configuration(url: fake.baseURL)),
            context: harness.context(clock: clock, store: MemoryStateStore()), fake: fake
        ) { $0.updates.contains { $0.isEnd } }
        #expect(ended)
        let updates = harness.updates
        #expect(updates.stateSequence == ["Downloading", "Complete"])
        #expect(updates.dropLast().allSatisfy { !$0.isEnd })
        #expect(updates.prefix { $0.stateText != "Complete" }.allSatisfy { $0.stateText == "Downloading" })
        #expect(updates.last?.subtitleText == "1 job · 62 MB · 1.0 MB/s avg")
        let lines = harness.lines
        #expect(
            lines.contains { $0.contains("answered an HTML page instead of JSON") && $0.contains("sources[0].url") })
        #expect(
            lines.contains {
                $0.contains("answered \\\"Service starting\\\" instead of JSON") || $0.contains("Service starting")
            })
        #expect(lines.contains { $0.contains("HTTP 502") })
        #expect(lines.contains { $0.contains("SABnzbd answers again") })
        #expect(harness.metrics.total("livebridge_adapter_parse_errors_total") >= 4)
        #expect(harness.health()?.status == .ok, "recovered")
        #expect(harness.health()?.lastError != nil, "the last problem stays visible")
    }

    @Test("timeouts and refused connections are reported with the URL redacted, and retried with backoff")
    func unreachable() async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(emptyWith: clock, start: Self.start)
        defer { fake.shutdown() }
        fake.answerEverything(with: .delay(3))
        let harness = AdapterHarness()
        let key = "CANARYtimeoutkey0123456789abcdef"
        await harness.run(
            SABnzbdAdapter(configuration: configuration(url: fake.baseURL, key: key, timeout: 0.3)),
            context: harness.context(clock: clock, store: MemoryStateStore()), fake: fake
        ) { _ in fake.requests.count >= 2 }
        let health = try #require(harness.health())
        #expect(health.status == .degraded)
        #expect(health.lastError?.contains("no complete response within the time limit") == true)
        #expect(health.lastError?.contains("apikey=[redacted]") == true)
        expectNoSecret(harness, key)

        // Nothing listens on the port any more.
        let port = fake.port
        fake.shutdown()
        let refused = AdapterHarness()
        let refusedKey = "CANARYrefusedkey0123456789abcdef"
        let probe = SABnzbdAdapter(configuration: configuration(url: "http://127.0.0.1:\(port)", key: refusedKey))
        let context = refused.context(clock: clock, store: MemoryStateStore())
        let polled = await refused.run(probe, context: context, fake: nil, timeout: 10) { harness in
            harness.health()?.lastError != nil
        }
        #expect(polled)
        #expect(refused.health()?.status == .degraded)
        #expect(refused.health()?.lastError?.contains("refused") == true)
        #expect(refused.health()?.lastError?.contains("check sources[0].url") == true)
        expectNoSecret(refused, refusedKey)
        let result = await probe.probe(context)
        #expect(!result.ok && result.detail.contains("refused") && !result.detail.contains(refusedKey))
    }
}
