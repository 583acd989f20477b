import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

/// Opt-in measurement of the PushWard sink, HTTP client and strict fake on loopback:
/// `LIVEBRIDGE_HTTP_BENCH=1 swift test -c release --filter PushWardLoopbackBenchmark`.
@Suite(
    "PushWardLoopbackBenchmark", .enabled(if: ProcessInfo.processInfo.environment["LIVEBRIDGE_HTTP_BENCH"] != nil),
    .timeLimit(.minutes(2)))
struct PushWardLoopbackBenchmark {
    let key = "hlk_BENCHpushward0123456789abcdefghijk"

    func frame(_ slug: String, _ kind: FrameKind, sequence: Int, patch: JSONValue) -> ActivityFrame {
        ActivityFrame(
            slug: slug, name: "Bench", kind: kind, activityState: "ongoing", patch: patch, content: patch,
            ttls: kind == .seed ? ActivityTTLs(stale: 7200, ended: 900, dismissal: 900) : ActivityTTLs(),
            priority: 1, time: 0, reason: .structural, sequence: sequence)
    }

    @Test("1,000 sequential and 100 concurrent PATCHes to the strict fake")
    func measure() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: fake.baseURL, apiKey: key, timeout: 10),
            transport: HTTPClient.shared)
        let seed: JSONValue = [
            "template": "generic", "progress": 0, "state": "Downloading", "icon": "arrow.down.circle",
        ]
        for index in 0..<100 { _ = try await sink.deliver(frame("bench-\(index)", .seed, sequence: 1, patch: seed)) }
        let rssBefore = Self.residentMiB()

        let sequentialStart = ContinuousClock.now
        for step in 1...1000 {
            let patch: JSONValue = ["progress": .number(Double(step) / 1000)]
            _ = try await sink.deliver(frame("bench-0", .update, sequence: step + 1, patch: patch))
        }
        let sequential = seconds(since: sequentialStart)
        #expect(fake.activity("bench-0")?.content["progress"] == 1)

        let concurrentStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let update = frame("bench-\(index)", .update, sequence: 1002, patch: ["progress": 0.5])
                    _ = try await sink.deliver(update)
                }
            }
            try await group.waitForAll()
        }
        let concurrent = seconds(since: concurrentStart)

        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect((0..<100).allSatisfy { fake.activity("bench-\($0)")?.content["progress"] == 0.5 })
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        print(
            "PushWard loopback: 1000 sequential PATCHes in \(String(format: "%.3f", sequential)) s "
                + "(\(String(format: "%.2f", sequential)) ms each); 100 concurrent PATCHes in "
                + "\(String(format: "%.3f", concurrent)) s; RSS of the test process (client, fake server and "
                + "the test runner together) \(String(format: "%.1f", rssBefore)) MiB before, "
                + "\(String(format: "%.1f", Self.residentMiB())) MiB after, peak "
                + "\(String(format: "%.1f", Double(usage.ru_maxrss) / 1024)) MiB")
    }

    /// VmRSS of this process.
    static func residentMiB() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }

    func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
