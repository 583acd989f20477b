import FoundationEssentials
public import LiveBridgeCore
public import LiveBridgeNet
import Synchronization

/// LiveBridge's own HTTP endpoints: `GET /health`, `GET /metrics`, `POST /webhook/<source>` and
/// `POST /api/activities/<slug>` (the activities API for Home Assistant's `rest_command`).
public final class ControlRoutes: Sendable {
    /// A source's webhook inbox.
    struct Inbox: Sendable {
        var continuation: AsyncStream<WebhookEvent>.Continuation
        var secret: String?
    }

    private let health: HealthRegistry
    private let metrics: MetricsRegistry
    private let clock: any TimeSource
    private let logger: Logger
    private let apiToken: String?
    private let emit: @Sendable (ActivityUpdate) async -> Void
    private let inboxes = Mutex<[String: Inbox]>([:])

    /// The header carrying a webhook's shared secret.
    public static let secretHeader = "X-LiveBridge-Secret"

    public init(
        health: HealthRegistry, metrics: MetricsRegistry, clock: any TimeSource, logger: Logger, apiToken: String?,
        emit: @escaping @Sendable (ActivityUpdate) async -> Void
    ) {
        self.health = health
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.apiToken = apiToken
        self.emit = emit
    }

    /// Creates the webhook stream for source `name`.
    public func webhookStream(for name: String, secret: String?) -> AsyncStream<WebhookEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: WebhookEvent.self, bufferingPolicy: .bufferingNewest(8))
        inboxes.withLock { $0[name] = Inbox(continuation: continuation, secret: secret) }
        return stream
    }

    /// Ends every webhook stream.
    public func close() {
        inboxes.withLock { inboxes in
            for inbox in inboxes.values { inbox.continuation.finish() }
            inboxes.removeAll()
        }
    }

    /// Answers one request.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, parts.first) {
        case ("GET", "health"), ("HEAD", "health"):
            let json = health.json(now: clock.now)
            return .json(JSONWriter.bytes(json), status: health.isHealthy ? 200 : 503)
        case ("GET", "metrics"), ("HEAD", "metrics"):
            var response = HTTPServerResponse(status: 200, body: Array(metrics.render().utf8))
            response.headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            return response
        case (_, "webhook"):
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            guard parts.count == 2 else { return problem(404, "use POST /webhook/<source name>") }
            return webhook(request, source: parts[1])
        case (_, "api") where parts.count >= 2 && parts[1] == "activities":
            guard request.method == "POST" else { return methodNotAllowed("POST") }
            return await activity(request, slug: parts.count == 3 ? parts[2] : nil)
        default:
            return problem(404, "no such endpoint; try /health or /metrics")
        }
    }

    private func methodNotAllowed(_ allowed: String) -> HTTPServerResponse {
        var response = problem(405, "method not allowed; use \(allowed)")
        response.headers.add(name: "Allow", value: allowed)
        return response
    }

    private func problem(_ status: Int, _ message: String) -> HTTPServerResponse {
        .json(JSONWriter.bytes(["error": .string(message), "status": .int(Int64(status))]), status: status)
    }

    private func webhook(_ request: HTTPServerRequest, source: String) -> HTTPServerResponse {
        guard let inbox = inboxes.withLock({ $0[source] }) else {
            metrics.increment("livebridge_webhooks_total", ["source": source, "result": "unknown_source"])
            return problem(404, "no source named \"\(source)\" accepts webhooks")
        }
        if let secret = inbox.secret {
            let given = request.headers.first(name: Self.secretHeader) ?? ""
            guard ConstantTime.equal(given, secret) else {
                metrics.increment("livebridge_webhooks_total", ["source": source, "result": "unauthorized"])
                logger.warning("webhook with a missing or wrong secret refused", ["source": source])
                return problem(401, "missing or wrong \(Self.secretHeader) header")
            }
        }
        metrics.increment("livebridge_webhooks_total", ["source": source, "result": "accepted"])
        inbox.continuation.yield(
            WebhookEvent(
                body: request.body, contentType: request.headers.first(name: "Content-Type"), receivedAt: clock.now))
        return .json(Array(#"{"status":"accepted"}"#.utf8), status: 202)
    }

    private func activity(_ request: HTTPServerRequest, slug: String?) async -> HTTPServerResponse {
        guard let apiToken else {
            return problem(404, "the activities API is off; set server.apiToken in the config to enable it")
        }
        let authorization = request.headers.first(name: "Authorization") ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        guard ConstantTime.equal(token, apiToken) else {
            var response = problem(401, "missing or wrong bearer token")
            response.headers.add(name: "WWW-Authenticate", value: "Bearer")
            return response
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(request.body)
        } catch {
            return problem(400, "body is not JSON: \(error.description)")
        }
        do {
            let update = try ActivityCommand.update(from: json, slug: slug, now: clock.now)
            await emit(update)
            return .json(
                JSONWriter.bytes([
                    "status": "accepted", "slug": .string(update.slug), "phase": .string("\(update.phase)"),
                ]),
                status: 202)
        } catch {
            return .json(
                JSONWriter.bytes(["error": "invalid activity", "problems": .array(error.problems.map { .string($0) })]),
                status: 422)
        }
    }
}

/// Comparison that takes the same time whatever the inputs share, for secrets.
public enum ConstantTime {
    /// True when `a == b`; the time taken depends only on the lengths.
    public static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        let length = max(left.count, right.count)
        for index in 0..<length {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0 && !right.isEmpty
    }
}
