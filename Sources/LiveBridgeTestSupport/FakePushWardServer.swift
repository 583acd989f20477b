public import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A strict PushWard on a real loopback socket.
///
/// It stores activities and applies merge patches exactly as the service does, and it validates
/// every request against the contract (PushWard API reference): the bearer key, content types,
/// top-level keys, slug and TTL ranges, the merged content (template, progress 0…1, colours,
/// `live_progress` backed by an `end_date`), explicit `state` for preempted activities, and the
/// order of frames (each carries `X-LiveBridge-Sequence`, which must increase per activity; the
/// same frame again — a retry after a lost answer — is applied again, idempotent as the service's
/// merge is, and counted in `retriedFrames`). A
/// violation is answered as the service would (400/415/422) and recorded in `violations`; a test
/// that used the fake asserts the list is empty.
///
/// Faults can be injected: N× 503, 429 with `Retry-After`, a dropped connection, latency, an
/// exhausted quota, and refusing connections altogether (`goDown()` closes the socket).
///
/// The bench's latency, resource and soak sections use it too: `onAccepted` hears every applied
/// PATCH with the time it arrived, and `keepsRecords: false` keeps no per-request log for runs
/// of tens of thousands of requests.
public final class FakePushWardServer: LoopbackFake {
    /// One stored activity.
    public struct Activity: Sendable, Equatable {
        public var slug: String
        public var name: String
        public var state: String = "ended"
        public var content: JSONValue = .object([:])
        public var priority: Int = 0
        public var staleTTL: Int?
        public var endedTTL: Int?
        public var dismissalTTL: Int?
        public var creates = 0
        public var updates = 0
        public var lastSequence: Int?
        /// The body of the last applied PATCH (to tell a retried frame from a reordered one).
        public var lastBody: JSONValue?
        /// PATCHes that repeated the last applied frame exactly.
        public var retriedFrames = 0
        /// When the current Live Activity went ongoing (nil while ended).
        public var ongoingSince: Double?
        /// Every Live Activity this slug showed that has ended: (went ongoing, ended).
        public var lifecycles: [ClosedRange<Double>] = []
        /// When a PATCH was last applied (the service's `updated_at`, its preemption order).
        public var updatedAt: Double = 0
    }

    /// Ongoing activities per account (PushWard API reference §11): a sixth going ongoing
    /// preempts the lowest priority, then the oldest `updated_at`.
    public static let maxOngoing = 5

    /// iOS ends a Live Activity after this long ongoing (PushWard API reference §11): a request
    /// that finds one older is a violation (the phone would have dropped the card).
    public static let lifecycleLimit: Double = 8 * 3600

    /// One request as received.
    public struct Record: Sendable {
        public var time: Double
        public var method: String
        public var path: String
        public var body: JSONValue?
        public var status: Int
        public var sequence: Int?
    }

    /// A PATCH the fake applied, with the time its request reached the handler.
    public struct Accepted: Sendable {
        public var slug: String
        /// `content.state` of the patch, when it set one.
        public var state: String?
        /// The patch ended the activity (`state: ended`).
        public var ended: Bool
        public var arrived: ContinuousClock.Instant
    }

    /// A fault to inject into the next matching request.
    public enum Fault: Sendable, Equatable {
        case status(Int)
        case rateLimit(retryAfter: Int, inBody: Bool)
        case dropConnection
        case delay(Double)
        case notFound
    }

    private struct State {
        var activities: [String: Activity] = [:]
        var records: [Record] = []
        var violations: [String] = []
        var faults: [Fault] = []
        var quotaLimit: Int?
        var quotaUsed = 0
        var quotaResetAt: Double = 1_782_864_000
        var requireFutureEndDate = false
        var notifications: [JSONValue] = []
        var preemptions: [String] = []
        /// The slugs whose state is `ongoing`.
        var ongoing: Set<String> = []
        var peakOngoing = 0
        var notificationLimit: Int?
        var notificationsUsed = 0
    }

    /// The key requests must carry.
    public let apiKey: String
    private let clock: any TimeSource
    private let maxOngoing: Int?
    private let keepsRecords: Bool
    private let onAccepted: @Sendable (Accepted) -> Void
    private let state = Mutex(State())
    public let loopback = RestartableLoopbackServer()
    private let waiters = Mutex<[UInt64: CheckedContinuation<Void, Never>]>([:])
    private let nextWaiter = Mutex<UInt64>(0)

    /// Starts listening on 127.0.0.1 (port 0 = any free port). `maxOngoing` ongoing activities at
    /// most, as the service allows (nil: no preemption, for a bench that is not a phone).
    public init(
        apiKey: String = "hlk_testkey0123456789abcdefghijklmnop", clock: any TimeSource = SystemClock(),
        port: UInt16 = 0, maxOngoing: Int? = FakePushWardServer.maxOngoing, keepsRecords: Bool = true,
        onAccepted: @escaping @Sendable (Accepted) -> Void = { _ in }
    )
        throws
    {
        self.apiKey = apiKey
        self.clock = clock
        self.maxOngoing = maxOngoing
        self.keepsRecords = keepsRecords
        self.onAccepted = onAccepted
        try loopback.start(port: port) { [weak self] request in
            guard let self else { return .dropConnection }
            return await self.handle(request, arrived: ContinuousClock.now)
        }
    }

    // MARK: - Test controls and inspection

    /// Queues faults answered to the next requests, in order.
    public func inject(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Limits accepted PATCHes this month; beyond it, 429 `quota.exceeded` with `reset_at`.
    public func setQuota(limit: Int?, used: Int = 0, resetAt: Double = 1_782_864_000) {
        state.withLock {
            $0.quotaLimit = limit
            $0.quotaUsed = used
            $0.quotaResetAt = resetAt
        }
    }

    /// Limits accepted notifications this month; beyond it, 429 `quota.exceeded` (kind
    /// `notifications`) with `reset_at`, as the service answers.
    public func setNotificationQuota(limit: Int?, used: Int = 0, resetAt: Double? = nil) {
        state.withLock {
            $0.notificationLimit = limit
            $0.notificationsUsed = used
            if let resetAt { $0.quotaResetAt = resetAt }
        }
    }

    /// Slugs the fake preempted because a sixth activity went ongoing, in order.
    public var preemptions: [String] { state.withLock { $0.preemptions } }
    /// The most activities ongoing at once.
    public var peakOngoing: Int { state.withLock { $0.peakOngoing } }
    /// The slugs ongoing now.
    public var ongoing: Set<String> { state.withLock { $0.ongoing } }

    /// Every notification accepted (`POST /notifications` bodies), in order.
    public var notifications: [JSONValue] { state.withLock { $0.notifications } }

    /// Also reject `live_progress: true` with an `end_date` in the past (a public contract test's rule).
    public func requireFutureEndDate(_ flag: Bool) { state.withLock { $0.requireFutureEndDate = flag } }

    /// Marks an activity preempted (server-side eviction).
    public func preempt(_ slug: String) {
        let now = clock.now
        state.withLock { state in
            guard let activity = state.activities[slug], activity.state == "ongoing" else { return }
            state.activities[slug]?.state = "preempted"
            state.activities[slug]?.lifecycles.append((activity.ongoingSince ?? now)...now)
            state.activities[slug]?.ongoingSince = nil
            state.ongoing.remove(slug)
            state.preemptions.append(slug)
        }
    }

    /// Deletes an activity (as its TTL would), so the next PATCH gets a 404.
    public func forget(_ slug: String) {
        state.withLock {
            $0.activities.removeValue(forKey: slug)
            $0.ongoing.remove(slug)
        }
    }

    /// Every contract violation seen.
    public var violations: [String] { state.withLock { $0.violations } }
    /// Every request seen.
    public var records: [Record] { state.withLock { $0.records } }
    /// The stored activity.
    public func activity(_ slug: String) -> Activity? { state.withLock { $0.activities[slug] } }
    /// Every stored activity.
    public var activities: [String: Activity] { state.withLock { $0.activities } }
    /// Accepted PATCHes counted against the quota.
    public var quotaUsed: Int { state.withLock { $0.quotaUsed } }

    // MARK: - Handling

    private func problem(_ status: Int, _ code: String?, _ detail: String, extra: [String: JSONValue] = [:])
        -> HTTPServerResponse
    {
        var body: [String: JSONValue] = [
            "type": "about:blank", "title": .string(HTTPServerResponse.reasonPhrase(for: status)),
            "status": .int(Int64(status)), "detail": .string(detail),
        ]
        if let code { body["code"] = .string(code) }
        for (key, value) in extra { body[key] = value }
        var response = HTTPServerResponse.json(JSONWriter.bytes(.object(body)), status: status)
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        return response
    }

    private func violation(_ message: String) {
        state.withLock { $0.violations.append(message) }
    }

    private func record(_ request: HTTPServerRequest, body: JSONValue?, status: Int) {
        guard keepsRecords else { return }
        let sequence = request.headers.first(name: "X-LiveBridge-Sequence").flatMap { Int($0) }
        let now = clock.now
        state.withLock {
            $0.records.append(
                Record(
                    time: now, method: request.method, path: request.path, body: body, status: status,
                    sequence: sequence))
        }
    }

    func handle(_ request: HTTPServerRequest, arrived: ContinuousClock.Instant) async -> HTTPServerResponse {
        if let fault = state.withLock({ $0.faults.isEmpty ? nil : $0.faults.removeFirst() }) {
            switch fault {
            case .status(let status):
                record(request, body: nil, status: status)
                return problem(status, status == 503 ? "service.unavailable" : nil, "injected fault")
            case .rateLimit(let retryAfter, let inBody):
                record(request, body: nil, status: 429)
                var response = problem(
                    429, "rate_limit.exceeded", "too many requests",
                    extra: inBody ? ["retry_after_ms": .int(Int64(retryAfter * 1000))] : [:])
                response.headers.add(name: "Retry-After", value: String(retryAfter))
                return response
            case .dropConnection:
                record(request, body: nil, status: 0)
                return .dropConnection
            case .delay(let seconds):
                try? await clock.sleep(for: seconds)
            case .notFound:
                let slug = request.path.split(separator: "/").last.map(String.init) ?? ""
                forget(slug)
            }
        }
        let response = route(request, arrived: arrived)
        signalWaiters()
        return response
    }

    private func signalWaiters() {
        let current = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in current.values { waiter.resume() }
    }

    /// Waits until `condition` holds, re-checking after every request the fake answers; false
    /// when `timeout` (real seconds, a failure bound only) passes first.
    public func waitUntil(timeout: Double = 20, _ condition: @Sendable (FakePushWardServer) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !condition(self) {
            guard ContinuousClock.now < deadline else { return false }
            let id = nextWaiter.withLock { value -> UInt64 in
                value += 1
                return value
            }
            // Wake on the next request, or at the deadline at the latest.
            let timer = Task {
                try? await Task.sleep(until: deadline)
                self.resumeWaiter(id)
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if condition(self) || ContinuousClock.now >= deadline {
                    continuation.resume()
                } else {
                    waiters.withLock { $0[id] = continuation }
                }
            }
            timer.cancel()
        }
        return true
    }

    private func resumeWaiter(_ id: UInt64) {
        waiters.withLock { $0.removeValue(forKey: id) }?.resume()
    }

    private func route(_ request: HTTPServerRequest, arrived: ContinuousClock.Instant) -> HTTPServerResponse {
        if request.method == "GET" && request.path == "/health" { return .json(Array(#"{"status":"ok"}"#.utf8)) }
        guard request.headers.first(name: "Authorization") == "Bearer \(apiKey)" else {
            record(request, body: nil, status: 401)
            var response = problem(401, "token.invalid", "missing or invalid API key")
            response.headers.add(name: "WWW-Authenticate", value: "Bearer")
            return response
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, parts.count, parts.first) {
        case ("GET", 2, "auth") where parts[1] == "me":
            record(request, body: nil, status: 200)
            let (used, limit, reset, count) = state.withLock {
                ($0.quotaUsed, $0.quotaLimit, $0.quotaResetAt, $0.activities.count)
            }
            var body: [String: JSONValue] = [
                "id": "00000000-0000-0000-0000-000000000001", "nickname": "Test", "activity_count": .int(Int64(count)),
                "subscribed": false, "live_activity_updates_used": .int(Int64(used)),
                "quota_resets_at": .string(RFC3339.format(reset)),
            ]
            if let limit { body["live_activity_updates_limit"] = .int(Int64(limit)) }
            let (sent, cap) = state.withLock { ($0.notificationsUsed, $0.notificationLimit) }
            body["notifications_used"] = .int(Int64(sent))
            if let cap { body["notifications_limit"] = .int(Int64(cap)) }
            return .json(JSONWriter.bytes(.object(body)))
        case ("POST", 1, "activities"):
            return create(request)
        case ("POST", 1, "notifications"):
            return notify(request)
        case ("PATCH", 2, "activities"):
            return update(request, slug: parts[1], arrived: arrived)
        case ("GET", 1, "activities"):
            // `GET /activities?state=…` (one page: the fake never holds more than 100).
            record(request, body: nil, status: 200)
            let wanted = request.query["state"]
            let items = activities.values.filter { wanted == nil || $0.state == wanted }
                .sorted { $0.slug < $1.slug }.map(Self.json)
            return .json(JSONWriter.bytes(["items": .array(items), "next_cursor": .null]))
        case ("GET", 2, "activities"):
            record(request, body: nil, status: 200)
            guard let activity = activity(parts[1]) else {
                return problem(404, "activity.not_found", "no such activity")
            }
            return .json(JSONWriter.bytes(Self.json(activity)))
        case ("DELETE", 2, "activities"):
            record(request, body: nil, status: 204)
            forget(parts[1])
            return HTTPServerResponse(status: 204)
        default:
            record(request, body: nil, status: 404)
            violation("unknown route \(request.method) \(request.path)")
            return problem(404, nil, "no route")
        }
    }

    static func json(_ activity: Activity) -> JSONValue {
        [
            "slug": .string(activity.slug), "name": .string(activity.name), "state": .string(activity.state),
            "content": activity.content, "priority": .int(Int64(activity.priority)),
            "stale_ttl": activity.staleTTL.map { .int(Int64($0)) } ?? .null,
            "ended_ttl": activity.endedTTL.map { .int(Int64($0)) } ?? .null,
            "dismissal_ttl": activity.dismissalTTL.map { .int(Int64($0)) } ?? .null,
        ]
    }

    private enum Parsed {
        case body([String: JSONValue])
        case refused(HTTPServerResponse)
    }

    private func parseBody(_ request: HTTPServerRequest, allowed: [String]) -> Parsed {
        guard let json = try? JSONParser.parse(request.body), case .object(let members) = json else {
            violation("\(request.method) \(request.path): body is not a JSON object")
            return .refused(problem(400, "request.body_invalid", "body must be a JSON object"))
        }
        for key in members.keys where !allowed.contains(key) {
            violation("\(request.method) \(request.path): unknown top-level key \"\(key)\"")
            return .refused(problem(400, "request.body_invalid", "unknown key \(key)"))
        }
        return .body(members)
    }

    private func ttl(_ value: JSONValue?, name: String, range: ClosedRange<Int>, path: String) -> (Int??, String?) {
        guard let value else { return (.none, nil) }
        if value.isNull { return (.some(nil), nil) }
        guard let number = value.intValue, range.contains(number) else {
            return (.none, "\(path): \(name) \(value) outside \(range)")
        }
        return (.some(number), nil)
    }

    /// A POST's JSON object body, its content type and top-level keys checked (a refusal is
    /// recorded and answered as the service would).
    private func jsonBody(_ request: HTTPServerRequest, allowed: [String]) -> Parsed {
        let contentType = request.headers.first(name: "Content-Type") ?? ""
        guard contentType.hasPrefix("application/json") else {
            record(request, body: nil, status: 415)
            violation("\(request.method) \(request.path): Content-Type \"\(contentType)\" instead of application/json")
            return .refused(problem(415, nil, "unsupported media type"))
        }
        let parsed = parseBody(request, allowed: allowed)
        if case .refused = parsed { record(request, body: nil, status: 400) }
        return parsed
    }

    private func create(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let members: [String: JSONValue]
        switch jsonBody(request, allowed: ["slug", "name", "priority", "ended_ttl", "stale_ttl", "dismissal_ttl"]) {
        case .refused(let response): return response
        case .body(let body): members = body
        }
        guard let slug = members["slug"]?.stringValue, ContentRules.isValidSlug(slug) else {
            record(request, body: .object(members), status: 400)
            violation("POST /activities: invalid slug \(members["slug"] ?? .null)")
            return problem(400, "slug.invalid", "slug must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
        }
        guard let name = members["name"]?.stringValue, (1...256).contains(name.count) else {
            record(request, body: .object(members), status: 422)
            violation("POST /activities: name missing or not 1…256 characters")
            return problem(422, "activity.content_invalid", "name must be 1…256 characters")
        }
        var problems: [String] = []
        let stale = ttl(members["stale_ttl"], name: "stale_ttl", range: 1...2_592_000, path: "POST")
        let ended = ttl(members["ended_ttl"], name: "ended_ttl", range: 1...2_592_000, path: "POST")
        let dismissal = ttl(members["dismissal_ttl"], name: "dismissal_ttl", range: 0...14_400, path: "POST")
        problems += [stale.1, ended.1, dismissal.1].compactMap { $0 }
        if let priority = members["priority"], !(priority.intValue.map { (0...10).contains($0) } ?? false) {
            problems.append("priority \(priority) outside 0…10")
        }
        if !problems.isEmpty {
            record(request, body: .object(members), status: 422)
            violation("POST /activities: " + problems.joined(separator: "; "))
            return problem(422, "activity.content_invalid", problems.joined(separator: "; "))
        }
        let action = state.withLock { state -> String in
            var activity = state.activities[slug] ?? Activity(slug: slug, name: name)
            let existed = state.activities[slug] != nil
            activity.name = name
            if let priority = members["priority"]?.intValue { activity.priority = priority }
            if case .some(let value) = stale.0 { activity.staleTTL = value }
            if case .some(let value) = ended.0 { activity.endedTTL = value }
            if case .some(let value) = dismissal.0 { activity.dismissalTTL = value }
            activity.creates += 1
            activity.lastSequence = nil
            activity.lastBody = nil
            state.activities[slug] = activity
            return existed ? "updated" : "created"
        }
        record(request, body: .object(members), status: 201)
        var response = HTTPServerResponse.json(JSONWriter.bytes(Self.json(activity(slug)!)), status: 201)
        response.headers.add(name: "X-Resource-Action", value: action)
        return response
    }

    private func update(_ request: HTTPServerRequest, slug: String, arrived: ContinuousClock.Instant)
        -> HTTPServerResponse
    {
        let contentType = request.headers.first(name: "Content-Type") ?? ""
        guard contentType.hasPrefix("application/merge-patch+json") || contentType.hasPrefix("application/json") else {
            record(request, body: nil, status: 415)
            violation("PATCH \(request.path): Content-Type \"\(contentType)\"")
            return problem(415, nil, "unsupported media type")
        }
        let members: [String: JSONValue]
        switch parseBody(
            request, allowed: ["state", "content", "priority", "sound", "ended_ttl", "stale_ttl", "dismissal_ttl"])
        {
        case .refused(let response):
            record(request, body: nil, status: 400)
            return response
        case .body(let body): members = body
        }
        let body = JSONValue.object(members)
        let sequence = request.headers.first(name: "X-LiveBridge-Sequence").flatMap { Int($0) }
        guard var activity = activity(slug) else {
            record(request, body: body, status: 404)
            return problem(404, "activity.not_found", "activity \(slug) does not exist")
        }
        if let limit = state.withLock({ $0.quotaLimit }), quotaUsed >= limit {
            record(request, body: body, status: 429)
            let reset = state.withLock { $0.quotaResetAt }
            return problem(
                429, "quota.exceeded", "monthly Live Activity updates used up",
                extra: [
                    "kind": "live_activity_updates", "used": .int(Int64(quotaUsed)), "limit": .int(Int64(limit)),
                    "reset_at": .string(RFC3339.format(reset)),
                ])
        }
        var problems: [String] = []
        var newState = activity.state
        if let stateValue = members["state"] {
            guard let text = stateValue.stringValue?.lowercased(), ["ongoing", "ended"].contains(text) else {
                record(request, body: body, status: 400)
                violation("PATCH \(slug): invalid state \(stateValue)")
                return problem(400, "activity.state_invalid", "state must be ongoing or ended")
            }
            newState = text
        } else if activity.state == "preempted" {
            // The service's answer, not a client error: a client learns of a preemption this way.
            record(request, body: body, status: 422)
            return problem(
                422, "activity.content_invalid", "a preempted activity needs an explicit state",
                extra: ["errors": [["location": "body.state", "message": "required for a preempted activity"]]])
        }
        let now = clock.now
        if activity.state == "ongoing", let since = activity.ongoingSince, now - since >= Self.lifecycleLimit {
            violation(
                "PATCH \(slug): ongoing for \(Int(now - since)) s, past iOS's 8 h (the phone ended the card)")
        }
        var merged = activity.content
        if let content = members["content"] {
            guard case .object = content else {
                record(request, body: body, status: 400)
                violation("PATCH \(slug): content is not an object")
                return problem(400, "request.body_invalid", "content must be an object")
            }
            merged = MergePatch.apply(content, to: activity.content)
        }
        if members["content"] != nil || newState == "ongoing" {
            do {
                let decoded = try GenericContent(json: merged)
                try decoded.validate(asDocument: true)
                if state.withLock({ $0.requireFutureEndDate }), decoded.liveProgress.value == true,
                    let end = decoded.endDate.value, Double(end) <= clock.now
                {
                    problems.append("content.end_date: must be in the future with live_progress")
                }
            } catch let error as ContentValidationError {
                problems += error.problems
            } catch {
                problems.append("\(error)")
            }
        }
        let stale = ttl(members["stale_ttl"], name: "stale_ttl", range: 1...2_592_000, path: "PATCH")
        if let message = stale.1 { problems.append(message) }
        let retried = sequence != nil && sequence == activity.lastSequence && body == activity.lastBody
        if let previous = activity.lastSequence, let sequence, sequence <= previous, !retried {
            problems.append("frame \(sequence) arrived after frame \(previous) (out of order)")
        }
        if !problems.isEmpty {
            record(request, body: body, status: 422)
            violation("PATCH \(slug): " + problems.joined(separator: "; "))
            return problem(
                422, "activity.content_invalid", problems.joined(separator: "; "),
                extra: ["errors": .array(problems.map { ["location": "body", "message": .string($0)] })])
        }
        activity.content = merged
        if newState == "ongoing" && activity.state != "ongoing" { activity.ongoingSince = now }
        if newState != "ongoing" && activity.state == "ongoing" {
            activity.lifecycles.append((activity.ongoingSince ?? now)...now)
            activity.ongoingSince = nil
        }
        activity.state = newState
        activity.updates += 1
        if let sequence { activity.lastSequence = sequence }
        activity.lastBody = body
        if retried { activity.retriedFrames += 1 }
        if case .some(let value) = stale.0 { activity.staleTTL = value }
        if let priority = members["priority"]?.intValue { activity.priority = priority }
        activity.updatedAt = now
        let becameOngoing = newState == "ongoing" && self.activity(slug)?.state != "ongoing"
        state.withLock { state in
            state.activities[slug] = activity
            state.quotaUsed += 1
            if newState == "ongoing" { state.ongoing.insert(slug) } else { state.ongoing.remove(slug) }
            guard becameOngoing else { return }
            let others = state.ongoing.filter { $0 != slug }.compactMap { state.activities[$0] }
            if let maxOngoing, others.count >= maxOngoing,
                let victim = others.min(by: { ($0.priority, $0.updatedAt) < ($1.priority, $1.updatedAt) })
            {
                state.activities[victim.slug]?.state = "preempted"
                state.activities[victim.slug]?.lifecycles.append((victim.ongoingSince ?? now)...now)
                state.activities[victim.slug]?.ongoingSince = nil
                state.ongoing.remove(victim.slug)
                state.preemptions.append(victim.slug)
            }
            state.peakOngoing = max(state.peakOngoing, state.ongoing.count)
        }
        record(request, body: body, status: 200)
        onAccepted(
            Accepted(
                slug: slug, state: members["content"]?["state"]?.stringValue,
                ended: newState == "ended" && members["state"] != nil, arrived: arrived))
        return .json(JSONWriter.bytes(Self.json(activity)))
    }

    /// `POST /notifications` (PushWard API reference §15), validated field by field.
    private func notify(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let members: [String: JSONValue]
        switch jsonBody(
            request,
            allowed: [
                "title", "body", "subtitle", "level", "volume", "thread_id", "collapse_id", "source",
                "source_display_name", "url", "actions", "media", "icon_url", "metadata", "activity_slug", "push",
            ])
        {
        case .refused(let response): return response
        case .body(let body): members = body
        }
        let body = JSONValue.object(members)
        var problems: [String] = []
        for key in ["title", "body"] {
            if (members[key]?.stringValue ?? "").isEmpty { problems.append("\(key) is required (a non-empty string)") }
        }
        for key in ["subtitle", "thread_id", "collapse_id", "source", "source_display_name", "url", "activity_slug"] {
            if let value = members[key], value.stringValue == nil { problems.append("\(key) must be a string") }
        }
        let level = members["level"]?.stringValue ?? "active"
        if members["level"] != nil, !["passive", "active", "time-sensitive", "critical"].contains(level) {
            problems.append("level \(members["level"]!) is not passive, active, time-sensitive or critical")
        }
        if let volume = members["volume"] {
            if level != "critical" { problems.append("volume is only allowed with level critical") }
            if !(volume.doubleValue.map { (0...1).contains($0) } ?? false) { problems.append("volume outside 0…1") }
        }
        if let collapse = members["collapse_id"]?.stringValue, collapse.count > 64 {
            problems.append("collapse_id longer than 64 characters")
        }
        if let push = members["push"], push.boolValue == nil { problems.append("push must be true or false") }
        if !problems.isEmpty {
            record(request, body: body, status: 422)
            violation("POST /notifications: " + problems.joined(separator: "; "))
            return problem(422, "notification.invalid", problems.joined(separator: "; "))
        }
        // An unknown activity is refused before anything is stored (not a client bug: the
        // activity may have gone since).
        if let slug = members["activity_slug"]?.stringValue, activity(slug) == nil {
            record(request, body: body, status: 422)
            return problem(
                422, "notification.activity_not_found", "activity \(slug) does not exist",
                extra: ["errors": [["location": "body.activity_slug", "message": "unknown activity"]]])
        }
        let (limit, used, reset) = state.withLock { ($0.notificationLimit, $0.notificationsUsed, $0.quotaResetAt) }
        if let limit, used >= limit {
            record(request, body: body, status: 429)
            var response = problem(
                429, "quota.exceeded", "monthly notifications used up",
                extra: [
                    "kind": "notifications", "used": .int(Int64(used)), "limit": .int(Int64(limit)),
                    "reset_at": .string(RFC3339.format(reset)),
                ])
            response.headers.add(name: "Retry-After", value: String(max(1, Int(reset - clock.now))))
            return response
        }
        let stored = state.withLock { state -> JSONValue in
            state.notificationsUsed += 1
            state.notifications.append(body)
            var stored = members
            stored["id"] = .string("n-\(state.notifications.count)")
            stored["pushed"] = true
            stored["created_at"] = .string(RFC3339.format(clock.now))
            stored["delivery"] = "all"
            return .object(stored)
        }
        record(request, body: body, status: 201)
        return .json(JSONWriter.bytes(stored), status: 201)
    }
}
