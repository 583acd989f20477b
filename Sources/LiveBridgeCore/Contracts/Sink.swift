/// What the phone does between pushes, which decides how few pushes a sink needs.
public enum DisplayModel: String, Sendable, Hashable, Codable {
    /// With `live_progress` the bar glides from the pushed progress to 1.0 at `end_date`
    /// (PushWard); if `end_date` passes without a push the bar falls back to the pushed progress.
    case interpolating
    /// The bar stays where it was pushed (the state-object service, MQTT, console).
    case `static`
}

/// The result of delivering one frame.
public struct DeliveryReceipt: Sendable, Hashable {
    /// Requests the sink made for this frame (a 404 recreate makes three).
    public var requests: Int
    /// When the service accepted the frame (Unix seconds).
    public var appliedAt: Double

    public init(requests: Int = 1, appliedAt: Double) {
        self.requests = requests
        self.appliedAt = appliedAt
    }
}

/// Why a sink could not deliver, classified for the delivery policy.
public struct SinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What delivery should do about it.
    public enum Kind: Sendable, Hashable {
        /// Network error or 5xx: back off and retry; counts toward the circuit breaker.
        case unavailable
        /// 429 rate limit: retry after the given seconds; the service is up.
        case rateLimited(retryAfter: Double)
        /// Monthly quota used up: stop sending until the given Unix time (nil = unknown).
        case quotaExhausted(until: Double?)
        /// Credentials missing or wrong: stop this sink until the configuration is fixed.
        case authentication
        /// The service refused this frame (400/403/409/422): drop it and resynchronise later.
        case rejected
    }

    public var kind: Kind
    /// Stable service code when there is one (`quota.exceeded`, `INVALID_API_KEY`).
    public var code: String?
    /// HTTP status when the service answered.
    public var status: Int?
    /// User-facing message, already free of secrets.
    public var message: String

    public init(_ kind: Kind, code: String? = nil, status: Int? = nil, message: String) {
        self.kind = kind
        self.code = code
        self.status = status
        self.message = message
    }

    /// The code of a refusal because the service took the activity off the display for another
    /// (PushWard preempts the lowest when a sixth goes ongoing): the engine lets the job wait.
    public static let preempted = "activity.preempted"

    public var description: String {
        var text = message
        if let status { text = "HTTP \(status)" + (code.map { " \($0)" } ?? "") + ": " + text }
        return text
    }
}

/// A push service (or a local output) that frames are delivered to.
///
/// One instance per configured sink. Each declares its display model so that its own tracker's
/// economy is right for it; delivery (ordering, coalescing, retries) is shared code around it.
public protocol Sink: Sendable {
    /// The configured name (`phone`).
    var name: String { get }
    /// The configured type (`pushward`).
    var type: String { get }
    var displayModel: DisplayModel { get }
    /// The age (seconds ongoing) at which the phone ends an activity by itself (iOS: 8 h for a
    /// Live Activity); the tracker renews the activity before it. Nil: never (the default).
    var lifecycleLimit: Double? { get }
    /// True when the service ends an activity that gets no update for its `stale_ttl` (PushWard):
    /// the tracker then sends a heartbeat before it. False (the default): a heartbeat would only
    /// spend a request, and a quota where the service keeps one.
    var expiresStale: Bool { get }
    /// How many of its activities the display shows at once (iOS: 5 Live Activities per app);
    /// the engine never asks for more, the others wait. Nil: no limit (the default).
    var maxOngoing: Int? { get }
    /// True when the sink keeps its service's quota itself (remembered across restarts, said in
    /// its own `/health` entry): delivery still holds while it is spent, and leaves the saying
    /// to the sink, so one part writes the entry's `quota`. False (the default): delivery says it.
    var keepsOwnQuota: Bool { get }
    /// True when the sink can tell, without spending any, whether its service's quota takes
    /// updates again (`quotaAvailable`). False (the default): a spent quota holds until its reset.
    var reportsQuota: Bool { get }
    /// Whether the service takes updates again after refusing one for a spent quota (an upgrade
    /// lifts it before its reset); nil when it cannot say now. Asked while delivery holds, at most
    /// once per `RetryPolicy.quotaRecheck`, only when `reportsQuota`.
    func quotaAvailable() async -> Bool?
    /// The slugs the service took off the display for other activities (preempted), nil when it
    /// cannot say; asked when a place frees.
    func preemptedSlugs() async -> [String]?
    /// Sends one frame; throws a classified error.
    func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt
    /// Checks reachability and credentials for `livebridge check` (one line of detail).
    func probe() async -> ProbeResult
    /// Called once when the engine starts, before any frame: a sink that announces itself (the
    /// MQTT sink's availability and its clean-up of old devices) connects here, not at its first frame.
    func open() async
    /// Releases connections when the engine shuts down, after the last frame was delivered.
    func close() async
    /// Drops what the sink still remembers about `slug`: its activity ended, was forgotten by the
    /// engine, and its tombstone expired.
    func forget(_ slug: String) async
}

extension Sink {
    public var lifecycleLimit: Double? { nil }
    public var expiresStale: Bool { false }
    public var maxOngoing: Int? { nil }
    public var keepsOwnQuota: Bool { false }
    public var reportsQuota: Bool { false }
    public func quotaAvailable() async -> Bool? { nil }
    public func preemptedSlugs() async -> [String]? { nil }
    public func probe() async -> ProbeResult { ProbeResult(ok: true, detail: "no probe for this sink type") }
    public func open() async {}
    public func close() async {}
    public func forget(_ slug: String) async {}
}

/// The outcome of `livebridge check` for one source or sink.
public struct ProbeResult: Sendable, Hashable {
    public var ok: Bool
    public var detail: String

    public init(ok: Bool, detail: String) {
        self.ok = ok
        self.detail = detail
    }
}
