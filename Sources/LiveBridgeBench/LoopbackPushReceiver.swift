import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A strict stand-in for PushWard on a loopback socket, inside the executable (the test-support
/// fake is not linked into it): it answers as the service does, checks what it is sent — bearer
/// key, routes, content types, top-level keys, `state`, generic-content rules after the merge,
/// frame order — and stamps each request's arrival on the monotonic clock.
final class LoopbackPushReceiver: Sendable {
    /// One accepted PATCH.
    struct Arrival: Sendable {
        var slug: String
        /// `content.state` of the patch, when it set one.
        var state: String?
        var at: ContinuousClock.Instant
    }

    let apiKey: String
    private let server: HTTPServer
    private let handler: ReceiverHandler

    /// Listens on 127.0.0.1 (a free port); `onArrival` hears every accepted PATCH.
    init(apiKey: String, onArrival: @escaping @Sendable (Arrival) -> Void = { _ in }) throws(HTTPServerError) {
        self.apiKey = apiKey
        let handler = ReceiverHandler(apiKey: apiKey, onArrival: onArrival)
        self.handler = handler
        server = try HTTPServer(address: "127.0.0.1:0") { request in
            handler.handle(request, arrived: ContinuousClock.now)
        }
    }

    /// A receiver for a bench section, its failure to start said as that section's error.
    static func start(apiKey: String, section: String) throws(BenchError) -> LoopbackPushReceiver {
        do {
            return try LoopbackPushReceiver(apiKey: apiKey)
        } catch {
            throw BenchError("\(section): cannot start the loopback receiver: \(error)")
        }
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(server.port)" }
    /// Every contract violation seen (must stay empty).
    var violations: [String] { handler.state.withLock { $0.violations } }
    /// Accepted creates and patches.
    var counts: (creates: Int, patches: Int) { handler.state.withLock { ($0.creates, $0.patches) } }
    /// Activities whose state is `ended`.
    var endedCount: Int { handler.state.withLock { $0.activities.values.filter { $0.state == "ended" }.count } }

    func shutdown() { server.shutdown() }
}

/// The receiver's request handling and bookkeeping, shared with the server's handler closure.
private final class ReceiverHandler: Sendable {
    let apiKey: String
    let state = Mutex(ReceiverState())
    let onArrival: @Sendable (LoopbackPushReceiver.Arrival) -> Void

    init(apiKey: String, onArrival: @escaping @Sendable (LoopbackPushReceiver.Arrival) -> Void) {
        self.apiKey = apiKey
        self.onArrival = onArrival
    }

    private func violation(_ message: String, status: Int) -> HTTPServerResponse {
        state.withLock { if $0.violations.count < 100 { $0.violations.append(message) } }
        return .json(JSONWriter.bytes(["code": "bench.violation", "detail": .string(message)]), status: status)
    }

    func handle(_ request: HTTPServerRequest, arrived: ContinuousClock.Instant) -> HTTPServerResponse {
        guard request.headers.first(name: "Authorization") == "Bearer \(apiKey)" else {
            return violation("\(request.method) \(request.path): missing or wrong bearer key", status: 401)
        }
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts.count, parts.first) {
        case ("POST", 1, "activities"): return create(request)
        case ("PATCH", 2, "activities"): return update(request, slug: parts[1], arrived: arrived)
        // The preempted ones (asked when a place frees): this stand-in never preempts.
        case ("GET", 1, "activities"): return .json(JSONWriter.bytes(["items": [], "next_cursor": .null]))
        default: return violation("unknown route \(request.method) \(request.path)", status: 404)
        }
    }

    private func body(_ request: HTTPServerRequest, allowed: Set<String>) -> [String: JSONValue]? {
        guard let json = try? JSONParser.parse(request.body), let members = json.objectValue else { return nil }
        guard members.keys.allSatisfy(allowed.contains) else { return nil }
        return members
    }

    private func create(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard request.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true else {
            return violation("POST /activities: Content-Type is not application/json", status: 415)
        }
        guard
            let members = body(
                request, allowed: ["slug", "name", "priority", "ended_ttl", "stale_ttl", "dismissal_ttl"]),
            let slug = members["slug"]?.stringValue, ContentRules.isValidSlug(slug),
            let name = members["name"]?.stringValue, (1...256).contains(name.count)
        else {
            return violation("POST /activities: body is not {slug, name, …} with a valid slug and name", status: 400)
        }
        state.withLock { state in
            state.creates += 1
            var activity = state.activities[slug] ?? ReceiverActivity()
            activity.lastSequence = nil
            state.activities[slug] = activity
        }
        return .json(JSONWriter.bytes(["slug": .string(slug), "name": .string(name)]), status: 201)
    }

    private func update(_ request: HTTPServerRequest, slug: String, arrived: ContinuousClock.Instant)
        -> HTTPServerResponse
    {
        let contentType = request.headers.first(name: "Content-Type") ?? ""
        guard contentType.hasPrefix("application/merge-patch+json") || contentType.hasPrefix("application/json") else {
            return violation("PATCH \(slug): Content-Type \(contentType)", status: 415)
        }
        guard
            let members = body(
                request, allowed: ["state", "content", "priority", "sound", "ended_ttl", "stale_ttl", "dismissal_ttl"])
        else {
            return violation("PATCH \(slug): body is not an object of known keys", status: 400)
        }
        let sequence = request.headers.first(name: "X-LiveBridge-Sequence").flatMap { Int($0) }
        let problem = state.withLock { state -> String? in
            guard var activity = state.activities[slug] else { return "PATCH \(slug): no such activity" }
            if let text = members["state"] {
                guard let value = text.stringValue, value == "ongoing" || value == "ended" else {
                    return "PATCH \(slug): state \(text) is not ongoing or ended"
                }
                activity.state = value
            }
            if let content = members["content"] {
                guard content.objectValue != nil else { return "PATCH \(slug): content is not an object" }
                let merged = MergePatch.apply(content, to: activity.content)
                do {
                    try GenericContent(json: merged).validate(asDocument: true)
                } catch {
                    return "PATCH \(slug): \(error)"
                }
                activity.content = merged
            }
            if let sequence, let last = activity.lastSequence, sequence <= last {
                return "PATCH \(slug): frame \(sequence) after frame \(last)"
            }
            activity.lastSequence = sequence ?? activity.lastSequence
            state.activities[slug] = activity
            state.patches += 1
            return nil
        }
        if let problem { return violation(problem, status: problem.hasSuffix("no such activity") ? 404 : 422) }
        onArrival(
            LoopbackPushReceiver.Arrival(slug: slug, state: members["content"]?["state"]?.stringValue, at: arrived))
        return .json(JSONWriter.bytes(["slug": .string(slug), "state": "ongoing"]))
    }
}

private struct ReceiverActivity {
    var content: JSONValue = .object([:])
    var state = "ongoing"
    var lastSequence: Int?
}

private struct ReceiverState {
    var activities: [String: ReceiverActivity] = [:]
    var violations: [String] = []
    var creates = 0
    var patches = 0
}
