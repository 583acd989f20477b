public import LiveBridgeCore
public import LiveBridgeNet
import Synchronization

/// Publishes every delivered frame to an MQTT broker for other subscribers (dashboards, Node-RED,
/// Home Assistant): the activity's full state retained on `<prefix>/<slug>/state` and each change
/// on `<prefix>/<slug>/event`, QoS 1, in order. Optionally announces each activity to Home
/// Assistant's MQTT discovery as a sensor whose state is the progress in percent.
public final class MQTTSink: Sink {
    /// Settings from the sink's config entry.
    public struct Configuration: Sendable {
        public var name: String
        public var session: MQTTSessionConfiguration
        /// Topic prefix (`livebridge`).
        public var prefix: String
        /// Publish Home Assistant discovery configs.
        public var discovery: Bool
        /// Home Assistant's discovery prefix (`homeassistant`).
        public var discoveryPrefix: String
        /// What subscribers are assumed to draw between messages; static by default (they see
        /// the current progress in every state message).
        public var displayModel: DisplayModel

        public init(
            name: String, session: MQTTSessionConfiguration, prefix: String = "livebridge", discovery: Bool = false,
            discoveryPrefix: String = "homeassistant", displayModel: DisplayModel = .static
        ) {
            self.name = name
            self.session = session
            self.prefix = prefix
            self.discovery = discovery
            self.discoveryPrefix = discoveryPrefix
            self.displayModel = displayModel
        }
    }

    public let configuration: Configuration
    private let session: MQTTSession
    private let clock: any TimeSource
    private let announced = Mutex<Set<String>>([])
    private let started = Mutex(false)

    public var name: String { configuration.name }
    public var type: String { "mqtt" }
    public var displayModel: DisplayModel { configuration.displayModel }

    public init(configuration: Configuration, clock: any TimeSource = SystemClock(), logger: Logger = .disabled)
        throws(MQTTSessionError)
    {
        self.configuration = configuration
        self.clock = clock
        session = try MQTTSession(configuration: configuration.session, logger: logger)
    }

    /// The state topic of an activity.
    public func stateTopic(_ slug: String) -> String { "\(configuration.prefix)/\(slug)/state" }
    /// The event topic of an activity.
    public func eventTopic(_ slug: String) -> String { "\(configuration.prefix)/\(slug)/event" }

    private func ensureStarted() throws(SinkError) {
        let needsStart = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard needsStart else { return }
        do {
            try session.start()
        } catch {
            started.withLock { $0 = false }
            throw SinkError(.authentication, code: error.code.description, message: "MQTT: \(error.message)")
        }
    }

    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        try ensureStarted()
        var status = session.status
        if !status.state.isConnected { status = await waitForConnection(seconds: 5) }
        guard status.state.isConnected else {
            let reason = status.lastErrorDescription ?? "connecting to \(configuration.session.endpoint)"
            if let error = status.lastError, error.isConfigurationProblem {
                throw SinkError(.authentication, code: error.code.description, message: "MQTT: \(reason)")
            }
            throw SinkError(.unavailable, message: "MQTT broker not connected: \(reason)")
        }
        var requests = 0
        do {
            if configuration.discovery {
                let isNew = announced.withLock { $0.insert(frame.slug).inserted }
                if isNew {
                    try await session.publish(
                        topic: discoveryTopic(frame.slug), payload: JSONWriter.bytes(discoveryConfig(frame)),
                        qos: .atLeastOnce, retain: true)
                    requests += 1
                }
            }
            try await session.publish(
                topic: stateTopic(frame.slug), payload: JSONWriter.bytes(statePayload(frame)), qos: .atLeastOnce,
                retain: true)
            try await session.publish(
                topic: eventTopic(frame.slug), payload: JSONWriter.bytes(eventPayload(frame)), qos: .atLeastOnce,
                retain: false)
            requests += 2
        } catch {
            if configuration.discovery { announced.withLock { _ = $0.remove(frame.slug) } }
            throw SinkError(
                .unavailable, code: error.code.description, message: "MQTT publish failed: \(error.message)")
        }
        return DeliveryReceipt(requests: requests, appliedAt: clock.now)
    }

    public func probe() async -> ProbeResult {
        do {
            try ensureStarted()
        } catch {
            return ProbeResult(ok: false, detail: error.message)
        }
        for await status in session.statusUpdates() {
            if status.state.isConnected {
                return ProbeResult(ok: true, detail: "connected to \(configuration.session.endpoint)")
            }
            if let error = status.lastError { return ProbeResult(ok: false, detail: error.message) }
        }
        return ProbeResult(ok: false, detail: "session closed")
    }

    /// Waits (bounded, in real time: this is I/O) for the session to connect or fail.
    private func waitForConnection(seconds: Double) async -> MQTTSessionStatus {
        let session = self.session
        return await withTaskGroup(of: MQTTSessionStatus?.self) { group in
            group.addTask {
                for await status in session.statusUpdates() {
                    if status.state.isConnected || status.lastError?.isConfigurationProblem == true { return status }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? session.status
        }
    }

    /// Disconnects from the broker.
    public func shutdown() async { await session.shutdown() }

    /// Disconnects when the engine shuts down.
    public func close() async { await shutdown() }

    /// Forgets that `slug`'s discovery config was published (a slug that starts again later
    /// announces itself again), so the set stays bounded by the slugs alive.
    public func forget(_ slug: String) async { _ = announced.withLock { $0.remove(slug) } }

    // MARK: - Payloads

    func statePayload(_ frame: ActivityFrame) -> JSONValue {
        var object: [String: JSONValue] = [
            "slug": .string(frame.slug), "name": .string(frame.name),
            "state": .string(frame.kind == .end ? "ended" : (frame.activityState ?? "ongoing")),
            "content": frame.content, "updated_at": .number(frame.time.rounded()),
        ]
        if let progress = frame.content["progress"] { object["progress"] = progress }
        if let outcome = frame.outcome { object["outcome"] = .string(outcome.rawValue) }
        if let finish = frame.finishesAt { object["finishes_at"] = .number(finish.rounded()) }
        return .object(object)
    }

    func eventPayload(_ frame: ActivityFrame) -> JSONValue {
        var object: [String: JSONValue] = [
            "slug": .string(frame.slug), "kind": .string(frame.kind.rawValue), "reason": .string(frame.reason.rawValue),
            "patch": frame.patch, "time": .number(frame.time), "sequence": .int(Int64(frame.sequence)),
        ]
        if let state = frame.activityState { object["state"] = .string(state) }
        return .object(object)
    }

    func discoveryTopic(_ slug: String) -> String {
        "\(configuration.discoveryPrefix)/sensor/livebridge_\(slug.replacingAll("-", "_"))/config"
    }

    func discoveryConfig(_ frame: ActivityFrame) -> JSONValue {
        let id = "livebridge_\(frame.slug.replacingAll("-", "_"))"
        return [
            "name": .string(frame.name), "unique_id": .string(id), "object_id": .string(id),
            "state_topic": .string(stateTopic(frame.slug)),
            "value_template": "{{ ((value_json.progress | float(0)) * 100) | round(0) }}",
            "unit_of_measurement": "%", "icon": "mdi:progress-clock",
            "json_attributes_topic": .string(stateTopic(frame.slug)),
            "json_attributes_template": "{{ value_json.content | tojson }}",
            "device": ["identifiers": ["livebridge"], "name": "LiveBridge", "manufacturer": "LiveBridge"],
        ]
    }
}

extension String {
    func replacingAll(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
