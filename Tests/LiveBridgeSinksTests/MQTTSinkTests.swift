import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@Suite("MQTT sink against a real broker", .serialized, .timeLimit(.minutes(1)))
struct MQTTSinkTests {
    /// Runs `body`, failing after `seconds` (a bound, not a delay).
    func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw CancellationError()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    func frame(_ kind: FrameKind, _ sequence: Int, patch: JSONValue, content: JSONValue, state: String) -> ActivityFrame
    {
        ActivityFrame(
            slug: "sabnzbd-home", name: "SABnzbd", kind: kind, activityState: state, patch: patch, content: content,
            time: 1_781_517_600 + Double(sequence), reason: .structural, sequence: sequence)
    }

    @Test("a subscriber sees the retained state and every event in order")
    func retainedStateAndEvents() async throws {
        let broker = try MosquittoBroker(users: ["bridge": "CANARYmqttpass1", "viewer": "viewerpass1"])
        defer { broker.remove() }
        try await broker.start()
        let fingerprint = try CertificateFingerprint(hex: broker.certificate.serverCertificateSHA256)
        func session(_ user: String, _ password: String, subscriptions: [MQTTSubscription] = [])
            -> MQTTSessionConfiguration
        {
            self.session(broker, fingerprint, user, password, subscriptions: subscriptions)
        }
        let logs = InMemoryLogHandler()
        let sink = try MQTTSink(
            configuration: .init(name: "mqtt", session: session("bridge", "CANARYmqttpass1"), discovery: true),
            logger: Logger(label: "mqtt", level: .trace, handler: logs))
        let seed: JSONValue = ["template": "generic", "progress": 0.1, "state": "Downloading"]
        var content = seed
        _ = try await sink.deliver(frame(.seed, 1, patch: seed, content: content, state: "ongoing"))
        content["progress"] = 0.5
        _ = try await sink.deliver(frame(.update, 2, patch: ["progress": 0.5], content: content, state: "ongoing"))
        content["progress"] = 1
        content["state"] = "Complete"
        _ = try await sink.deliver(
            frame(.final, 3, patch: ["progress": 1, "state": "Complete"], content: content, state: "ongoing"))
        _ = try await sink.deliver(frame(.end, 4, patch: [:], content: content, state: "ended"))

        // A subscriber that connects afterwards gets the retained state and discovery config.
        let viewer = try MQTTSession(
            configuration: session("viewer", "viewerpass1", subscriptions: [MQTTSubscription("#", qos: .atLeastOnce)]))
        try viewer.start()
        // Until both topics the test reads have arrived (the discovery configs come one by one).
        let progressConfig = "homeassistant/sensor/livebridge_sabnzbd_home/progress/config"
        let received = try await within(15) {
            var messages: [MQTTMessage] = []
            for await message in viewer.messages {
                messages.append(message)
                if messages.contains(where: { $0.topic == "livebridge/sabnzbd-home/state" })
                    && messages.contains(where: { $0.topic == progressConfig })
                {
                    return messages
                }
            }
            return messages
        }
        let state = try #require(received.first { $0.topic == "livebridge/sabnzbd-home/state" })
        #expect(state.retained)
        let json = try JSONParser.parse(state.payload)
        #expect(json["state"] == "ended" && json["content"]?["state"] == "Complete" && json["progress"] == 1)
        let discovery = try #require(received.first { $0.topic == progressConfig })
        #expect(try JSONParser.parse(discovery.payload)["state_topic"] == "livebridge/sabnzbd-home/state")

        // Live events arrive in order for a subscriber that is connected while they are sent.
        content["progress"] = 0
        _ = try await sink.deliver(frame(.seed, 5, patch: seed, content: seed, state: "ongoing"))
        _ = try await sink.deliver(frame(.update, 6, patch: ["progress": 0.3], content: seed, state: "ongoing"))
        _ = try await sink.deliver(frame(.update, 7, patch: ["progress": 0.6], content: seed, state: "ongoing"))
        let events = try await within(15) {
            var sequences: [Int] = []
            for await message in viewer.messages where message.topic == "livebridge/sabnzbd-home/event" {
                sequences.append(try JSONParser.parse(message.payload)["sequence"]?.intValue ?? -1)
                if sequences.count == 3 { break }
            }
            return sequences
        }
        #expect(events == [5, 6, 7])
        await viewer.shutdown()
        await sink.shutdown()
        #expect(!logs.lines.joined().contains("CANARY"))
    }

    /// A session configuration for `broker` as `user`, pinned to its certificate.
    func session(
        _ broker: MosquittoBroker, _ fingerprint: CertificateFingerprint, _ user: String, _ password: String,
        subscriptions: [MQTTSubscription] = []
    ) -> MQTTSessionConfiguration {
        MQTTSessionConfiguration(
            host: "127.0.0.1", port: broker.port, clientID: MQTTSessionConfiguration.uniqueClientID(prefix: user),
            username: user, password: password, security: .pinnedCertificate(fingerprint), subscriptions: subscriptions)
    }

    /// The retained messages on the broker now: a viewer subscribes to everything and publishes a
    /// marker once subscribed; what arrives before the marker is what the broker retained.
    func retained(_ broker: MosquittoBroker, _ fingerprint: CertificateFingerprint) async throws -> [String: String] {
        let viewer = try MQTTSession(
            configuration: session(
                broker, fingerprint, "viewer", "viewerpass1", subscriptions: [MQTTSubscription("#", qos: .atLeastOnce)]),
            onConnect: { session in try? await session.publish(topic: "test/marker", payload: [1], qos: .atLeastOnce) })
        try viewer.start()
        let messages = try await within(15) {
            var retained: [String: String] = [:]
            for await message in viewer.messages {
                if message.topic == "test/marker" { break }
                if message.retained { retained[message.topic] = message.payloadText }
            }
            return retained
        }
        await viewer.shutdown()
        return messages
    }

    @Test("a device not seen for retainDevices is removed by the next run; online while running, offline after")
    func retainDevicesAcrossRestart() async throws {
        let broker = try MosquittoBroker(users: ["bridge": "bridgepass1", "viewer": "viewerpass1"])
        defer { broker.remove() }
        try await broker.start()
        let fingerprint = try CertificateFingerprint(hex: broker.certificate.serverCertificateSHA256)
        let settings = session(broker, fingerprint, "bridge", "bridgepass1")
        let store = MemoryStateStore()
        let clock = VirtualClock()
        let configuration = MQTTSink.Configuration(
            name: "mqtt", session: settings, discovery: true, retainDevices: 3600)
        let first = try MQTTSink(configuration: configuration, store: store, clock: clock)
        let seed: JSONValue = ["template": "generic", "progress": 0.1, "state": "Downloading"]
        _ = try await first.deliver(frame(.seed, 1, patch: seed, content: seed, state: "ongoing"))
        await first.shutdown()
        var topics = try await retained(broker, fingerprint)
        #expect(topics["livebridge/status"] == "offline", "a clean stop says offline")
        #expect(topics["homeassistant/sensor/livebridge_sabnzbd_home/status/config"] != nil)
        #expect(topics["homeassistant/binary_sensor/livebridge_sabnzbd_home/running/config"] != nil)
        #expect(topics["homeassistant/binary_sensor/livebridge/online/config"] != nil)
        #expect(try JSONParser.parse(Array((topics["livebridge/sabnzbd-home/state"] ?? "").utf8))["name"] == "SABnzbd")

        // The next run never sees the slug; when its hour is up, it clears what the first run left.
        let second = try MQTTSink(configuration: configuration, store: store, clock: clock)
        #expect(second.registry.devices["sabnzbd-home"] != nil, "the first run's device was persisted")
        await second.open()
        clock.advance(by: 3601)
        let deadline = ContinuousClock.now + .seconds(15)
        while !(second.registry.devices.isEmpty && second.registry.pendingClears.isEmpty) {
            try #require(ContinuousClock.now < deadline, "the expired device was not cleared")
            try await Task.sleep(for: .milliseconds(20))  // poll interval of a bounded wait
        }
        topics = try await retained(broker, fingerprint)
        #expect(topics["livebridge/status"] == "online")
        #expect(topics["homeassistant/binary_sensor/livebridge/online/config"] != nil)
        #expect(topics.keys.filter { $0.contains("sabnzbd") }.isEmpty, "left behind: \(topics.keys.sorted())")
        await second.shutdown()
    }

    @Test("a broker that is down makes delivery retry, not drop")
    func brokerDown() async throws {
        let broker = try MosquittoBroker(users: ["bridge": "pass12345"])
        defer { broker.remove() }
        try await broker.start()
        let fingerprint = try CertificateFingerprint(hex: broker.certificate.serverCertificateSHA256)
        let port = broker.port
        broker.stop()
        let sink = try MQTTSink(
            configuration: .init(
                name: "mqtt",
                session: MQTTSessionConfiguration(
                    host: "127.0.0.1", port: port, clientID: "lb-down", username: "bridge", password: "pass12345",
                    security: .pinnedCertificate(fingerprint))))
        do {
            _ = try await sink.deliver(
                frame(.update, 1, patch: ["progress": 0.2], content: ["progress": 0.2], state: "ongoing"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .unavailable)
        }
        await sink.shutdown()
    }
}
