public import LiveBridgeCore
public import LiveBridgeKit
public import LiveBridgeNet

/// The PushWard push service: generic template, RFC 7396 merge patches, `Authorization: Bearer`.
///
/// Its display model is interpolating: with `live_progress` the phone glides the bar toward
/// `end_date`, which is what lets the tracker push so rarely. Errors are classified for delivery
/// by their stable problem `code`; a 404 on an activity we believe exists is repaired here, by
/// creating it again and re-seeding the whole content, once per frame — except for the frame that
/// ends it: an activity that is already gone needs no ending, and recreating it would spend two
/// requests (and a Live Activity update) to show something only to take it away.
public struct PushWardSink: Sink {
    /// Settings from the sink's config entry.
    public struct Configuration: Sendable {
        public var name: String
        /// Base URL, default `https://api.pushward.app`.
        public var baseURL: String
        public var apiKey: String
        public var tls: TLSOptions
        public var timeout: Double
        /// Config path of the key, for messages (`sinks[0].apiKey`).
        public var keyPath: String
        /// `notify`: which job ends send a notification (nil: none).
        public var notify: NotificationRule?
        /// Every configured source by name: its type and its own `notify`.
        public var sources: [String: NotificationSource]
        /// `maxOngoing`: activities shown at once (iOS shows 5 per app; PushWard preempts beyond).
        public var maxOngoing: Int

        public init(
            name: String, baseURL: String = "https://api.pushward.app", apiKey: String, tls: TLSOptions = TLSOptions(),
            timeout: Double = 15, keyPath: String = "apiKey", notify: NotificationRule? = nil,
            sources: [String: NotificationSource] = [:], maxOngoing: Int = 5
        ) {
            self.maxOngoing = maxOngoing
            self.notify = notify
            self.sources = sources
            self.name = name
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.apiKey = apiKey
            self.tls = tls
            self.timeout = timeout
            self.keyPath = keyPath
        }
    }

    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let clock: any TimeSource
    private let notifier: PushWardNotifier

    public var name: String { configuration.name }
    public var type: String { "pushward" }
    public var displayModel: DisplayModel { .interpolating }
    /// iOS ends a Live Activity after 8 hours ongoing (PushWard API reference §11).
    public var lifecycleLimit: Double? { 8 * 3600 }
    public var expiresStale: Bool { true }
    public var maxOngoing: Int? { configuration.maxOngoing }

    public init(
        configuration: Configuration, transport: any HTTPTransport, clock: any TimeSource = SystemClock(),
        metrics: MetricsRegistry? = nil, logger: Logger = .disabled
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        notifier = PushWardNotifier(sinkName: configuration.name, metrics: metrics, logger: logger)
        Redactor.shared.register(configuration.apiKey)
    }

    /// Whether any job end can notify through this sink (its own `notify` or a source's).
    var notifies: Bool {
        !(configuration.notify?.on.isEmpty ?? true)
            || configuration.sources.values.contains { !($0.rule?.on.isEmpty ?? true) }
    }

    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        let receipt = try await deliverActivity(frame)
        if frame.outcome != nil { await notify(frame) }
        return receipt
    }

    /// The job behind `frame` ended: one notification when its rule asks for the outcome.
    private func notify(_ frame: ActivityFrame) async {
        let rule = PushWardRequests.rule(for: frame, sink: configuration.notify, sources: configuration.sources)
        let type = frame.source.flatMap { configuration.sources[$0]?.type }
        await notifier.send(
            frame, build: { PushWardRequests.notification(frame, rule: rule, sourceType: type, linked: $0) },
            clock: clock, execute: { (request) async throws(SinkError) in try await send(request, frame: nil) })
    }

    private func deliverActivity(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        var requests = 0
        if frame.kind == .seed {
            requests += 1
            try await send(PushWardRequests.create(frame), frame: frame)
        }
        do {
            requests += 1
            try await send(PushWardRequests.update(frame), frame: frame)
        } catch let error where error.status == 422 && (frame.kind == .update || frame.kind == .final) {
            // A plain update refused: the activity may have been preempted (another client's went
            // ongoing as a sixth); the service says so when asked.
            requests += 1
            if await state(of: frame.slug) == "preempted" {
                throw SinkError(
                    .rejected, code: SinkError.preempted, status: 422,
                    message: "\(frame.slug) was preempted by the service (a sixth activity went ongoing)")
            }
            throw error
        } catch let error where error.code == "activity.not_found" {
            if frame.kind == .end { return DeliveryReceipt(requests: requests, appliedAt: clock.now) }
            // Deleted, expired or dismissed on the service: create it again with everything.
            requests += 2
            try await send(PushWardRequests.create(frame), frame: frame)
            try await send(PushWardRequests.update(frame, fullContent: true), frame: frame)
        }
        return DeliveryReceipt(requests: requests, appliedAt: clock.now)
    }

    /// `GET /activities?state=preempted`: the account's preempted activities (the first page,
    /// 100, is more than five places can have lost).
    public func preemptedSlugs() async -> [String]? {
        guard let json = await getJSON("/activities?state=preempted&limit=100") else { return nil }
        // Older answers are a bare array, current ones `{items, next_cursor}`.
        let items = json.arrayValue ?? json["items"]?.arrayValue ?? []
        return items.compactMap { $0["slug"]?.stringValue }
    }

    /// The service's `state` of `slug` (`ongoing`, `ended`, `preempted`), nil when unknown.
    private func state(of slug: String) async -> String? {
        await getJSON("/activities/" + PushWardRequests.escapeSlug(slug))?["state"]?.stringValue
    }

    /// A GET whose successful JSON answer is all that matters (nil for anything else).
    private func getJSON(_ path: String) async -> JSONValue? {
        let request = httpRequest(PushWardRequest(method: "GET", path: path), sequence: nil)
        guard let response = try? await transport.execute(request), response.isSuccess else { return nil }
        return try? JSONParser.parse(response.body)
    }

    /// `GET /auth/me` tells the month's quota without spending any.
    public var reportsQuota: Bool { true }

    /// True when `GET /auth/me` shows Live Activity updates left this month (or no limit: a plan
    /// upgraded since the quota was spent); nil when it does not answer.
    public func quotaAvailable() async -> Bool? {
        await getJSON("/auth/me").flatMap(Self.updatesLeft)
    }

    /// Whether `GET /auth/me`'s answer leaves Live Activity updates this month: true when no limit
    /// is stated (uncapped), nil when it states no use.
    static func updatesLeft(_ me: JSONValue) -> Bool? {
        guard let used = me["live_activity_updates_used"]?.intValue else { return nil }
        guard let limit = me["live_activity_updates_limit"]?.intValue else { return true }
        return used < limit
    }

    /// `GET /auth/me`: reachability, key validity and the month's quota.
    public func probe() async -> ProbeResult {
        let request = httpRequest(PushWardRequest(method: "GET", path: "/auth/me"), sequence: nil)
        do {
            let response = try await transport.execute(request)
            guard response.isSuccess else {
                let error = classify(response, frame: nil)
                return ProbeResult(ok: false, detail: error.description)
            }
            guard let json = try? JSONParser.parse(response.body) else {
                return ProbeResult(
                    ok: false, detail: "GET /auth/me answered \(response.status) with a body that is not JSON")
            }
            let used = json["live_activity_updates_used"]?.intValue
            let limit = json["live_activity_updates_limit"]?.intValue
            var detail = "key accepted"
            if let nickname = json["nickname"]?.stringValue { detail += " (\(nickname))" }
            if let used {
                detail += "; Live Activity updates this month: \(used)" + (limit.map { " of \($0)" } ?? " (unlimited)")
            }
            if let reset = json["quota_resets_at"]?.stringValue { detail += ", resets \(reset)" }
            if notifies, let sent = json["notifications_used"]?.intValue {
                let cap = json["notifications_limit"]?.intValue
                detail += "; notifications this month: \(sent)" + (cap.map { " of \($0)" } ?? " (unlimited)")
                if let until = notifier.blocked(at: clock.now) {
                    detail += ", paused until \(RFC3339.format(until))"
                } else if let cap, sent >= cap {
                    detail += " — used up, job ends will not notify until the month resets"
                }
            }
            let exhausted = Self.updatesLeft(json) == false
            return ProbeResult(ok: !exhausted, detail: exhausted ? detail + " — quota exhausted" : detail)
        } catch {
            return ProbeResult(ok: false, detail: "cannot reach \(configuration.baseURL): \(error.message)")
        }
    }

    // MARK: - Requests

    func httpRequest(_ request: PushWardRequest, sequence: Int?) -> HTTPRequest {
        var headers: HTTPHeaders = [
            "Authorization": "Bearer \(configuration.apiKey)", "Accept": "application/json, application/problem+json",
            "User-Agent": "LiveBridge/\(LiveBridgeVersion.current)",
        ]
        if let contentType = request.contentType { headers.add(name: "Content-Type", value: contentType) }
        if let sequence { headers.add(name: "X-LiveBridge-Sequence", value: String(sequence)) }
        return HTTPRequest(
            method: request.method, url: configuration.baseURL + request.path, headers: headers,
            body: request.body.map(JSONWriter.bytes), connectTimeout: min(10, configuration.timeout),
            timeout: configuration.timeout, maxResponseBytes: 256 * 1024, tls: configuration.tls)
    }

    private func send(_ request: PushWardRequest, frame: ActivityFrame?) async throws(SinkError) {
        let response: HTTPResponse
        do {
            response = try await transport.execute(httpRequest(request, sequence: frame?.sequence))
        } catch {
            throw SinkError.transport(error, service: "PushWard", baseURL: configuration.baseURL)
        }
        guard !response.isSuccess else { return }
        throw classify(response, frame: frame)
    }

    /// Maps an error answer by its problem `code` (PushWard API reference §9).
    func classify(_ response: HTTPResponse, frame: ActivityFrame?) -> SinkError {
        let problem = PushWardProblem(
            status: response.status, body: response.body, contentType: response.headers.first(name: "Content-Type"))
        let slug = frame.map { " for \($0.slug)" } ?? ""
        let summary = problem.summary
        switch response.status {
        case 401:
            return SinkError(
                .authentication, code: problem.code ?? "token.invalid", status: 401,
                message: "PushWard refused the API key — check \(configuration.keyPath) (\(summary))")
        case 403:
            var hint = summary
            if problem.code == nil || problem.code == "activity.upsert_forbidden" {
                hint += "; creating activities needs a key with the activity:manage scope"
            } else if problem.code == "subscription.required" {
                hint += "; this PushWard account needs a subscription for Live Activities"
            }
            return SinkError(.rejected, code: problem.code, status: 403, message: "not allowed\(slug): \(hint)")
        case 404:
            return SinkError(
                .rejected, code: problem.code ?? "activity.not_found", status: 404,
                message: "not found\(slug): \(summary)")
        case 409:
            return SinkError(
                .rejected, code: problem.code, status: 409,
                message: "activity limit reached\(slug) (\(summary)); ended activities are removed after ended_ttl")
        case 429:
            if problem.code == "quota.exceeded" {
                let reset = problem.resetAt.map { " until \(RFC3339.format($0))" } ?? ""
                return SinkError(
                    .quotaExhausted(until: problem.resetAt), code: problem.code, status: 429,
                    message: "monthly Live Activity quota used up\(reset)")
            }
            return .httpStatus(
                response, code: problem.code, summary: summary, subject: slug, retryAfter: problem.retryAfter)
        default:
            return .httpStatus(response, code: problem.code, summary: summary, subject: slug)
        }
    }
}
