import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// `livebridge run` — the real executable of this build — killed with SIGKILL in the middle of a
/// SABnzbd job and started again on the same data directory: the same activity resumes, nothing
/// is created twice, the end still arrives.
@Suite("Fault: livebridge killed with SIGKILL", .serialized, .timeLimit(.minutes(1)))
struct KillNineTests {
    static let pushwardKey = "hlk_KILLNINEpushward0123456789abcdefg"
    static let sabnzbdKey = "KILLNINEsabnzbd0123456789abcdef"
    static let slug = "sabnzbd-home"

    /// A bridge setup: a scripted SABnzbd with a long job under way, the fake PushWard, a data
    /// directory and a config file (left readable by others on purpose).
    struct Setup {
        let directory: TemporaryDirectory
        let sab: ScriptedSABnzbd
        let pushward: FakePushWardServer
        var dataDir: String { directory.file("data") }
        var configPath: String { directory.file("livebridge.json5") }

        init() throws {
            directory = try TemporaryDirectory(prefix: "kill9")
            let clock = SystemClock()
            // 3000 MiB at 30 MiB/s: the job outlasts the test unless the test finishes it.
            sab = try ScriptedSABnzbd(
                apiKey: KillNineTests.sabnzbdKey, clock: clock,
                script: SABnzbdJobScript(totalMiB: 3000, rateMiBps: 30, start: clock.now - 5))
            pushward = try FakePushWardServer(apiKey: KillNineTests.pushwardKey)
            let config = """
                // Written by KillNineTests.
                {
                  dataDir: "\(dataDir)",
                  server: { listen: "off" },
                  logLevel: "debug",
                  economy: { endDisplay: "0.3s" },
                  sinks: [ { name: "phone", type: "pushward", url: "\(pushward.baseURL)", apiKey: "${PUSHWARD_KEY}",
                             timeout: "2s" } ],
                  sources: [ { name: "home", type: "sabnzbd", url: "\(sab.baseURL)", apiKey: "${SABNZBD_KEY}",
                               activeInterval: "0.3s", idleInterval: "1s", startGrace: "0s", endAfterIdlePolls: 1,
                               timeout: "2s" } ],
                }
                """
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configPath)
        }

        func start() async throws -> ChildProcess {
            try await LiveBridgeBinary.run(
                config: configPath,
                environment: ["PUSHWARD_KEY": KillNineTests.pushwardKey, "SABNZBD_KEY": KillNineTests.sabnzbdKey])
        }

        /// The engine's persisted tracker for the SABnzbd activity.
        func persistedTracker() -> JSONValue? {
            guard let data = FileManager.default.contents(atPath: dataDir + "/trackers.json"),
                let json = try? JSONParser.parse(Array(data))
            else { return nil }
            return json["sinks"]?["phone"]?[KillNineTests.slug]
        }

        func finishJob() {
            sab.updateScript { $0.finishedAt = SystemClock().now }
        }

        func remove() {
            sab.shutdown()
            pushward.shutdown()
            directory.remove()
        }
    }

    /// Kills `process` with SIGKILL, off the task pool.
    static func killNine(_ process: ChildProcess) async {
        _ = try? await HTTPBlockingWork.run { process.kill() }
    }

    static func expectNoSecrets(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [pushwardKey, sabnzbdKey] {
            #expect(!output.contains(secret), "a secret in the output", sourceLocation: sourceLocation)
        }
    }

    @Test("killed mid-job and started again: the same activity resumes, one create, the end arrives")
    func killedMidJob() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let first = try await setup.start()
        var outputs = ""
        do {
            #expect(await setup.pushward.waitUntil { $0.activity(Self.slug)?.state == "ongoing" })
            try await eventually(10, "the session and the tracker persisted") {
                FileManager.default.fileExists(atPath: setup.dataDir + "/\(Self.slug).session.json")
                    && setup.persistedTracker()?["delivered"] == setup.persistedTracker()?["sequence"]
            }
        } catch {
            Issue.record(error)
        }
        await Self.killNine(first)
        outputs += first.outputText
        #expect(first.outputText.contains("is readable by other users"), "the config-permission warning")
        let requestsBefore = setup.pushward.records.count

        let second = try await setup.start()
        do {
            // The restarted bridge resumes the session and the tracker (logged), polls on, and ends.
            try await eventually(10, "the restarted bridge resuming") {
                second.outputText.contains("resuming the session") && second.outputText.contains("resumed activities")
            }
            setup.finishJob()
            #expect(await setup.pushward.waitUntil { $0.activity(Self.slug)?.state == "ended" })
        } catch {
            Issue.record(error)
        }
        await Self.killNine(second)
        outputs += second.outputText
        let activity = try #require(setup.pushward.activity(Self.slug))
        #expect(activity.content["state"] == "Complete" && activity.content["progress"] == 1)
        #expect(activity.creates == 1, "no second create after the restart")
        let creates = setup.pushward.records.filter { $0.method == "POST" }.count
        #expect(creates == 1)
        #expect(setup.pushward.records.count > requestsBefore)
        #expect(setup.pushward.violations.isEmpty, "\(setup.pushward.violations)")
        Self.expectNoSecrets(outputs)
    }

    @Test("killed while the push service was down and the job had ended: the end arrives after the restart")
    func killedDuringOutage() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let first = try await setup.start()
        do {
            #expect(await setup.pushward.waitUntil { $0.activity(Self.slug)?.state == "ongoing" })
            setup.pushward.goDown()
            setup.finishJob()
            // The bridge decided the end (persisted) but cannot deliver it.
            try await eventually(15, "the end decided") { setup.persistedTracker()?["lifecycle"] == "ended" }
        } catch {
            Issue.record(error)
        }
        await Self.killNine(first)
        try setup.pushward.comeBack()
        #expect(setup.pushward.activity(Self.slug)?.state == "ongoing", "the phone still shows the job running")

        let second = try await setup.start()
        let ended = await setup.pushward.waitUntil { $0.activity(Self.slug)?.state == "ended" }
        await Self.killNine(second)
        #expect(ended, "the end decided before the kill reached the service after the restart")
        let activity = try #require(setup.pushward.activity(Self.slug))
        #expect(activity.content["state"] == "Complete" && activity.content["progress"] == 1)
        #expect(activity.creates == 1)
        #expect(setup.pushward.violations.isEmpty, "\(setup.pushward.violations)")
        #expect(second.outputText.contains("ending again an activity"))
        Self.expectNoSecrets(first.outputText + second.outputText)
    }
}
