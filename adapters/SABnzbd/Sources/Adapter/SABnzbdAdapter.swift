public import LiveBridgeCore
public import LiveBridgeNet

/// Polls one SABnzbd and turns its jobs into one Live Activity per instance.
///
/// While nothing runs it sends a cheap `mode=queue&limit=1` every `idleInterval`; as soon as a
/// job shows up (or a webhook arrives) it polls the full queue — and the history while a job is
/// being post-processed — every `activeInterval`, feeding `SABnzbdMapper`, until the session
/// ends. Errors never end, blank or fake the activity: they go to `/health` and the log, and
/// polling backs off (far, for a wrong API key).
public struct SABnzbdAdapter: Adapter {
    /// The source's settings.
    public let configuration: SABnzbdConfiguration
    let client: SABnzbdClient

    /// The configured name (`home`).
    public var name: String { configuration.name }
    /// The config type, `sabnzbd`.
    public var type: String { "sabnzbd" }

    /// An adapter for one SABnzbd; `transport` is the shared libcurl client in the program.
    public init(configuration: SABnzbdConfiguration, transport: any HTTPTransport = HTTPClient.shared) {
        self.configuration = configuration
        client = SABnzbdClient(endpoint: configuration.endpoint, transport: transport)
    }

    /// The `StateStore` key of the session kept for a restart.
    public var storeKey: String { configuration.session.slug + ".session.json" }

    /// Polls until cancelled; webhooks from `context.webhooks` cut the sleep short.
    public func run(_ context: AdapterContext) async throws {
        let waker = PollWaker()
        let logger = context.logger
        let listener = Task {
            for await event in context.webhooks {
                let summary = SABnzbdWebhook.summary(of: event.body)
                logger.debug("webhook: polling now", ["notification": summary ?? "(no Apprise body)"])
                waker.wake()
            }
        }
        defer { listener.cancel() }
        var loop = SABnzbdConnection(adapter: self, context: context)
        try await loop.run(waker: waker)
    }

    /// `livebridge check`: `mode=version`, then a `limit=1` queue to prove the key.
    public func probe(_ context: AdapterContext) async -> ProbeResult {
        do {
            let version = try await client.version()
            let queue = try await client.queue(limit: 1)
            let jobs = queue.totalSlots == 1 ? "1 job" : "\(queue.totalSlots) jobs"
            return ProbeResult(ok: true, detail: "SABnzbd \(version), API key accepted, \(jobs) in the queue")
        } catch {
            return ProbeResult(ok: false, detail: error.message)
        }
    }
}

/// The poller's state between polls: mode, session, failures.
struct SABnzbdConnection {
    let adapter: SABnzbdAdapter
    let context: AdapterContext
    var mapper: SABnzbdMapper
    /// Polling the full queue (a session runs or was just woken).
    var active = false
    /// The next poll reads the history whatever the session thinks (after a webhook).
    var forceHistory = false
    var failures = 0
    var lastProblem: String?
    var savedShape: String?
    var savedAt: Double = 0

    /// Seconds between snapshot writes when only the progress moved.
    static let saveInterval = 30.0

    init(adapter: SABnzbdAdapter, context: AdapterContext) {
        self.adapter = adapter
        self.context = context
        mapper = SABnzbdMapper(settings: adapter.configuration.session)
    }

    var configuration: SABnzbdConfiguration { adapter.configuration }

    mutating func run(waker: PollWaker) async throws {
        restore()
        context.health.setDetail("mode", active ? "active" : "idle")
        context.health.setDetail("url", HTTPURLRedactor.redact(SABnzbdClient.apiURL(from: configuration.url)))
        while !Task.isCancelled {
            let delay = await poll()
            let deadline = context.clock.now + delay
            if try await waker.sleep(until: deadline, clock: context.clock) {
                forceHistory = true
            }
        }
    }

    /// One poll; returns the seconds until the next.
    mutating func poll() async -> Double {
        do {
            if !mapper.isOpen && !forceHistory {
                let idle = try await adapter.client.queue(limit: 1)
                succeeded(idle)
                guard SABnzbdMapper.hasWork(idle) else {
                    setMode(active: false)
                    return configuration.idleInterval
                }
            }
            setMode(active: true)
            let queue = try await adapter.client.queue()
            var history: SABnzbdHistory?
            if forceHistory || mapper.wantsHistory(with: queue) {
                history = try await adapter.client.history(limit: mapper.historyLimit)
            }
            forceHistory = false
            let time = context.clock.now
            succeeded(queue)
            for update in mapper.observe(SABnzbdObservation(time: time, queue: queue, history: history)) {
                if case .ended(let outcome) = update.phase {
                    context.logger.info(
                        "session ended", ["outcome": outcome.rawValue, "summary": update.content.subtitle.value ?? ""])
                }
                await context.emit(update)
            }
            context.health.setDetail("jobs", mapper.isOpen ? String(mapper.jobIDs.count) : nil)
            persist(at: time)
            if !mapper.isOpen {
                setMode(active: false)
                return configuration.idleInterval
            }
            return configuration.activeInterval
        } catch {
            if error.code == .cancelled || Task.isCancelled { return 0 }
            return failed(error)
        }
    }

    private mutating func setMode(active: Bool) {
        guard active != self.active else { return }
        self.active = active
        context.health.setDetail("mode", active ? "active" : "idle")
        context.logger.debug(active ? "work found: polling the full queue" : "nothing runs: idle polling")
    }

    private mutating func succeeded(_ queue: SABnzbdQueue) {
        context.health.noteEvent()
        if failures > 0 {
            context.health.set(.ok)
            context.logger.info("SABnzbd answers again", ["after_failures": String(failures)])
        }
        failures = 0
        lastProblem = nil
        if let version = queue.version { context.health.setDetail("version", version) }
    }

    /// Reports a failed poll and returns the backoff; never touches the mapper.
    private mutating func failed(_ error: SABnzbdError) -> Double {
        failures += 1
        let message = error.message
        let kind = error.code.description
        context.metrics.increment("livebridge_sabnzbd_poll_errors_total", ["source": configuration.name, "kind": kind])
        if error.code == .notJSON || error.code == .badAnswer {
            context.reportParseError(message)
        }
        context.health.set(error.needsConfigurationChange ? .error : .degraded, message)
        if message != lastProblem {
            if error.needsConfigurationChange {
                context.logger.error(message, ["kind": kind])
            } else {
                context.logger.warning(message, ["kind": kind])
            }
        } else {
            context.logger.debug("still failing", ["kind": kind, "failures": String(failures)])
        }
        lastProblem = message
        let base = active || mapper.isOpen ? configuration.activeInterval : configuration.idleInterval
        if error.needsConfigurationChange {
            // Polling harder cannot fix a key: back off far.
            return Backoff(initial: max(base, 15), maximum: configuration.maximumBackoff).delay(failure: failures)
        }
        return Backoff(initial: base, maximum: max(60, configuration.idleInterval)).delay(failure: failures)
    }

    // MARK: - Resume

    private mutating func restore() {
        do {
            guard let json = try context.store.readJSON(adapter.storeKey) else { return }
            guard let restored = SABnzbdMapper(snapshot: json, settings: configuration.session) else {
                context.logger.warning("stored session unreadable; starting fresh", ["key": adapter.storeKey])
                return
            }
            mapper = restored
            active = true
            savedShape = Self.shape(of: json)
            savedAt = context.clock.now
            context.logger.info("resuming the session", ["jobs": String(restored.jobIDs.count)])
        } catch {
            context.logger.warning("stored session unreadable; starting fresh", ["error": error.description])
        }
    }

    /// Writes the session when its jobs moved, or every `saveInterval` while only progress did.
    private mutating func persist(at time: Double) {
        do {
            guard mapper.isOpen else {
                if savedShape != nil {
                    try context.store.remove(adapter.storeKey)
                    savedShape = nil
                }
                return
            }
            let snapshot = mapper.snapshot
            let shape = Self.shape(of: snapshot)
            guard shape != savedShape || time - savedAt >= Self.saveInterval else { return }
            try context.store.writeJSON(adapter.storeKey, snapshot)
            savedShape = shape
            savedAt = time
        } catch {
            context.health.noteError("cannot keep the session for a restart: \(error.description)")
            context.logger.warning("cannot keep the session for a restart", ["error": error.description])
        }
    }

    /// The jobs and where they are: a change is worth a write at once.
    static func shape(of snapshot: JSONValue) -> String {
        let jobs = snapshot["jobs"]?.arrayValue ?? []
        let places = jobs.map { ($0["id"]?.stringValue ?? "") + ":" + ($0["place"]?.stringValue ?? "") }
        return places.joined(separator: ",") + "|" + (snapshot["emitted"]?.boolValue == true ? "shown" : "hidden")
    }
}
