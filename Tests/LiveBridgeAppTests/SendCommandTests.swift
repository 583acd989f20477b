import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Captures what a command prints.
final class CapturedOutput: Sendable {
    let lines = Mutex<(out: [String], err: [String])>(([], []))
    var output: CommandOutput {
        CommandOutput(
            out: { text in self.lines.withLock { $0.out.append(text) } },
            err: { text in self.lines.withLock { $0.err.append(text) } })
    }
    var out: String { lines.withLock { $0.out.joined(separator: "\n") } }
    var err: String { lines.withLock { $0.err.joined(separator: "\n") } }
}

@Suite("livebridge send")
struct SendCommandTests {
    let key = "hlk_CANARYsend000000000000000000000000"

    func send(_ arguments: [String], fake: FakePushWardServer?, clock: SteppingClock, url: String? = nil) async
        -> (Int32, CapturedOutput)
    {
        let captured = CapturedOutput()
        let status = await SendCommand.run(
            ["--url", url ?? fake!.baseURL] + arguments, environment: ["LIVEBRIDGE_API_KEY": key],
            transport: HTTPClient.shared, clock: clock, output: captured.output)
        return (status, captured)
    }

    @Test("creates, seeds with end_date and live_progress, updates, then --end clears the anchors and ends")
    func lifecycle() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let clock = SteppingClock()
        var (status, output) = await send(
            [
                "--slug", "build-42", "--name", "Build 42", "--progress", "0.1", "--state", "Building", "--remaining",
                "30m",
                "--live", "--icon", "hammer", "--color", "blue",
            ], fake: fake, clock: clock)
        #expect(status == 0, "\(output.err)")
        var activity = try #require(fake.activity("build-42"))
        #expect(activity.state == "ongoing" && activity.name == "Build 42")
        #expect(activity.content["live_progress"] == true)
        #expect(activity.content["end_date"] == .int(Int64(clock.now + 1800)))
        #expect(activity.content["template"] == "generic")
        clock.advance(by: 60)
        (status, output) = await send(
            ["--slug", "build-42", "--progress", "0.5", "--state", "Testing"], fake: fake, clock: clock)
        #expect(status == 0, "\(output.err)")
        activity = try #require(fake.activity("build-42"))
        #expect(activity.content["progress"] == 0.5 && activity.content["live_progress"] == true)
        clock.advance(by: 60)
        let before = clock.now
        (status, output) = await send(["--slug", "build-42", "--end"], fake: fake, clock: clock)
        #expect(status == 0, "\(output.err)")
        activity = try #require(fake.activity("build-42"))
        #expect(activity.state == "ended")
        #expect(activity.content["end_date"] == nil && activity.content["live_progress"] == nil)
        #expect(activity.content["remaining_time"] == nil && activity.content["progress"] == 1)
        let finalPatch = try #require(fake.records.last { $0.method == "PATCH" && $0.body?["content"] != nil })
        #expect(finalPatch.body?["content"]?["end_date"] == .null)
        #expect(finalPatch.body?["content"]?["live_progress"] == .null)
        #expect(finalPatch.body?["content"]?["remaining_time"] == .null)
        // The final card keeps the state it has (no explicit `ongoing` that would take a preempted
        // activity back); the end says `ended`.
        #expect(finalPatch.body?["state"] == nil)
        #expect(fake.records.last?.body?["state"] == "ended")
        #expect(clock.now - before >= 4)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test("delivers after three 503s")
    func retries503() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        fake.inject([.status(503), .status(503), .status(503)])
        let (status, output) = await send(["--slug", "x", "--progress", "0.2"], fake: fake, clock: SteppingClock())
        #expect(status == 0, "\(output.err)")
        #expect(fake.activity("x")?.content["progress"] == 0.2)
    }

    @Test("waits at least Retry-After on a 429 (on the injected clock)")
    func waitsRetryAfter() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let clock = SteppingClock()
        _ = await send(["--slug", "x", "--progress", "0.2"], fake: fake, clock: clock)
        fake.inject([.rateLimit(retryAfter: 37, inBody: false)])
        clock.advance(by: 1)
        let start = clock.now
        let (status, _) = await send(["--slug", "x", "--progress", "0.3"], fake: fake, clock: clock)
        #expect(status == 0)
        #expect(clock.now - start >= 37)
    }

    @Test("does not retry an exhausted quota: exit 77 after one attempt")
    func quota() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let clock = SteppingClock()
        _ = await send(["--slug", "x", "--progress", "0.2"], fake: fake, clock: clock)
        fake.setQuota(limit: 1, used: 1)
        let before = fake.records.count
        clock.advance(by: 1)
        let (status, output) = await send(["--slug", "x", "--progress", "0.3"], fake: fake, clock: clock)
        #expect(status == 77)
        #expect(fake.records.count == before + 1)
        #expect(output.err.contains("quota"))
    }

    @Test("connection refused is exit 69 after the retries")
    func refused() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        let url = fake.baseURL
        fake.shutdown()
        let (status, output) = await send(
            ["--slug", "x", "--progress", "0.2"], fake: nil, clock: SteppingClock(), url: url)
        #expect(status == 69)
        #expect(output.err.contains("refused") || output.err.contains("connect"))
    }

    @Test(
        "usage and content errors",
        arguments: [
            (["--progress", "0.2"], Int32(64), "--slug is required"),
            (["--slug", "x", "--progress", "1.5"], 64, "--progress 1.5: expected a number in 0…1"),
            (["--slug", "x", "--live"], 64, "--live needs --remaining or --end-date"),
            (["--slug", "bad slug", "--progress", "0.1"], 65, "must match"),
            (["--slug", "x", "--color", "Purple"], 65, "is not a colour"),
            (["--slug", "x", "--progres", "0.1"], 64, "did you mean --progress?"),
            (["--slug", "x", "--remaining", "soon"], 64, "expected a duration"),
            (["--slug", "x", "--remaining", "1e300"], 64, "--remaining 1e300: would end after the year 9999"),
            (["--slug", "x", "--remaining", "inf"], 64, "would end after the year 9999"),
            (["--slug", "x", "--remaining", "nan"], 64, "expected a duration"),
        ])
    func usageErrors(arguments: [String], status expected: Int32, message: String) async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let (status, output) = await send(arguments, fake: fake, clock: SteppingClock())
        #expect(status == expected)
        #expect(output.err.contains(message), "\(output.err)")
        #expect(fake.records.isEmpty)
    }

    @Test("a wrong key is exit 77 and the key never appears in the output")
    func wrongKey() async throws {
        let fake = try FakePushWardServer(apiKey: "hlk_other0000000000000000000000000000")
        defer { fake.shutdown() }
        let (status, output) = await send(["--slug", "x", "--progress", "0.2"], fake: fake, clock: SteppingClock())
        #expect(status == 77)
        #expect(!output.err.contains("CANARY") && !output.out.contains("CANARY"))
        #expect(output.err.contains("--api-key"))
    }
}
