import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeTestSupport
import Synchronization
import Testing

/// `livebridge replay --sink`: each display as its service keeps a card.
@Suite("Replay: the sink's display")
struct ReplaySinkTests {
    /// The requests `replay` prints for `file` with `--sink sink`, one JSON object each.
    static func requests(_ file: String, sink: String) async throws -> [JSONValue] {
        let out = Mutex("")
        let err = Mutex("")
        let output = CommandOutput(
            out: { text in out.withLock { $0 += text + "\n" } }, err: { text in err.withLock { $0 += text } })
        let status = await LiveBridgeCommand.run(["replay", file, "--sink", sink], environment: [:], output: output)
        #expect(status == 0, "\(err.withLock { $0 })")
        return try out.withLock { $0 }.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    @Test("a job paused overnight: heartbeats for PushWard, which ends a stale card; none for the static display")
    func heartbeatsFollowTheSink() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/paused.jsonl"
        var lines = (0...6).map { "{\"t\": \($0 * 10), \"slug\": \"job\", \"progress\": \(0.3 + Double($0) * 0.001)}" }
        // Paused for ten hours, reported every ten minutes, then resumed and done.
        lines += stride(from: 70, through: 36_070, by: 600).map {
            "{\"t\": \($0), \"slug\": \"job\", \"progress\": 0.306, \"paused\": true}"
        }
        lines += [
            "{\"t\": 36100, \"slug\": \"job\", \"progress\": 0.31}",
            "{\"t\": 36110, \"slug\": \"job\", \"progress\": 1, \"end\": true}",
        ]
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let pushward = try await Self.requests(file, sink: "pushward")
        let display = try await Self.requests(file, sink: "static")
        let heartbeats = { (requests: [JSONValue]) in requests.filter { $0["reason"] == "heartbeat" }.count }
        #expect(heartbeats(pushward) >= 2, "\(pushward.map { $0["reason"] ?? .null })")
        #expect(heartbeats(display) == 0, "\(display.map { $0["reason"] ?? .null })")
        #expect(display.last?["reason"] == "end", "the job still ends")
    }

    @Test("a record's t past the year 9999 is that line's error (exit 65), not a trap in the tracker")
    func timePastTheRange() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/far.jsonl"
        let lines = (0..<12).map {
            "{\"t\": \(1e19 + Double($0) * 4096), \"slug\": \"x\", \"progress\": \(Double($0) / 20)}"
        }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let err = Mutex("")
        let output = CommandOutput(out: { _ in }, err: { text in err.withLock { $0 += text } })
        let status = await LiveBridgeCommand.run(["replay", file], environment: [:], output: output)
        #expect(status == 65)
        #expect(err.withLock { $0 }.contains("line 1: \"t\": 1e+19 is not a time (seconds, at most 253402300799)"))
    }
}
