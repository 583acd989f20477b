import Foundation
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// Home Assistant restarted mid-cycle, then silent (stops answering pings: a link that drops
/// packets without a FIN): the real adapter against the fake Home Assistant (the adapter's own
/// tests restart a real one: `HomeAssistantLiveTests.restartMidJob`), on real time, through the
/// engine into the strict fake PushWard. Recovery times are measured with the default reconnect
/// policy (1 s, doubling).
@Suite("Fault: Home Assistant going away", .serialized, .timeLimit(.minutes(1)))
struct HomeAssistantFaultTests {
    static let token = "ha-reliability-token-0123456789"

    static func washer(finishesAt: Double) -> [String: JSONValue] {
        [
            "timer.washer": [
                "s": "active", "a": ["duration": "0:30:00", "finishes_at": .string(RFC3339.format(finishesAt))],
            ]
        ]
    }

    @Test("restarted mid-cycle (finish moved meanwhile), then silent: reconnect, resync, the activity follows")
    func restartThenSilence() async throws {
        let now = Date().timeIntervalSince1970.rounded()
        let home = try FakeHomeAssistant(token: Self.token, states: Self.washer(finishesAt: now + 1200))
        defer { home.stop() }
        let bridge = try await RealTimeBridge()
        var configuration = HomeAssistantConfiguration(
            name: "home", url: home.url, token: Self.token,
            entities: [HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer")])
        configuration.configPath = "sources[0]"
        configuration.keepaliveInterval = 0.5
        let adapter = HomeAssistantAdapter(configuration: configuration)
        let running = Task { try? await adapter.run(bridge.context(source: "home", type: "homeassistant")) }
        defer { running.cancel() }

        let first = try await home.nextSession()
        try await first.waitForSubscription("entities")
        #expect(
            await bridge.pushward.waitUntil {
                $0.activity("washer")?.content["end_date"]
                    == .int(Int64(now + 1200) + Int64(EconomySettings().fixedFinishPad))
            })

        // Restart: the connection drops; Home Assistant comes back with the cycle extended by 5 min.
        home.setStates(Self.washer(finishesAt: now + 1500))
        let restarted = ContinuousClock.now
        first.drop()
        let second = try await home.nextSession()
        try await second.waitForSubscription("entities")
        let reconnected = seconds(since: restarted)
        #expect(
            await bridge.pushward.waitUntil {
                $0.activity("washer")?.content["end_date"]
                    == .int(Int64(now + 1500) + Int64(EconomySettings().fixedFinishPad))
            })
        let resynced = seconds(since: restarted)
        #expect(bridge.pushward.activity("washer")?.state == "ongoing")

        // Silence: the link stays open but nothing comes back; the timer is cancelled meanwhile.
        home.setStates(["timer.washer": ["s": "idle", "a": ["duration": "0:30:00"]]])
        let silenced = ContinuousClock.now
        second.setAnswersPings(false)
        try await second.waitUntilClosed()
        let detected = seconds(since: silenced)
        try await eventually(5, "health naming the missing pong") {
            bridge.sourceHealth("home")?.lastError?.contains("did not answer a ping") == true
        }
        #expect(await bridge.pushward.waitUntil { $0.activity("washer")?.state == "ended" })
        let resyncedAfterSilence = seconds(since: silenced)
        let activity = try #require(bridge.pushward.activity("washer"))
        #expect(activity.content["state"] == "Cancelled")
        #expect(activity.creates == 1, "one activity through the restart and the silence")
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        #expect(bridge.metrics.value("livebridge_homeassistant_reconnects_total", ["source": "home"]) >= 2)
        #expect(home.connectionCount == 3)
        Figures.record(
            "Home Assistant restart → resync",
            "\(Figures.seconds(reconnected)) to resubscribe, \(Figures.seconds(resynced)) until the phone shows the "
                + "moved finish (real; first reconnect delay 1 s)")
        Figures.record(
            "Home Assistant silent (no pong) → detected / resynced",
            "\(Figures.seconds(detected)) / \(Figures.seconds(resyncedAfterSilence)) real with a 0.5 s keepalive "
                + "(default 30 s: detected within 30–60 s)")
        await bridge.shutdown()
    }
}
