import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@Suite("Secrets never reach logs, health or metrics")
struct RedactionTests {
    @Test("the PushWard key survives every delivery path unseen")
    func pushWardKeyPaths() async throws {
        let key = "hlk_CANARYredact0123456789abcdefghijk"
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "test", level: .trace, handler: logs)
        let clock = SteppingClock()
        let registry = HealthRegistry()
        let metrics = MetricsRegistry()
        let health = registry.reporter(kind: "sink", name: "phone", type: "pushward", clock: clock)
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: fake.baseURL, apiKey: key), transport: HTTPClient.shared,
            clock: clock)
        let wrong = PushWardSink(
            configuration: .init(name: "wrong", baseURL: fake.baseURL, apiKey: "hlk_CANARYwrongkey000000000000000000"),
            transport: HTTPClient.shared, clock: clock)
        var policy = RetryPolicy()
        policy.maximumAttempts = 3
        let content: JSONValue = ["template": "generic", "progress": 0.1, "state": "Working"]
        var sequence = 0
        func frame(_ kind: FrameKind = .update, patch: JSONValue) -> ActivityFrame {
            sequence += 1
            return ActivityFrame(
                slug: "job", name: "Job", kind: kind, activityState: "ongoing", patch: patch, content: content,
                time: clock.now,
                reason: .structural, sequence: sequence)
        }
        for (target, faults, patch) in [
            (sink, [FakePushWardServer.Fault](), content),  // success (seed)
            (sink, [.status(503), .status(503)], ["progress": 0.2]),  // retried 5xx
            (sink, [.rateLimit(retryAfter: 2, inBody: true)], ["progress": 0.3]),
            (sink, [.dropConnection], ["progress": 0.4]),
            (sink, [], ["progress": 1.5]),  // 422
            (wrong, [], ["progress": 0.5]),  // 401
        ] as [(PushWardSink, [FakePushWardServer.Fault], JSONValue)] {
            fake.inject(faults)
            let queue = DeliveryQueue(
                sink: target, policy: policy, clock: clock, logger: logger, metrics: metrics, health: health)
            await queue.enqueue(frame(sequence == 0 ? .seed : .update, patch: patch))
            while let next = await queue.pump() { try await clock.sleep(until: next) }
        }
        fake.setQuota(limit: 0)
        let queue = DeliveryQueue(
            sink: sink, policy: policy, clock: clock, logger: logger, metrics: metrics, health: health)
        await queue.enqueue(frame(patch: ["progress": 0.6]))
        await queue.pump()
        // Connection refused.
        fake.goDown()
        let refused = DeliveryQueue(
            sink: sink, policy: policy, clock: clock, logger: logger, metrics: metrics, health: health)
        await refused.enqueue(frame(patch: ["progress": 0.7]))
        while let next = await refused.pump() { try await clock.sleep(until: next) }
        let everything =
            logs.lines.joined(separator: "\n") + JSONWriter.string(registry.json(now: clock.now)) + metrics.render()
        #expect(logs.lines.count > 5)
        #expect(!everything.contains("CANARY"))
        #expect(everything.contains("dropped"))
    }

    @Test("an API key in a URL never shows in an HTTP client error")
    func urlKey() async throws {
        let fake = try FakePushWardServer()
        let port = fake.port
        fake.shutdown()
        do {
            _ = try await HTTPClient.shared.execute(
                HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/api?mode=queue&apikey=CANARYsabkey0123456789")
            )
            Issue.record("expected a connection error")
        } catch {
            #expect(!error.description.contains("CANARY"))
            #expect(error.code == .connectionRefused)
        }
    }
}
