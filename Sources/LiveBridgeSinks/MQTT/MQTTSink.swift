public import LiveBridgeCore
public import LiveBridgeNet
import Synchronization

/// Publishes every delivered frame to an MQTT broker for other subscribers (dashboards, Node-RED,
/// Home Assistant): the activity's whole card retained on `<prefix>/<slug>/state`, its starts,
/// changes and ends on `<prefix>/<slug>/event`, QoS 1, in order, and LiveBridge's availability
/// on `<prefix>/status` (`online`; `offline` when it stops, and as its last will when it dies).
///
/// With `discovery` every activity is a Home Assistant device with four entities (see
/// `MQTTDiscovery`). Devices stay between jobs, showing idle once the engine forgot the ended
/// activity; a slug not seen for `retainDevices` has its retained topics cleared, so Home
/// Assistant removes the device. What was published is kept in the data directory
/// (`mqtt/<sink>/devices.json`), so a restart cleans up after the previous run too.
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
        /// Seconds a device (and its retained state) stays after its slug was last seen (7 days).
        public var retainDevices: Double

        public init(
            name: String, session: MQTTSessionConfiguration, prefix: String = "livebridge", discovery: Bool = false,
            discoveryPrefix: String = "homeassistant", displayModel: DisplayModel = .static,
            retainDevices: Double = 7 * 86400
        ) {
            self.name = name
            self.session = session
            self.prefix = prefix
            self.discovery = discovery
            self.discoveryPrefix = discoveryPrefix
            self.displayModel = displayModel
            self.retainDevices = retainDevices
        }

        /// The topics this configuration publishes to.
        public var topics: MQTTTopics { MQTTTopics(prefix: prefix, discoveryPrefix: discoveryPrefix) }
    }

    private struct State {
        var session: MQTTSession?
        /// The session announces LiveBridge (status topic, last will, clean-up); false for a probe.
        var announcing = false
        var registry: MQTTDeviceRegistry
        /// Slugs whose discovery configs this process published, with the name they carry.
        var announced: [String: String] = [:]
        /// Outcomes of final frames whose end frame is still to come.
        var endings: [String: ActivityOutcome] = [:]
        var persistedAt: Double = -.infinity
        var sweeper: Task<Void, Never>?
        var closed = false
    }

    public let configuration: Configuration
    private let clock: any TimeSource
    private let logger: Logger
    private let store: (any StateStore)?
    private let storeKey: String
    private let discovery: MQTTDiscovery
    private let state: Mutex<State>

    public var name: String { configuration.name }
    public var type: String { "mqtt" }
    public var displayModel: DisplayModel { configuration.displayModel }

    /// A sink for `configuration`; `store` (the data directory) keeps the devices published, so
    /// a restart can remove them when they expire.
    public init(
        configuration: Configuration, store: (any StateStore)? = nil, clock: any TimeSource = SystemClock(),
        logger: Logger = .disabled
    ) throws(MQTTSessionError) {
        try configuration.session.validate()
        guard configuration.retainDevices > 0, configuration.retainDevices.isFinite else {
            throw MQTTSessionError(
                code: .invalidConfiguration, message: "retainDevices must be a positive duration such as \"7d\"")
        }
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.store = store
        storeKey = "mqtt/\(ContentRules.slugify(configuration.name))/devices.json"
        discovery = MQTTDiscovery(topics: configuration.topics)
        var registry = MQTTDeviceRegistry(retention: configuration.retainDevices)
        do {
            if let json = try store?.readJSON(storeKey) {
                registry = MQTTDeviceRegistry(json: json, retention: configuration.retainDevices)
            }
        } catch {
            logger.warning("cannot read the published devices; starting afresh", ["error": "\(error)"])
        }
        state = Mutex(State(registry: registry))
    }

    /// The state topic of an activity.
    public func stateTopic(_ slug: String) -> String { configuration.topics.state(slug) }
    /// The event topic of an activity.
    public func eventTopic(_ slug: String) -> String { configuration.topics.event(slug) }

    /// The devices (slugs) with retained topics on the broker, and the topics still to clear.
    public var registry: MQTTDeviceRegistry { state.withLock { $0.registry } }

    // MARK: - Session

    /// The session, created and started on first use. An announcing session carries the last
    /// will, says `online` on every (re)connect and runs the clean-up; a probe's does neither,
    /// so `livebridge check` next to a running bridge never marks it offline.
    private func session(announcing: Bool) throws(SinkError) -> MQTTSession {
        let existing = state.withLock { $0.session }
        if let existing { return existing }
        var settings = configuration.session
        var hook: MQTTSession.ConnectHook?
        if announcing {
            settings.will = MQTTMessage(
                topic: configuration.topics.status, payload: Array("offline".utf8), qos: .atLeastOnce, retained: true)
            hook = { [weak self] session in await self?.connected(session) }
        }
        let created: MQTTSession
        do {
            created = try MQTTSession(configuration: settings, logger: logger, onConnect: hook)
        } catch {
            throw SinkError(.authentication, code: error.code.description, message: "MQTT: \(error.message)")
        }
        let (session, isNew) = state.withLock { state -> (MQTTSession, Bool) in
            if let session = state.session { return (session, false) }
            state.session = created
            state.announcing = announcing
            if announcing { state.registry.reconcile { self.currentTopics($0) } }
            return (created, true)
        }
        guard isNew else { return session }
        do {
            try session.start()
        } catch {
            state.withLock { $0.session = nil }
            throw SinkError(.authentication, code: error.code.description, message: "MQTT: \(error.message)")
        }
        if announcing { startSweeper() }
        return session
    }

    private func currentTopics(_ slug: String) -> [String] {
        configuration.topics.retainedTopics(slug, discovery: configuration.discovery)
    }

    /// After every (re)connect: `online`, the instance's device, then what is due to be cleared.
    private func connected(_ session: MQTTSession) async {
        do {
            try await session.publish(
                topic: configuration.topics.status, payload: Array("online".utf8), qos: .atLeastOnce, retain: true)
            if configuration.discovery {
                try await session.publish(
                    topic: configuration.topics.bridgeDiscovery, payload: JSONWriter.bytes(discovery.bridgeConfig),
                    qos: .atLeastOnce, retain: true)
            }
        } catch {
            logger.warning("cannot announce LiveBridge on the broker", ["error": error.message])
            return
        }
        await sweep()
    }

    public func open() async {
        do {
            _ = try session(announcing: true)
        } catch {
            logger.error("MQTT sink cannot start", ["error": error.message])
        }
    }

    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        let session = try session(announcing: true)
        var status = session.status
        if !status.state.isConnected { status = await waitForConnection(session, seconds: 5) }
        guard status.state.isConnected else {
            let reason = status.lastErrorDescription ?? "connecting to \(configuration.session.endpoint)"
            if let error = status.lastError, error.isConfigurationProblem {
                throw SinkError(.authentication, code: error.code.description, message: "MQTT: \(reason)")
            }
            throw SinkError(.unavailable, message: "MQTT broker not connected: \(reason)")
        }
        let slug = frame.slug
        let topics = configuration.topics
        let (knownOutcome, event, announce, sighting) = state.withLock { state in
            let sighting = state.registry.saw(slug, name: frame.name, topics: currentTopics(slug), at: clock.now)
            var event = MQTTActivityCard.Event.updated
            var knownOutcome: ActivityOutcome?
            switch frame.kind {
            case .seed:
                event = .started
                state.endings[slug] = nil
            case .update:
                break
            case .final:
                event = .ended
                state.endings[slug] = frame.outcome
            case .end:
                knownOutcome = state.endings.removeValue(forKey: slug)
                event = knownOutcome == nil ? .ended : .updated
            }
            let announce = configuration.discovery && state.announced[slug] != frame.name
            return (knownOutcome, event, announce, sighting)
        }
        // An end right after its final frame changes nothing more: one `ended` event per job.
        let sendsEvent = !(frame.kind == .end && event == .updated)
        let card = MQTTActivityCard(frame, outcome: knownOutcome)
        var requests = 0
        do {
            if announce {
                for entity in MQTTTopics.Entity.allCases {
                    try await session.publish(
                        topic: topics.discovery(entity, slug),
                        payload: JSONWriter.bytes(discovery.config(entity, slug: slug, name: frame.name)),
                        qos: .atLeastOnce, retain: true)
                }
                if topics.legacyDiscovery(slug) != topics.discovery(.progress, slug) {
                    try await session.publish(topic: topics.legacyDiscovery(slug), payload: [], retain: true)
                }
                state.withLock { $0.announced[slug] = frame.name }
                requests += MQTTTopics.Entity.allCases.count + 1
            }
            try await session.publish(
                topic: topics.state(slug), payload: JSONWriter.bytes(card.statePayload), qos: .atLeastOnce,
                retain: true)
            requests += 1
            if sendsEvent {
                try await session.publish(
                    topic: topics.event(slug), payload: JSONWriter.bytes(card.eventPayload(event, frame: frame)),
                    qos: .atLeastOnce, retain: false)
                requests += 1
            }
        } catch {
            state.withLock { state in
                state.announced[slug] = nil
                if frame.kind == .end, let knownOutcome { state.endings[slug] = knownOutcome }
            }
            throw SinkError(
                .unavailable, code: error.code.description, message: "MQTT publish failed: \(error.message)")
        }
        persist(force: sighting.changed || !sighting.evicted.isEmpty)
        if !sighting.evicted.isEmpty { await sweep() }
        return DeliveryReceipt(requests: requests, appliedAt: clock.now)
    }

    /// The ended activity is over for the engine: its device shows idle (running off, progress
    /// and finish unknown) until the slug starts again or expires.
    public func forget(_ slug: String) async {
        let (session, device) = state.withLock { state in
            state.endings[slug] = nil
            return (state.session, state.registry.devices[slug])
        }
        guard let session, let device, session.status.state.isConnected else { return }
        let card = MQTTActivityCard.idle(slug: slug, name: device.name, at: clock.now)
        do {
            try await session.publish(
                topic: configuration.topics.state(slug), payload: JSONWriter.bytes(card.statePayload),
                qos: .atLeastOnce, retain: true)
        } catch {
            logger.debug("cannot publish the idle state", ["slug": slug, "error": error.message])
        }
    }

    // MARK: - Clean-up

    /// Removes the devices not seen for `retainDevices` and clears every retained topic waiting
    /// to be cleared; what cannot be cleared now (no connection) waits for the next connect.
    func sweep() async {
        let (session, topics, expired) = state.withLock { state -> (MQTTSession?, [String], [String]) in
            guard !state.closed else { return (nil, [], []) }
            let expired = state.registry.expire(at: clock.now)
            for slug in expired { state.announced[slug] = nil }
            return (state.session, state.registry.pendingClears, expired)
        }
        if !expired.isEmpty {
            logger.info("removing devices not seen for retainDevices", ["slugs": expired.joined(separator: ",")])
        }
        var cleared: [String] = []
        if let session, session.status.state.isConnected {
            for topic in topics {
                do {
                    try await session.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true)
                    cleared.append(topic)
                } catch {
                    logger.debug("cannot clear a retained topic yet", ["topic": topic, "error": error.message])
                    break
                }
            }
        }
        guard !expired.isEmpty || !cleared.isEmpty else { return }
        state.withLock { $0.registry.cleared(cleared) }
        persist(force: true)
    }

    /// Sleeps until the next device expires (or `retainDevices`, when there is none) and sweeps.
    private func startSweeper() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let retention = configuration.retainDevices
                let deadline = state.withLock { $0.registry.nextExpiry } ?? (clock.now + retention)
                do {
                    try await clock.sleep(until: max(deadline, clock.now))
                } catch {
                    return
                }
                await sweep()
            }
        }
        let cancel = state.withLock { state -> Bool in
            if state.closed { return true }
            state.sweeper = task
            return false
        }
        if cancel { task.cancel() }
    }

    /// Writes the registry: at once when devices came or went, otherwise (only `seen` moved) at
    /// most every tenth of `retainDevices` (at most hourly), which is all the expiry needs.
    private func persist(force: Bool) {
        guard let store else { return }
        let now = clock.now
        let json = state.withLock { state -> JSONValue? in
            let interval = min(3600, configuration.retainDevices / 10)
            guard force || now - state.persistedAt >= interval else { return nil }
            state.persistedAt = now
            return state.registry.json
        }
        guard let json else { return }
        do {
            try store.writeJSON(storeKey, json)
        } catch {
            logger.warning("cannot save the published devices", ["error": "\(error)"])
        }
    }

    // MARK: - Probe and shutdown

    public func probe() async -> ProbeResult {
        let session: MQTTSession
        do {
            session = try self.session(announcing: false)
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
    private func waitForConnection(_ session: MQTTSession, seconds: Double) async -> MQTTSessionStatus {
        await withTaskGroup(of: MQTTSessionStatus?.self) { group in
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

    /// Says `offline` (a clean disconnect sends no will), saves the devices and disconnects.
    public func shutdown() async {
        let (session, announcing, sweeper) = state.withLock { state in
            state.closed = true
            defer { state.sweeper = nil }
            return (state.session, state.announcing, state.sweeper)
        }
        sweeper?.cancel()
        guard let session else { return }
        if announcing, session.status.state.isConnected {
            // Shutdown runs in a cancelled task (SIGTERM), where a publish would refuse at once.
            let topic = configuration.topics.status
            await Task {
                try? await session.publish(
                    topic: topic, payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
            }.value
        }
        persist(force: true)
        await session.shutdown()
    }

    /// Disconnects when the engine shuts down.
    public func close() async { await shutdown() }
}
