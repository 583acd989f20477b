import Foundation
import LiveBridgeCore
import LiveBridgeTestSupport
import Testing

@testable import LiveBridgeNet

@Suite("MQTT session resilience: refusals, restarts, late brokers", .timeLimit(.minutes(1)))
struct MQTTResilienceTests {
    static let serial = "01P00A000000001"
    static let reportTopic = "device/\(serial)/report"

    @Test("a wrong password is a typed auth failure, waits 30 s, and does not hammer the broker")
    func wrongPasswordDoesNotStorm() async throws {
        let accessCode = "Right-Code-4242"
        let wrongCode = "Wrong-Canary-9191"
        let broker = try MosquittoBroker(commonName: Self.serial, users: ["bblp": accessCode])
        defer { broker.remove() }
        try await broker.start()
        let logs = InMemoryLogHandler()
        let mark = broker.logMark()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)), password: wrongCode),
            logger: mqttRecordingLogger(logs))
        try session.start()
        let status = try await waitForMQTTStatus(session, "the auth refusal") { $0.state.error != nil }
        let error = try #require(status.state.error)
        #expect(error.code == .notAuthorized)
        #expect(error.connackCode == 5)
        #expect(error.isConfigurationProblem)
        #expect(error.message.contains("CONNACK 5"))
        #expect(status.retryDelay == 30)
        #expect(status.lastErrorDescription == error.message)

        // Observation window (a bound, not synchronisation): a 1 s retry would show 3+ attempts here.
        try await Task.sleep(nanoseconds: 3_500_000_000)
        #expect(broker.connectionAttempts(since: mark) == 1, "\(broker.log(since: mark))")
        #expect(broker.logLines(since: mark, containing: "not authorised").count == 1)
        #expect(session.status.connectAttempts == 1)
        #expect(session.status.state.error?.code == .notAuthorized)
        await session.shutdown()

        let everything = logs.lines.joined(separator: "\n") + error.message + "\(session.configuration)"
        #expect(!everything.contains(wrongCode), "the access code must never reach a log line or an error")
        #expect(!everything.contains(accessCode))
    }

    @Test("a broker restart mid-session: disconnected, reconnected, resubscribed, hook run again")
    func brokerRestartReconnects() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)),
                subscriptions: [MQTTSubscription(Self.reportTopic)]),
            onConnect: hook.hook)
        let statuses = TestInbox(consuming: session.statusUpdates())
        let inbox = TestInbox(consuming: session.messages)
        try session.start()
        try await hook.waitForRun(1)

        try await broker.restart()
        let lost = try await statuses.first("the disconnect") { $0.state.error != nil }
        guard case .disconnected(let reason) = lost.state else {
            Issue.record("expected disconnected, got \(lost.state)")
            return
        }
        #expect(reason.code == .connectionLost)
        #expect(lost.retryDelay == 1, "a drop of a healthy connection retries after the initial delay")

        try await hook.waitForRun(2, timeout: 15)
        #expect(session.status.state == .connected)
        #expect(session.status.connections == 2)
        #expect(broker.logins(clientID: session.configuration.clientID) == 2)
        // The broker forgot the subscription when it restarted; this arrives only if it was renewed.
        try mosquittoPublish(broker, topic: Self.reportTopic, message: "after restart")
        #expect(try await inbox.first("a message after the restart") { _ in true }.payloadText == "after restart")
        await session.shutdown()
    }

    @Test("first connect while the broker is down: retried with backoff until it comes up")
    func firstConnectWaitsForTheBroker() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(broker, security: .pinnedCertificate(try brokerFingerprint(of: broker))),
            onConnect: hook.hook)
        let statuses = TestInbox(consuming: session.statusUpdates())
        try session.start()
        let refused = try await statuses.first("the first refusal") { $0.state.error != nil }
        #expect(refused.state == .failed(try #require(refused.state.error)))
        #expect(refused.state.error?.code == .connectionRefused)
        #expect(refused.state.error?.message.contains("refused") == true)
        #expect(refused.retryDelay == 1)

        try await broker.start()
        try await hook.waitForRun(1, timeout: 15)
        let status = session.status
        #expect(status.state == .connected)
        #expect(status.connectAttempts >= 2)
        #expect(status.lastError?.code == .connectionRefused, "the last failure stays visible for /health")
        await session.shutdown()
    }

    @Test("a QoS 1 publish waiting for its PUBACK fails with connectionLost when the broker goes away")
    func pendingPublishFailsOnDisconnect() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(broker, security: .pinnedCertificate(try brokerFingerprint(of: broker))),
            onConnect: hook.hook)
        try session.start()
        try await hook.waitForRun(1)
        // Freeze the broker so the PUBACK never comes, then kill it.
        let pid = try #require(broker.pid)
        kill(pid, SIGSTOP)
        let publish = Task {
            try await session.publish(topic: "a/b", text: "unacknowledged", qos: .atLeastOnce)
        }
        try await withTestDeadline(5, "the publish waits for its PUBACK") {
            while session.publishesAwaitingAcknowledgement == 0 { try await Task.sleep(nanoseconds: 2_000_000) }
        }
        kill(pid, SIGKILL)
        let outcome = await publish.result
        guard case .failure(let error) = outcome else {
            Issue.record("the publish must fail")
            return
        }
        #expect((error as? MQTTSessionError)?.code == .connectionLost)
        await session.shutdown()
    }
}
