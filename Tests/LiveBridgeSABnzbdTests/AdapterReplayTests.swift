import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import Synchronization
import Testing

/// The real adapter (HTTP client, poll loop, session) against a fake SABnzbd replaying the
/// recordings on virtual time.
@Suite("Adapter against a fake SABnzbd replaying recordings", .serialized)
struct AdapterReplayTests {
    static let key = "0123456789abcdef0123456789abcdef"
    static let start = 1_795_999_000.0

    func configuration(_ fake: FakeSABnzbd, url: String? = nil, key: String = Self.key) -> SABnzbdConfiguration {
        SABnzbdConfiguration(
            name: "home", url: url ?? fake.baseURL, apiKey: key, idleInterval: 15, activeInterval: 0.5, timeout: 20)
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var path: String
        var states: [String]
        var summary: String
        var outcome: ActivityOutcome
        var testDescription: String { path }
    }

    static let scenarios = [
        Scenario(
            path: "a-steady/raw.jsonl", states: ["Downloading", "Complete"], summary: "1 job · 62 MB · 1.0 MB/s avg",
            outcome: .success),
        Scenario(
            path: "c-two-jobs/raw.jsonl", states: ["Downloading", "Queued for processing", "Complete"],
            summary: "2 jobs · 62 MB · 1.0 MB/s avg", outcome: .success),
        Scenario(
            path: "d-pause-resume/raw.jsonl", states: ["Downloading", "Paused", "Downloading", "Complete"],
            summary: "1 job · 62 MB · 1.0 MB/s avg", outcome: .success),
        Scenario(
            path: "f-failed/raw.jsonl", states: ["Queued for processing", "Failed"],
            summary: "Aborted, cannot be completed - https://sabnzbd.org/not-complete", outcome: .failure),
    ]

    @Test(
        "each scenario: the same phases, texts and summary as the pure mapping; cheap idle polls", arguments: scenarios)
    func scenario(_ scenario: Scenario) async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(lines: Fixtures.lines(scenario.path), clock: clock, start: Self.start)
        defer { fake.shutdown() }
        let harness = AdapterHarness()
        let adapter = SABnzbdAdapter(configuration: configuration(fake))
        let ended = await harness.run(
            adapter, context: harness.context(clock: clock, store: MemoryStateStore()), fake: fake
        ) { $0.updates.contains { $0.isEnd } }
        #expect(ended, "no end within the time limit: \(harness.updates.map(\.stateText))")
        let updates = harness.updates
        #expect(updates.stateSequence == scenario.states)
        let end = try #require(updates.last)
        #expect(end.phase == .ended(scenario.outcome) && end.subtitleText == scenario.summary)
        // Same mapping as `livebridge replay`.
        let replayed = try SABnzbdReplay.updates(
            fromJSONLines: Fixtures.lines(scenario.path), settings: adapter.configuration.session)
        #expect(replayed.stateSequence == scenario.states && replayed.last?.subtitleText == scenario.summary)
        let requests = fake.requests
        #expect(requests.first?.mode == "queue" && requests.first?.limit == 1, "the first poll is the cheap idle one")
        #expect(requests.allSatisfy { $0.keyAccepted && $0.rawQuery.contains("output=json") })
        let queuePolls = requests.filter { $0.mode == "queue" }.count
        let historyPolls = requests.filter { $0.mode == "history" }.count
        #expect(historyPolls < queuePolls, "the history is read only when a job left the queue")
        #expect(harness.health()?.status == .ok)
        #expect(harness.health()?.details["version"] == "4.5.0")
    }

    @Test("an idle SABnzbd gets one limit=1 queue request per idleInterval and nothing else")
    func idlePolling() async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(emptyWith: clock, start: Self.start)
        defer { fake.shutdown() }
        let harness = AdapterHarness()
        await harness.run(
            SABnzbdAdapter(configuration: configuration(fake)),
            context: harness.context(clock: clock, store: MemoryStateStore()), fake: fake
        ) { _ in fake.requests.count >= 5 }
        let requests = fake.requests.prefix(5)
        #expect(requests.allSatisfy { $0.mode == "queue" && $0.limit == 1 })
        let gaps = zip(requests.dropFirst(), requests).map { $0.time - $1.time }
        #expect(gaps.allSatisfy { abs($0 - 15) < 0.001 }, "\(gaps)")
        #expect(harness.updates.isEmpty)
        #expect(harness.health()?.details["mode"] == "idle")
    }

    @Test("a webhook (SABnzbd's Apprise body) wakes the idle poller at once, with a history read")
    func webhookWakeUp() async throws {
        let clock = VirtualClock(start: Self.start)
        let fake = try FakeSABnzbd(emptyWith: clock, start: Self.start)
        defer { fake.shutdown() }
        let harness = AdapterHarness()
        let (webhooks, inbox) = AsyncStream.makeStream(of: WebhookEvent.self)
        let apprise = try Fixtures.lines("sab5-samples/apprise_webhook_posts.jsonl").first
            .flatMap { try JSONParser.parse($0)["body"]?.stringValue }
        let body = Array((apprise ?? "").utf8)
        #expect(SABnzbdWebhook.summary(of: body) == "NZB added to queue: Ubuntu.Test.Job.A.nzb")
        let context = harness.context(clock: clock, store: MemoryStateStore(), webhooks: webhooks)
        let sent = Mutex(false)
        await harness.run(SABnzbdAdapter(configuration: configuration(fake)), context: context, fake: fake) { _ in
            // After the first idle poll the poller sleeps 15 s; the webhook must cut that short.
            if fake.requests.count == 1, !sent.withLock({ $0 }) {
                sent.withLock { $0 = true }
                inbox.yield(WebhookEvent(body: body, contentType: "application/json", receivedAt: clock.now))
            }
            return fake.requests.count >= 3
        }
        let requests = fake.requests
        #expect(requests.count >= 3)
        #expect(requests.map(\.mode).prefix(3) == ["queue", "queue", "history"])
        #expect(requests.dropFirst().first?.limit == nil, "the woken poll reads the whole queue")
        #expect(requests.prefix(3).allSatisfy { $0.time == Self.start }, "no virtual time passed: woken, not timed")
        #expect(harness.lines.contains { $0.contains("NZB added to queue") })
    }

    @Test("a resumed adapter continues the same session: progress does not restart, the summary counts both halves")
    func resume() async throws {
        let clock = SteppingClock(start: Self.start)
        let fake = try FakeSABnzbd(lines: Fixtures.lines("c-two-jobs/raw.jsonl"), clock: clock, start: Self.start)
        defer { fake.shutdown() }
        let store = MemoryStateStore()
        let adapter = SABnzbdAdapter(configuration: configuration(fake))
        let first = AdapterHarness()
        await first.run(adapter, context: first.context(clock: clock, store: store), fake: fake) { harness in
            harness.updates.contains { $0.subtitleText == "2/2 · Second.Job.C2" }
        }
        let before = try #require(first.updates.last?.progress)
        #expect(store.keys == [adapter.storeKey])
        // The bridge is down for 10 s.
        clock.advance(by: 10)
        let second = AdapterHarness()
        let ended = await second.run(adapter, context: second.context(clock: clock, store: store), fake: fake) {
            $0.updates.contains { $0.isEnd }
        }
        #expect(ended)
        #expect(second.lines.contains { $0.contains("resuming the session") })
        let resumed = try #require(second.updates.first)
        #expect((resumed.progress ?? 0) >= before && resumed.subtitleText == "2/2 · Second.Job.C2")
        #expect(second.updates.last?.subtitleText == "2 jobs · 62 MB · 1.0 MB/s avg")
        #expect(store.keys.isEmpty, "the finished session is forgotten")
    }
}
