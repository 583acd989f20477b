public import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A Home Assistant WebSocket API on a real loopback socket, for tests: `auth_required` →
/// token check → `auth_ok`/`auth_invalid` (then a close, as HA does), and answers to
/// `supported_features`, `subscribe_entities` (result + snapshot of its states, compressed),
/// `subscribe_events`, `get_states`, `ping` and `unsubscribe_events`, with `unknown_command`
/// for anything else.
///
/// Each accepted client is a `Session` the test drives: send compressed entity events or custom
/// events on the client's own subscription ids, replay recorded transcripts (ids re-targeted),
/// stop answering pings, drop the TCP connection. Ids the client sends are checked to increase.
public final class FakeHomeAssistant: Sendable {
    private struct State {
        var states: [String: JSONValue] = [:]
        var supportsSubscribeEntities = true
        var connections = 0
    }

    /// The token clients must send.
    public let token: String
    private let server: WebSocketTestServer
    private let state = Mutex(State())
    private let sessions = WebSocketTestMailbox<Session>(label: "a Home Assistant client session")
    private let acceptor = Mutex<Task<Void, Never>?>(nil)

    /// Starts on 127.0.0.1 (free port) with `states` (compressed: entity id → `{"s", "a"}`).
    public init(token: String, states: [String: JSONValue] = [:], supportsSubscribeEntities: Bool = true) throws {
        self.token = token
        server = try WebSocketTestServer { request in
            request.target.hasPrefix("/api/websocket")
                ? .accept
                : .reject(status: 404, reason: "Not Found", contentType: "text/plain", body: "404: Not Found")
        }
        state.withLock {
            $0.states = states
            $0.supportsSubscribeEntities = supportsSubscribeEntities
        }
        let task = Task { [server, sessions, weak self] in
            while let connection = try? await server.nextConnection(timeout: .seconds(3600)) {
                guard let self else { return }
                self.state.withLock { $0.connections += 1 }
                let session = Session(connection: connection, home: self)
                Task { await session.serve() }
                sessions.put(session)
            }
        }
        acceptor.withLock { $0 = task }
    }

    /// `http://127.0.0.1:<port>` — what a config's `url` would say.
    public var url: String { "http://127.0.0.1:\(server.port)" }

    /// WebSocket connections accepted so far.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Replaces the states the next snapshot (and `get_states`) will hold.
    public func setStates(_ states: [String: JSONValue]) { state.withLock { $0.states = states } }

    /// Whether `subscribe_entities` exists (false: answered `unknown_command`, like HA before 2022.4).
    public func setSupportsSubscribeEntities(_ flag: Bool) { state.withLock { $0.supportsSubscribeEntities = flag } }

    /// The next client that connected (its authentication is under way or done).
    public func nextSession(timeout: Duration = .seconds(10)) async throws -> Session {
        try await sessions.next(timeout: timeout)
    }

    /// Stops listening and drops every client.
    public func stop() {
        acceptor.withLock { $0?.cancel() }
        server.stop()
    }

    fileprivate var snapshot: (states: [String: JSONValue], subscribeEntities: Bool) {
        state.withLock { ($0.states, $0.supportsSubscribeEntities) }
    }

    /// One connected client.
    public final class Session: Sendable {
        private struct State {
            var subscriptions: [String: Int] = [:]
            var received: [JSONValue] = []
            var answersPings = true
            var lastID = 0
            var idViolations: [String] = []
            var authenticated: Bool?
        }

        private let connection: WebSocketTestServer.Connection
        private let home: FakeHomeAssistant
        private let state = Mutex(State())
        private let subscribed = WebSocketTestMailbox<String>(label: "a subscription")
        private let authentication = WebSocketTestMailbox<Bool>(label: "the client's auth message")

        fileprivate init(connection: WebSocketTestServer.Connection, home: FakeHomeAssistant) {
            self.connection = connection
            self.home = home
        }

        /// Every message the client sent (the `auth` message included).
        public var received: [JSONValue] { state.withLock { $0.received } }
        /// Ids that did not increase.
        public var idViolations: [String] { state.withLock { $0.idViolations } }

        /// Waits for the client's `auth` and returns whether its token was accepted.
        public func authenticated(timeout: Duration = .seconds(10)) async throws -> Bool {
            if let known = state.withLock({ $0.authenticated }) { return known }
            return try await authentication.next(timeout: timeout)
        }

        /// Waits until the client subscribed to `key` (`"entities"` or an event type) and the
        /// result (and, for entities, the snapshot) went out; returns the subscription id.
        @discardableResult
        public func waitForSubscription(_ key: String, timeout: Duration = .seconds(10)) async throws -> Int {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let id = state.withLock({ $0.subscriptions[key] }) { return id }
                _ = try await subscribed.next(timeout: max(.zero, ContinuousClock.now.duration(to: deadline)))
            }
        }

        /// Whether application-level `ping`s are answered (default true).
        public func setAnswersPings(_ flag: Bool) { state.withLock { $0.answersPings = flag } }

        /// Sends a `subscribe_entities` event body (`{"a": …}`, `{"c": …}`, `{"r": …}`).
        public func sendEntities(_ event: JSONValue) {
            let id = state.withLock { $0.subscriptions["entities"] } ?? 0
            send(["id": .int(Int64(id)), "type": "event", "event": event])
        }

        /// Fires an event of `type` with `data` on the client's subscription to it.
        public func fire(_ type: String, data: JSONValue) {
            let id = state.withLock { $0.subscriptions[type] } ?? 0
            send([
                "id": .int(Int64(id)), "type": "event",
                "event": [
                    "event_type": .string(type), "data": data, "origin": "REMOTE",
                    "time_fired": "2026-11-30T00:43:05.370298+00:00",
                ],
            ])
        }

        /// Replays recorded `in` messages (objects or coalesced arrays), giving every event the
        /// id of this client's matching subscription; other message types are skipped.
        public func replay(_ messages: [JSONValue]) {
            for message in messages {
                let elements = message.arrayValue ?? [message]
                let events = elements.compactMap(retarget)
                guard !events.isEmpty else { continue }
                if message.arrayValue != nil {
                    sendText(JSONWriter.string(.array(events)))
                } else {
                    send(events[0])
                }
            }
        }

        private func retarget(_ message: JSONValue) -> JSONValue? {
            guard message["type"] == "event", let event = message["event"] else { return nil }
            let key = event["event_type"]?.stringValue ?? "entities"
            guard let id = state.withLock({ $0.subscriptions[key] }) else { return nil }
            var copy = message
            copy["id"] = .int(Int64(id))
            return copy
        }

        /// Sends one message.
        public func send(_ message: JSONValue) { sendText(JSONWriter.string(message)) }

        /// Sends a text frame as it is.
        public func sendText(_ text: String) { connection.send(text: text) }

        /// Drops the TCP connection without a close frame (a crashed or restarted Home Assistant).
        public func drop() { connection.drop() }

        /// Returns once the connection is closed.
        public func waitUntilClosed(timeout: Duration = .seconds(10)) async throws {
            try await connection.waitUntilClosed(timeout: timeout)
        }

        // MARK: - Serving

        fileprivate func serve() async {
            connection.send(text: #"{"type": "auth_required", "ha_version": "2024.3.3"}"#)
            guard let auth = try? await next(), auth["type"] == "auth" else {
                authentication.put(false)
                connection.drop()
                return
            }
            let accepted = auth["access_token"]?.stringValue == home.token
            state.withLock { $0.authenticated = accepted }
            guard accepted else {
                connection.send(text: #"{"type": "auth_invalid", "message": "Invalid access token or password"}"#)
                connection.sendClose(code: .normalClosure)
                authentication.put(false)
                return
            }
            connection.send(text: #"{"type": "auth_ok", "ha_version": "2024.3.3"}"#)
            authentication.put(true)
            while let message = try? await next() {
                answer(message)
            }
            subscribed.finish(WebSocketTestServerError("the client disconnected"))
        }

        private func next() async throws -> JSONValue {
            let text = try await connection.nextText(timeout: .seconds(3600))
            let json = (try? JSONParser.parse(text)) ?? .string(text)
            state.withLock { $0.received.append(json) }
            return json
        }

        private func result(_ id: Int, _ value: JSONValue = .null) {
            send(["id": .int(Int64(id)), "type": "result", "success": true, "result": value])
        }

        private func answer(_ message: JSONValue) {
            guard let id = message["id"]?.intValue else {
                send([
                    "id": nil, "type": "result", "success": false,
                    "error": ["code": "invalid_format", "message": "Message incorrectly formatted."],
                ])
                return
            }
            let fresh = state.withLock { state -> Bool in
                guard id > state.lastID else {
                    state.idViolations.append("id \(id) after \(state.lastID)")
                    return false
                }
                state.lastID = id
                return true
            }
            guard fresh else {
                send([
                    "id": .int(Int64(id)), "type": "result", "success": false,
                    "error": ["code": "id_reuse", "message": "Identifier values have to increase."],
                ])
                return
            }
            let (states, subscribeEntities) = home.snapshot
            switch message["type"]?.stringValue {
            case "supported_features", "unsubscribe_events":
                result(id)
            case "subscribe_entities" where subscribeEntities:
                let wanted = Set((message["entity_ids"]?.arrayValue ?? []).compactMap(\.stringValue))
                result(id)
                let snapshot = states.filter { wanted.isEmpty || wanted.contains($0.key) }
                send(["id": .int(Int64(id)), "type": "event", "event": ["a": .object(snapshot)]])
                subscribe("entities", id)
            case "subscribe_events":
                result(id)
                subscribe(message["event_type"]?.stringValue ?? "*", id)
            case "get_states":
                let full: [JSONValue] = states.keys.sorted().map { entityID in
                    let compressed = states[entityID] ?? .object([:])
                    return [
                        "entity_id": .string(entityID), "state": compressed["s"] ?? "unknown",
                        "attributes": compressed["a"] ?? .object([:]),
                        "last_changed": "2026-11-30T00:42:30.817674+00:00",
                        "last_updated": "2026-11-30T00:42:30.817674+00:00",
                    ]
                }
                result(id, .array(full))
            case "ping":
                if state.withLock({ $0.answersPings }) { send(["id": .int(Int64(id)), "type": "pong"]) }
            default:
                send([
                    "id": .int(Int64(id)), "type": "result", "success": false,
                    "error": ["code": "unknown_command", "message": "Unknown command."],
                ])
            }
        }

        private func subscribe(_ key: String, _ id: Int) {
            state.withLock { $0.subscriptions[key] = id }
            subscribed.put(key)
        }
    }
}
