import LiveBridgeCore
import LiveBridgeNet
import Testing

@Suite("Reconnect backoff schedule (MQTT, Home Assistant)")
struct ReconnectBackoffTests {
    @Test("failed attempts wait 1, 2, 4, 8, 16, then 30 s forever")
    func doublesToTheMaximum() {
        var backoff = Backoff(reconnect: .standard)
        let delays = (0..<8).map { _ in backoff.attemptFailed(permanent: false) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30])
    }

    @Test("a refusal retrying cannot fix waits the maximum at once, and stays there")
    func permanentRefusalJumpsToMaximum() {
        var backoff = Backoff(reconnect: .standard)
        #expect(backoff.attemptFailed(permanent: true) == 30)
        #expect(backoff.attemptFailed(permanent: false) == 30)
        #expect(backoff.attemptFailed(permanent: true) == 30)
    }

    @Test("a drop after a stable connection retries after 1 s; quick drops escalate")
    func stableConnectionResetsTheSchedule() {
        var backoff = Backoff(reconnect: .standard)
        _ = backoff.attemptFailed(permanent: false)
        _ = backoff.attemptFailed(permanent: false)
        #expect(backoff.connectionLost(after: 3600) == 1)
        #expect(backoff.connectionLost(after: 0.5) == 2)
        #expect(backoff.connectionLost(after: 0.5) == 4)
        #expect(backoff.connectionLost(after: 31) == 1)
    }

    @Test("custom policies are honoured and clamped")
    func customPolicy() {
        var backoff = Backoff(
            reconnect: MQTTReconnectPolicy(initialDelay: 0.25, maximumDelay: 1, stableConnectionDuration: 5))
        #expect((0..<4).map { _ in backoff.attemptFailed(permanent: false) } == [0.25, 0.5, 1, 1])
        let clamped = MQTTReconnectPolicy(initialDelay: 10, maximumDelay: 2)
        #expect(clamped.maximumDelay == 10)
    }
}
