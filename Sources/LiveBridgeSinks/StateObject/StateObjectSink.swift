public import LiveBridgeCore
public import LiveBridgeNet

/// The state-object Live Activity service: `x-api-key`, a merged `state` object, the `progress`
/// (or `countdown`) layout, and server-generated activity ids.
///
/// Its display model is static: the bar stands where it was pushed and the "N min" label does
/// not tick, so the tracker's economy for it is the static one. The sink keeps its own copy of
/// each activity's merged state and sends only the fields that changed; the copy and the
/// activity id live in the data directory, so a restart keeps updating the same activity.
/// Error answers are classified for delivery; a few are repaired here: `No activity matched`
/// starts the activity again (once per streak), a refused button styling is dropped for good,
/// and a spent free tier stops every call until the next month.
public actor StateObjectSink: Sink {
    typealias ActivityRecord = StateObjectStore.ActivityRecord

    /// The answer to one call, once errors that the caller cannot repair have been thrown.
    enum Answer {
        /// The answer's body, with `state` replaced by the state actually sent.
        case accepted(JSONValue)
        case notMatched
    }

    public nonisolated let configuration: Configuration
    private let transport: any HTTPTransport
    let clock: any TimeSource
    let logger: Logger
    private var persisted: StateObjectStore
    private var quota: StateObjectQuota
    private var buttonStyling: Bool
    var loggedRefusals: Set<String> = []

    public nonisolated var name: String { configuration.name }
    public nonisolated var type: String { "state-object" }
    public nonisolated var displayModel: DisplayModel { .static }
    /// The free tier's limit is remembered in the data directory and said in this sink's health.
    public nonisolated var keepsOwnQuota: Bool { true }

    /// Builds the sink; `store` keeps the activity ids and state copies (the data directory),
    /// `health` is this sink's `/health` entry, where a spent free tier is shown.
    public init(
        configuration: Configuration, transport: any HTTPTransport, store: any StateStore,
        clock: any TimeSource = SystemClock(), logger: Logger = .disabled, health: HealthReporter? = nil
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.logger = logger
        Redactor.shared.register(configuration.apiKey)
        persisted = StateObjectStore(store: store, name: configuration.name, logger: logger, health: health)
        let account = persisted.account()
        buttonStyling = configuration.render.buttonStyling && account.buttonStyling != false
        quota = StateObjectQuota(
            name: configuration.name, remembered: account.quotaUntil, now: clock.now, logger: logger, health: health)
    }

    /// True while the free tier's monthly quota is spent (no call is made until it resets).
    public var isQuotaExhausted: Bool { quota.isExhausted(at: clock.now) }

    /// The service's id for `slug`, when the sink has started it.
    public func activityID(_ slug: String) -> String? { record(slug)?.id }

    /// The sink's copy of the service's merged state for `slug`.
    public func storedState(_ slug: String) -> JSONValue? { record(slug)?.state }

    /// False once the service refused button styling (a free plan); remembered across restarts.
    public var sendsButtonStyling: Bool { buttonStyling }

    // MARK: - Delivery

    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        try checkQuota()
        var calls = 0
        let existing = record(frame.slug)
        var outcome = frame.outcome ?? existing?.outcome
        if outcome == nil, frame.kind == .end, (frame.content["progress"]?.doubleValue ?? 0) >= 1 {
            outcome = .success
        }
        let desired = StateObjectMapping.state(
            for: frame, at: clock.now, outcome: outcome, options: renderOptions)

        guard var current = existing else {
            // Never started here (or already ended): nothing to end, anything else starts it.
            if frame.kind == .end { return DeliveryReceipt(requests: 0, appliedAt: clock.now) }
            var started = try await start(frame, desired: desired, calls: &calls)
            if frame.kind == .final { started.outcome = frame.outcome }
            save(frame.slug, started)
            return DeliveryReceipt(requests: calls, appliedAt: clock.now)
        }

        if !buttonStyling {
            // The plan refused styling (perhaps while this slug's call was in flight): never clear it.
            current.state["actionColorHex"] = nil
        }
        if frame.kind == .end {
            let changes = StateObjectMerge.changes(from: current.state, to: desired)
            let request = StateObjectRequests.end(configuration.paths, id: current.id, changes: changes)
            // Not matched: it already ended or expired on the service, which is what we wanted.
            _ = try await perform(request, frame: frame, calls: &calls)
            save(frame.slug, nil)
            return DeliveryReceipt(requests: calls, appliedAt: clock.now)
        }

        let changes = StateObjectMerge.changes(from: current.state, to: desired)
        if !(changes.objectValue ?? [:]).isEmpty {
            let request = StateObjectRequests.update(configuration.paths, id: current.id, changes: changes)
            switch try await perform(request, frame: frame, calls: &calls) {
            case .accepted(let body):
                current.state = StateObjectMerge.apply(body["state"] ?? .object([:]), to: current.state)
                current.restartedAfterNotMatched = false
            case .notMatched:
                guard !current.restartedAfterNotMatched else {
                    save(frame.slug, nil)
                    throw refusal(
                        SinkError(
                            .rejected, code: "No activity matched", status: 404,
                            message: "\(frame.slug): the activity started again was not matched either; "
                                + "a new one is started with the next change"))
                }
                logger.info("activity no longer matched; starting it again", ["slug": frame.slug, "id": current.id])
                current = try await start(frame, desired: desired, calls: &calls)
                current.restartedAfterNotMatched = true
            }
        }
        if frame.kind == .final { current.outcome = frame.outcome }
        save(frame.slug, current)
        try await rebrandIfNeeded(frame, record: &current, calls: &calls)
        return DeliveryReceipt(requests: calls, appliedAt: clock.now)
    }

    /// Checks that the service answers and takes the key, with a branding call for no activity
    /// (which changes nothing: the service answers `No activity matched` to a valid key).
    public func probe() async -> ProbeResult {
        if let until = quota.until, until > clock.now {
            return ProbeResult(ok: false, detail: "free tier limit reached; no calls until \(RFC3339.format(until))")
        }
        let request = StateObjectRequests.branding(
            configuration.paths, id: "livebridge-probe", brand: ["title": "LiveBridge probe"])
        do {
            let response = try await transport.execute(httpRequest(request, sequence: nil))
            let problem = StateObjectProblem(status: response.status, body: response.body)
            if response.isSuccess || problem.isNoActivityMatched {
                return ProbeResult(ok: true, detail: "key accepted by \(configuration.baseURL)")
            }
            return ProbeResult(ok: false, detail: classify(response, problem: problem, slug: nil).description)
        } catch {
            return ProbeResult(ok: false, detail: "cannot reach \(configuration.baseURL): \(error.message)")
        }
    }

    /// Drops the id and the state copy of an activity the engine forgot. The end call removes
    /// them already; this covers an end the service refused for good, whose record would
    /// otherwise stay in the data directory for ever.
    public func forget(_ slug: String) async {
        guard record(slug) != nil else { return }
        save(slug, nil)
    }

    // MARK: - Steps

    private var renderOptions: StateObjectRenderOptions {
        var options = configuration.render
        options.buttonStyling = options.buttonStyling && buttonStyling
        return options
    }

    private func start(_ frame: ActivityFrame, desired: JSONValue, calls: inout Int) async throws(SinkError)
        -> ActivityRecord
    {
        let brand = configuration.brand.json(activityName: frame.name)
        let request = StateObjectRequests.start(configuration.paths, state: desired, brand: brand)
        guard case .accepted(let body) = try await perform(request, frame: frame, calls: &calls),
            let id = body["activityId"]?.stringValue ?? body["id"]?.stringValue, !id.isEmpty
        else {
            throw refusal(
                SinkError(
                    .rejected, code: "activityId.missing",
                    message: "\(configuration.paths.start) answered without an activityId; check paths.start"))
        }
        let sentState = body["state"] ?? desired
        return ActivityRecord(
            id: id, state: StateObjectMerge.apply(sentState, to: .object([:])),
            brand: brand == .object([:]) ? nil : brand)
    }

    private func rebrandIfNeeded(_ frame: ActivityFrame, record: inout ActivityRecord, calls: inout Int)
        async throws(SinkError)
    {
        let brand = configuration.brand.json(activityName: frame.name)
        guard brand != .object([:]), record.brand != brand else { return }
        let request = StateObjectRequests.branding(configuration.paths, id: record.id, brand: brand)
        do {
            _ = try await perform(request, frame: frame, calls: &calls)
        } catch let error where error.kind == .rejected {
            // Logged once by `perform`; not worth a call on every later frame.
        }
        record.brand = brand
        save(frame.slug, record)
    }

    /// Sends one call; a refused button styling is resent once without it. Returns the answer
    /// with the body actually sent folded into `.accepted` (as `state` for the caller's copy).
    private func perform(_ request: StateObjectRequest, frame: ActivityFrame, calls: inout Int)
        async throws(SinkError) -> Answer
    {
        var request = request
        var stylingRetried = false
        while true {
            calls += 1
            let response: HTTPResponse
            do {
                response = try await transport.execute(httpRequest(request, sequence: frame.sequence))
            } catch {
                throw SinkError.transport(error, service: "state-object", baseURL: configuration.baseURL)
            }
            if response.isSuccess {
                let json = try? JSONParser.parse(response.body)
                if let notMatched = json?["notMatched"]?.arrayValue, let id = request.targetID,
                    notMatched.contains(.string(id))
                {
                    return .notMatched
                }
                var answer = json ?? .object([:])
                if case .object = answer {} else { answer = .object([:]) }
                answer["state"] = request.state
                return .accepted(answer)
            }
            let problem = StateObjectProblem(status: response.status, body: response.body)
            if problem.isNoActivityMatched { return .notMatched }
            if response.status == 402, problem.has("BUTTON_STYLING_REQUIRES_PAID_PLAN"), !stylingRetried {
                stylingRetried = true
                disableButtonStyling()
                request = request.withoutButtonStyling()
                continue
            }
            throw refusal(classify(response, problem: problem, slug: frame.slug))
        }
    }

    // MARK: - Errors

    private func checkQuota() throws(SinkError) {
        if try quota.check(at: clock.now) { saveAccount() }
    }

    /// Records what a refusal means for the sink (a spent quota) and logs a refused call once.
    private func refusal(_ error: SinkError) -> SinkError {
        switch error.kind {
        case .quotaExhausted(let until):
            quota.reached(until: until, now: clock.now)
            saveAccount()
        case .rejected:
            logRefusal(error)
        default:
            break
        }
        return error
    }

    // MARK: - Persistence

    private func disableButtonStyling() {
        guard buttonStyling else { return }
        buttonStyling = false
        logger.warning("the plan does not allow button styling; sending buttons unstyled from now on", ["sink": name])
        saveAccount()
        for (slug, var record) in persisted.records where record.state["actionColorHex"] != nil {
            record.state["actionColorHex"] = nil
            save(slug, record)
        }
    }

    private func record(_ slug: String) -> ActivityRecord? { persisted.record(slug) }

    private func save(_ slug: String, _ record: ActivityRecord?) { persisted.save(slug, record) }

    private func saveAccount() { persisted.saveAccount(buttonStyling: buttonStyling, quotaUntil: quota.until) }

    // MARK: - HTTP

    func httpRequest(_ request: StateObjectRequest, sequence: Int?) -> HTTPRequest {
        var headers: HTTPHeaders = [
            configuration.apiKeyHeader: configuration.apiKey, "Content-Type": "application/json",
            "Accept": "application/json", "User-Agent": "LiveBridge/\(LiveBridgeVersion.current)",
        ]
        if let sequence { headers.add(name: "X-LiveBridge-Sequence", value: String(sequence)) }
        return HTTPRequest(
            method: request.method, url: configuration.baseURL + request.path, headers: headers,
            body: JSONWriter.bytes(request.body), connectTimeout: min(10, configuration.timeout),
            timeout: configuration.timeout, maxResponseBytes: 256 * 1024, tls: configuration.tls)
    }
}

extension StateObjectRequest {
    /// The one activity the call names (in `activityIds`), when it names exactly one.
    var targetID: String? {
        guard let ids = body["activityIds"]?.arrayValue, ids.count == 1 else { return nil }
        return ids[0].stringValue
    }

    /// The call without button styling (`actionColorHex`, and a `button` object should one appear).
    func withoutButtonStyling() -> StateObjectRequest {
        var copy = self
        if var state = copy.body["state"] {
            state["actionColorHex"] = nil
            state["button"] = nil
            copy.body["state"] = state
        }
        copy.body["button"] = nil
        return copy
    }
}
