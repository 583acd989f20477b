import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The bridge restarts (a crash, an upgrade, a reboot) while frames it decided wait for a push
/// service that is down: what it had not delivered must still arrive once the service is back.
@Suite("Fault: restart while frames wait for the push service", .serialized, .timeLimit(.minutes(1)))
struct RestartWhileUndeliveredTests {
    @Test("the job ended during an outage, the bridge restarted: the end and the final content still arrive")
    func endSurvivesRestart() async throws {
        let clock = VirtualClock(start: VirtualBridge.start)
        let store = MemoryStateStore()
        let pushward = try FakePushWardServer(apiKey: VirtualBridge.apiKey, clock: clock)
        defer { pushward.shutdown() }
        let base = clock.now
        let job = SABnzbdJobScript(totalMiB: 600, rateMiBps: 1, start: base + 60)
        let updates = try Recordings.sabnzbd(job, from: base, through: base + 900)
        let slug = Recordings.sabnzbdSlug

        let first = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        await first.play(updates, through: base + 900, step: 2) { t in
            if t == base + 300 {
                #expect(pushward.activity(slug)?.state == "ongoing")
                pushward.goDown()
            }
        }
        // The job ended at +11 min while the service was down: final and end wait in memory.
        #expect(await first.queue.pendingCount > 0)
        #expect(await first.engine.tracker(sink: "phone", slug: slug)?.lifecycle == .ended)
        // The process dies here (nothing flushed, nothing ended); the service comes back.
        try pushward.comeBack()

        let second = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        var t = clock.now
        while t < base + 1800 {
            t += 10
            await second.advance(to: t)
        }
        let activity = try #require(pushward.activity(slug))
        #expect(activity.state == "ended", "the end decided before the restart reached the service")
        #expect(activity.content["state"] == "Complete" && activity.content["progress"] == 1)
        #expect(activity.content["live_progress"] == nil && activity.content["end_date"] == nil)
        #expect(await second.inSync(slug))
        #expect(activity.creates == 1)
        #expect(pushward.violations.isEmpty, "\(pushward.violations)")
    }

    @Test("restarted with a change undelivered: the first push after the restart carries the whole content")
    func undeliveredChangeResyncsAfterRestart() async throws {
        let clock = VirtualClock(start: VirtualBridge.start)
        let store = MemoryStateStore()
        let pushward = try FakePushWardServer(apiKey: VirtualBridge.apiKey, clock: clock)
        defer { pushward.shutdown() }
        let slug = "oven"
        func update(_ state: String, _ subtitle: String, progress: Double) -> ActivityUpdate {
            var update = ActivityUpdate(
                slug: slug, name: "Oven", phase: .active,
                content: GenericContent(state: state, icon: "flame"), progress: progress,
                eta: .remaining(3600 * (1 - progress)), observedAt: clock.now)
            update.content.subtitle = .value(subtitle)
            return update
        }
        let first = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        await first.emit(update("Preheating", "Pizza", progress: 0.1))
        #expect(pushward.activity(slug)?.content["subtitle"] == "Pizza")
        pushward.goDown()
        await first.advance(to: clock.now + 60)
        // The subtitle changes while the service is down, then the bridge dies.
        await first.emit(update("Preheating", "Bread", progress: 0.12))
        #expect(await first.queue.pendingCount == 1)
        try pushward.comeBack()

        let second = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        await second.advance(to: clock.now + 60)
        // The source reports again after the restart; only the progress moved since.
        await second.emit(update("Preheating", "Bread", progress: 0.2))
        await second.advance(to: clock.now + 10)
        #expect(pushward.activity(slug)?.content["subtitle"] == "Bread", "the change lost with the process")
        #expect(await second.inSync(slug))
        #expect(pushward.violations.isEmpty, "\(pushward.violations)")
    }
}
