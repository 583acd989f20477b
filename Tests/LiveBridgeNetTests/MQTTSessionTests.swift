import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

@Suite("MQTT session against a real mosquitto broker", .timeLimit(.minutes(1)))
struct MQTTSessionTests {
    static let serial = "01P00A000000001"
    static let reportTopic = "device/\(serial)/report"

    @Test("TLS + password: connects, subscribes, receives exactly what mosquitto_pub publishes")
    func connectSubscribeReceive() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)),
                subscriptions: [MQTTSubscription(Self.reportTopic, qos: .atLeastOnce)]),
            onConnect: hook.hook)
        let inbox = TestInbox(consuming: session.messages)
        try session.start()
        // The hook runs after the SUBACK, so a publish now is guaranteed to be routed to us.
        try await hook.waitForRun(1)
        let status = session.status
        #expect(status.state == .connected)
        #expect(status.connections == 1)
        #expect(status.peerCertificate == (try brokerFingerprint(of: broker)))

        let payload = #"{"print":{"command":"push_status","mc_percent":42,"subtask_name":"Bénchy"}}"#
        try mosquittoPublish(broker, topic: Self.reportTopic, message: payload)
        let message = try await inbox.first("the published report") { $0.topic == Self.reportTopic }
        #expect(message.payload == Array(payload.utf8))
        #expect(message.qos == .atLeastOnce)
        #expect(!message.retained)
        #expect(broker.logins(clientID: session.configuration.clientID) == 1)
        await session.shutdown()
    }

    @Test("QoS 1 publish is acknowledged and a retained message reaches a later subscriber")
    func qos1RetainedReachesLaterSubscriber() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let pin = try brokerFingerprint(of: broker)
        let topic = "livebridge/test/retained"

        let publisherHook = MQTTHookRecorder()
        let publisher = try MQTTSession(
            configuration: mqttConfiguration(broker, security: .pinnedCertificate(pin)), onConnect: publisherHook.hook
        )
        try publisher.start()
        try await publisherHook.waitForRun(1)
        try await publisher.publish(topic: topic, text: "retained state v1", qos: .atLeastOnce, retain: true)
        #expect(broker.logLines(containing: "Received PUBLISH from \(publisher.configuration.clientID)").count == 1)
        await publisher.shutdown()

        let subscriber = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(pin), subscriptions: [MQTTSubscription(topic, qos: .atLeastOnce)]))
        let inbox = TestInbox(consuming: subscriber.messages)
        try subscriber.start()
        let message = try await inbox.first("the retained message") { $0.topic == topic }
        #expect(message.payloadText == "retained state v1")
        #expect(message.retained)
        #expect(message.qos == .atLeastOnce)
        await subscriber.shutdown()
    }

    @Test("the session's own QoS 0 and QoS 2 publishes round-trip through the broker")
    func publishRoundTrip() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let topic = "device/\(Self.serial)/request"
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)),
                subscriptions: [MQTTSubscription(topic, qos: .exactlyOnce)]),
            onConnect: hook.hook)
        let inbox = TestInbox(consuming: session.messages)
        try session.start()
        try await hook.waitForRun(1)
        let pushall = #"{"pushing":{"sequence_id":"0","command":"pushall"}}"#
        try await session.publish(topic: topic, text: pushall, qos: .atMostOnce)
        let binary: [UInt8] = [0, 0xFF, 0xC3, 0x28, 10]  // invalid UTF-8 passes through untouched
        try await session.publish(topic: topic, payload: binary, qos: .exactlyOnce)
        #expect(try await inbox.first("pushall") { $0.payloadText == pushall }.qos == .atMostOnce)
        #expect(try await inbox.first("binary") { $0.payload == binary }.qos == .exactlyOnce)
        await session.shutdown()
    }

    @Test("CA mode: the right CA with host-name check connects; another CA is refused in the handshake")
    func certificateAuthorityMode() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let good = try MQTTSession(
            configuration: mqttConfiguration(
                broker,
                security: .certificateAuthority(caFile: broker.certificate.caCertificatePath, verifyHostname: true)))
        try good.start()
        try await waitForMQTTStatus(good, "connected with the CA file") { $0.state == .connected }
        await good.shutdown()

        let otherAuthority = try TestCertificateAuthority(commonName: "other", prefix: "other-ca")
        defer { otherAuthority.remove() }
        let mark = broker.logMark()
        let bad = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .certificateAuthority(caFile: otherAuthority.caCertificatePath, verifyHostname: false)
            ))
        try bad.start()
        let status = try await waitForMQTTStatus(bad, "refused by the wrong CA") { $0.state.error != nil }
        let error = try #require(status.state.error)
        #expect(error.code == .certificateUntrusted)
        #expect(error.message.contains("failed verification: self-signed certificate in certificate chain"))
        #expect(error.presentedFingerprint == (try brokerFingerprint(of: broker)))
        #expect(broker.connectPacketsReceived(since: mark) == 0)
        await bad.shutdown()
    }

    @Test("TLS capped at 1.2 connects to a TLS 1.2 broker")
    func tls12Only() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)), tlsVersions: .tls12Only))
        try session.start()
        try await waitForMQTTStatus(session, "connected over TLS 1.2") { $0.state == .connected }
        await session.shutdown()
    }

    @Test("a TLS handshake failure surfaces OpenSSL's reason, captured from libmosquitto's log callback")
    func handshakeFailureIsExplained() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial, plainListener: true)
        defer { broker.remove() }
        try await broker.start()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)), port: broker.plainPort))
        try session.start()
        let status = try await waitForMQTTStatus(session, "handshake failure") { $0.state.error != nil }
        let error = try #require(status.state.error)
        // The plain listener reads our ClientHello as garbage and hangs up; OpenSSL's words for that
        // reach us only through libmosquitto's log callback.
        #expect(error.code == .tlsHandshakeFailed)
        #expect(error.message.contains("127.0.0.1:\(broker.plainPort!)"))
        #expect(error.message.contains("OpenSSL Error"), "\(error.message)")
        #expect(error.message.contains("unexpected eof while reading"), "\(error.message)")
        await session.shutdown()
    }

    @Test("plaintext mode works against a plain listener")
    func plaintext() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial, plainListener: true)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let topic = "plain/test"
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .plaintext, subscriptions: [MQTTSubscription(topic)], port: broker.plainPort),
            onConnect: hook.hook)
        let inbox = TestInbox(consuming: session.messages)
        try session.start()
        try await hook.waitForRun(1)
        try await session.publish(topic: topic, text: "hello")
        #expect(try await inbox.first("echo") { $0.topic == topic }.payloadText == "hello")
        #expect(session.status.peerCertificate == nil)
        await session.shutdown()
    }

    @Test("shutdown sends DISCONNECT, finishes the streams, and later publishes fail with shutDown")
    func cleanShutdown() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        try await broker.start()
        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try brokerFingerprint(of: broker)),
                subscriptions: [MQTTSubscription(Self.reportTopic)]),
            onConnect: hook.hook)
        try session.start()
        try await hook.waitForRun(1)
        let mark = broker.logMark()
        await session.shutdown()
        #expect(session.status.state == .closed)
        // A DISCONNECT packet makes mosquitto log "disconnected."; a bare socket close logs "closed its connection".
        let clientID = session.configuration.clientID
        let disconnected = try await withTestDeadline(5, "broker logs the DISCONNECT") {
            while broker.logLines(since: mark, containing: "Client \(clientID) disconnected.").isEmpty {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            return true
        }
        #expect(disconnected)
        #expect(broker.logLines(since: mark, containing: "\(clientID) closed its connection").isEmpty)
        var iterator = session.messages.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        do {
            try await session.publish(topic: "a/b", text: "late")
            Issue.record("publish after shutdown must fail")
        } catch {
            #expect(error.code == .shutDown)
        }
        await session.shutdown()  // idempotent
    }

    @Test("publishing while not connected fails at once with notConnected")
    func publishWhileDisconnected() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial)
        defer { broker.remove() }
        let session = try MQTTSession(
            configuration: mqttConfiguration(broker, security: .pinnedCertificate(try brokerFingerprint(of: broker))))
        try session.start()  // broker never started: connection refused, retrying
        try await waitForMQTTStatus(session, "refused") { $0.state.error?.code == .connectionRefused }
        do {
            try await session.publish(topic: "a/b", text: "x", qos: .atLeastOnce)
            Issue.record("expected notConnected")
        } catch {
            #expect(error.code == .notConnected)
        }
        await session.shutdown()
    }
}
