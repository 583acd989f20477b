import Synchronization

/// The condition of one source or sink, as `/health` and `livebridge check` show it.
public enum HealthStatus: String, Sendable, Hashable, Codable {
    case starting, ok, degraded, error
}

/// One component's entry in `/health`.
public struct ComponentHealth: Sendable, Hashable {
    public var kind: String
    public var name: String
    public var type: String
    public var status: HealthStatus = .starting
    /// The most recent problem, free of secrets.
    public var lastError: String?
    public var lastErrorAt: Double?
    /// When the component last saw something from its peer.
    public var lastEventAt: Double?
    /// Extra facts (`connection: connected`, `quota: exhausted until …`).
    public var details: [String: String] = [:]
}

/// Every component's health, shared by the HTTP server and the components reporting into it.
public final class HealthRegistry: Sendable {
    private let entries = Mutex<[String: ComponentHealth]>([:])
    private let redactor: Redactor

    public init(redactor: Redactor = .shared) {
        self.redactor = redactor
    }

    /// A reporter for one component; registering it makes it appear in `/health`.
    public func reporter(kind: String, name: String, type: String, clock: any TimeSource) -> HealthReporter {
        let key = kind + "/" + name
        entries.withLock { entries in
            if entries[key] == nil { entries[key] = ComponentHealth(kind: kind, name: name, type: type) }
        }
        return HealthReporter(registry: self, key: key, clock: clock)
    }

    /// A snapshot of every component, sorted by kind then name.
    public var snapshot: [ComponentHealth] {
        entries.withLock { Array($0.values) }.sorted { ($0.kind, $0.name) < ($1.kind, $1.name) }
    }

    /// True when no component is in `error`.
    public var isHealthy: Bool { !snapshot.contains { $0.status == .error } }

    func update(_ key: String, _ change: (inout ComponentHealth) -> Void) {
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            change(&entry)
            entries[key] = entry
        }
    }

    func redact(_ text: String) -> String { redactor.redact(text) }

    /// `/health` as JSON.
    public func json(now: Double) -> JSONValue {
        let components = snapshot.map { entry -> JSONValue in
            var object: [String: JSONValue] = [
                "kind": .string(entry.kind), "name": .string(entry.name), "type": .string(entry.type),
                "status": .string(entry.status.rawValue),
            ]
            if let error = entry.lastError { object["last_error"] = .string(error) }
            if let at = entry.lastErrorAt { object["last_error_age_s"] = .number((now - at).rounded()) }
            if let at = entry.lastEventAt { object["last_event_age_s"] = .number(max(0, now - at).rounded()) }
            if !entry.details.isEmpty { object["details"] = .object(entry.details.mapValues { .string($0) }) }
            return .object(object)
        }
        return .object([
            "status": .string(isHealthy ? "ok" : "error"),
            "components": .array(components),
        ])
    }
}

/// The handle a component uses to report into `/health`.
public struct HealthReporter: Sendable {
    let registry: HealthRegistry
    let key: String
    let clock: any TimeSource

    /// A reporter not attached to any registry (tests, one-shot commands).
    public static func detached(clock: any TimeSource = SystemClock()) -> HealthReporter {
        HealthRegistry().reporter(kind: "component", name: "detached", type: "none", clock: clock)
    }

    /// Sets the status; `message` (redacted) becomes the last error for `degraded`/`error`.
    public func set(_ status: HealthStatus, _ message: String? = nil) {
        let now = clock.now
        let text = message.map(registry.redact)
        registry.update(key) { entry in
            entry.status = status
            if let text, status == .degraded || status == .error {
                entry.lastError = text
                entry.lastErrorAt = now
            }
        }
    }

    /// Records that the peer was heard from; a degraded or starting component becomes ok.
    public func noteEvent() {
        let now = clock.now
        registry.update(key) { entry in
            entry.lastEventAt = now
            if entry.status == .starting || entry.status == .degraded { entry.status = .ok }
        }
    }

    /// Records a problem without changing the status (a parse error the component survived).
    public func noteError(_ message: String) {
        let now = clock.now
        let text = registry.redact(message)
        registry.update(key) { entry in
            entry.lastError = text
            entry.lastErrorAt = now
        }
    }

    /// Sets or clears one detail.
    public func setDetail(_ key: String, _ value: String?) {
        let text = value.map(registry.redact)
        registry.update(self.key) { entry in entry.details[key] = text }
    }

    /// The component's current entry.
    public var current: ComponentHealth? {
        registry.snapshot.first { $0.kind + "/" + $0.name == key }
    }
}
