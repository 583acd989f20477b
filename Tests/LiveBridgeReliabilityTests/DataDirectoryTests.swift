import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The data directory cannot be written: `/health` and the log say so clearly, and the bridge
/// keeps bridging in memory. Built through `LiveBridgeRuntime` from config text (the real
/// wiring). The unwritable directories are ones that fail for root too (tests may run as root,
/// where `chmod 0500` stops nothing): a regular file where the directory should be (ENOTDIR), and
/// a path under `/proc` (nothing can be created there).
@Suite("Fault: data directory not writable", .serialized, .timeLimit(.minutes(1)))
struct DataDirectoryTests {
    static let pushwardKey = "hlk_datadir0123456789abcdefghijklmnop"
    static let sabnzbdKey = "datadir0123456789abcdef01234567"

    enum Unwritable: String, CaseIterable, CustomTestStringConvertible {
        case regularFile = "a regular file"
        case underProc = "a path under /proc"
        var testDescription: String { rawValue }
    }

    @Test("a clear error in /health and the log; the job is still bridged to the end", arguments: Unwritable.allCases)
    func unwritable(_ kind: Unwritable) async throws {
        let directory = try TemporaryDirectory(prefix: "datadir")
        defer { directory.remove() }
        let dataDir: String
        switch kind {
        case .regularFile:
            dataDir = directory.file("data")
            try "not a directory".write(toFile: dataDir, atomically: true, encoding: .utf8)
        case .underProc:
            dataDir = "/proc/livebridge-\(UUID().uuidString.prefix(8))/data"
        }
        let clock = SystemClock()
        let sab = try ScriptedSABnzbd(apiKey: Self.sabnzbdKey, clock: clock)
        defer { sab.shutdown() }
        let pushward = try FakePushWardServer(apiKey: Self.pushwardKey)
        defer { pushward.shutdown() }
        let config = try ConfigLoader.parse(
            text: """
                {
                  dataDir: "\(dataDir)",
                  server: { listen: "127.0.0.1:0" },
                  economy: { endDisplay: "0.3s" },
                  sinks: [ { name: "phone", type: "pushward", url: "\(pushward.baseURL)", apiKey: "\(Self.pushwardKey)" } ],
                  sources: [ { name: "home", type: "sabnzbd", url: "\(sab.baseURL)", apiKey: "\(Self.sabnzbdKey)",
                               activeInterval: "0.3s", idleInterval: "1s", startGrace: "0s", endAfterIdlePolls: 1 } ],
                }
                """, environment: [:])
        let logs = InMemoryLogHandler()
        let runtime = try LiveBridgeRuntime(config: config, logHandler: logs)
        let task = Task { await runtime.run() }
        defer { task.cancel() }
        let port = try #require(runtime.port)

        func health() async throws -> (status: Int, data: JSONValue?) {
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(url: "http://127.0.0.1:\(port)/health", timeout: 5))
            let json = try JSONParser.parse(response.body)
            let entry = json["components"]?.arrayValue?.first { $0["name"] == "dataDir" }
            return (response.status, entry)
        }
        // Said at once, before any job needs the directory.
        let atStart = try await health()
        #expect(atStart.data?["status"] == "degraded", "\(atStart.data ?? .null)")
        let startError = atStart.data?["last_error"]?.stringValue ?? ""
        #expect(startError.contains(dataDir) || startError.contains("data"), "\(startError)")

        // A job runs and ends: bridged in memory all along.
        sab.setScript(SABnzbdJobScript(totalMiB: 20, rateMiBps: 10, start: clock.now))
        #expect(
            await pushward.waitUntil {
                $0.activity("sabnzbd-home")?.state == "ended" && $0.activity("sabnzbd-home")?.content["state"] != nil
            })
        #expect(pushward.activity("sabnzbd-home")?.content["state"] == "Complete")
        #expect(pushward.violations.isEmpty, "\(pushward.violations)")

        let after = try await health()
        #expect(after.status == 200, "degraded, not down: the bridge works")
        #expect(after.data?["status"] == "degraded")
        let message = after.data?["last_error"]?.stringValue ?? ""
        #expect(message.contains("bridging continues in memory") || message.contains("kept in memory"), "\(message)")
        let lines = logs.lines
        #expect(lines.contains { $0.contains("level=error") && $0.contains("continuing in memory") })
        #expect(lines.filter { $0.contains("cannot persist state") }.count == 1, "said once, not per push")
        #expect(!FileManager.default.fileExists(atPath: dataDir + "/trackers.json"))
    }
}
