public import LiveBridgeCore
import LiveBridgeKit
public import LiveBridgeNet

/// One configured Home Assistant source (`type: "homeassistant"`).
public struct HomeAssistantConfiguration: Sendable {
    /// How LiveBridge hears about changes.
    public enum Mode: String, Sendable, CaseIterable {
        /// `subscribe_entities` over the WebSocket API (push, default).
        case websocket
        /// `GET /api/states/<id>` every `pollInterval` (for setups where WebSocket is blocked).
        case poll
    }

    /// The configured name (`home`).
    public var name: String
    /// Home Assistant's base URL, `http(s)://host:8123` (no trailing slash).
    public var url: String
    /// Long-lived access token. Secret: never logged.
    public var token: String
    /// WebSocket (default) or REST polling.
    public var mode: Mode
    /// Seconds between polls in `poll` mode.
    public var pollInterval: Double
    /// TLS for `https`/`wss`: an SPKI pin (`sha256//…`) for a self-signed certificate, or a CA file.
    public var tls: TLSOptions
    /// The custom event type automations fire (`livebridge`).
    public var eventType: String
    /// One activity per entry.
    public var entities: [HomeAssistantEntityMapping]
    /// Seconds to wait after Home Assistant refused the token before trying again (failed logins
    /// count toward its IP ban, so never quickly).
    public var authenticationRetryDelay: Double = 600
    /// Reconnect delays: doubling from `initialDelay` to `maximumDelay`.
    public var reconnect = MQTTReconnectPolicy(initialDelay: 1, maximumDelay: 60, stableConnectionDuration: 60)
    /// Seconds between application-level `ping`s; a missing `pong` by the next one drops the link.
    public var keepaliveInterval: Double = 30
    /// Seconds allowed from connecting to `auth_ok` and the subscriptions' results.
    public var setupTimeout: Double = 20
    /// Where the entry sits in the config file (`sources[2]`), for messages.
    public var configPath: String = "sources[]"

    /// A configuration from its parts.
    public init(
        name: String, url: String, token: String, mode: Mode = .websocket, pollInterval: Double = 10,
        tls: TLSOptions = TLSOptions(), eventType: String = "livebridge", entities: [HomeAssistantEntityMapping]
    ) {
        self.name = name
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.token = token
        self.mode = mode
        self.pollInterval = pollInterval
        self.tls = tls
        self.eventType = eventType
        self.entities = entities
    }

    /// `ws(s)://host:8123/api/websocket`.
    public var webSocketURL: String {
        if url.hasPrefix("https://") { return "wss://" + url.dropFirst(8) + "/api/websocket" }
        if url.hasPrefix("http://") { return "ws://" + url.dropFirst(7) + "/api/websocket" }
        return url + "/api/websocket"
    }

    /// The REST URL of `path` (`/api/states/timer.washer`).
    public func restURL(_ path: String) -> String { url + path }
}

extension HomeAssistantConfiguration {
    /// Reads a source entry: `url`, `token`, `mode`, `pollInterval`, `fingerprint`, `caFile`,
    /// `eventType`, `entities`. Records every problem with its path and calls `finish()`; nil
    /// when the entry cannot work.
    public static func read(_ reader: ConfigReader, name: String) -> HomeAssistantConfiguration? {
        let url = reader.requiredString(
            "url", hint: "Home Assistant's address, e.g. \"http://homeassistant.local:8123\"")
        if !url.isEmpty && !url.hasPrefix("http://") && !url.hasPrefix("https://") {
            reader.problem("url", "\"\(url)\" is not an http(s) URL; use e.g. \"http://homeassistant.local:8123\"")
        }
        if url.contains("/api/") {
            reader.problem(
                "url", "give Home Assistant's base address without /api/… (e.g. \"http://homeassistant.local:8123\")")
        }
        let token = reader.secret(
            "token", required: true,
            hint: "a long-lived access token from your Home Assistant profile page, e.g. \"${HA_TOKEN}\"")
        let mode =
            Mode(rawValue: reader.choice("mode", Mode.allCases.map(\.rawValue), default: "websocket")) ?? .websocket
        let pollInterval = reader.duration("pollInterval", default: 10, range: 1...3600)
        let tls = TLSOptions.read(reader)
        let eventType = reader.string("eventType", default: "livebridge")
        if eventType.isEmpty || eventType.contains(where: { $0 == " " || $0 == "/" }) {
            reader.problem("eventType", "\"\(eventType)\" is not an event type; use e.g. \"livebridge\"")
        }
        var mappings: [HomeAssistantEntityMapping] = []
        var slugs: [String: String] = [:]
        let entries = reader.objects("entities")
        for entry in entries {
            guard let mapping = readMapping(entry) else { continue }
            if let first = slugs[mapping.slug] {
                entry.problem("slug", "\"\(mapping.slug)\" is already used by \(first); slugs must be unique")
            }
            slugs[mapping.slug] = entry.path
            mappings.append(mapping)
        }
        reader.finish()
        guard let token, !url.isEmpty, url.hasPrefix("http") else { return nil }
        var configuration = HomeAssistantConfiguration(
            name: name, url: url, token: token, mode: mode, pollInterval: pollInterval, tls: tls, eventType: eventType,
            entities: mappings)
        configuration.configPath = reader.path
        return configuration
    }

    static let durationUnits = ["d", "h", "min", "s", "ms", "timestamp"]

    static func readMapping(_ reader: ConfigReader) -> HomeAssistantEntityMapping? {
        let entity = reader.requiredString("entity", hint: "an entity id such as \"timer.washer\"")
        let domain = HomeAssistantEntityMapping.domain(of: entity)
        if !entity.isEmpty && (!entity.contains(".") || entity.hasPrefix(".") || entity.hasSuffix(".")) {
            reader.problem("entity", "\"\(entity)\" is not an entity id like \"timer.washer\"")
        }
        var mapping = HomeAssistantEntityMapping(entity: entity)
        if let slug = reader.string("slug") {
            if ContentRules.isValidSlug(slug) {
                mapping.slug = slug
            } else {
                reader.problem("slug", "\"\(slug)\" must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
            }
        }
        mapping.name = reader.string("name")
        if let name = mapping.name, name.isEmpty || name.count > 256 {
            reader.problem("name", "must be 1 to 256 characters")
        }
        let defaults = HomeAssistantEntityMapping.defaultStates(forDomain: domain)
        if let states = reader.strings("startStates") { mapping.startStates = Set(states) }
        if let states = reader.strings("endStates") { mapping.endStates = Set(states) }
        if let states = reader.strings("pausedStates") { mapping.pausedStates = Set(states) }
        if let states = reader.strings("failureStates") { mapping.failureStates = Set(states) }
        if !entity.isEmpty && mapping.startStates.isEmpty {
            reader.problem(
                defaults == nil ? nil : "startStates",
                defaults == nil
                    ? "\(domain) entities have no default start states; set startStates and endStates "
                        + "(e.g. startStates: [\"washing\", \"rinsing\", \"spinning\"], endStates: [\"finished\", \"idle\"])"
                    : "must not be empty")
        }
        for state in HomeAssistantEntityState.unavailableStates
        where mapping.startStates.contains(state) || mapping.endStates.contains(state)
            || mapping.failureStates.contains(state)
        {
            reader.problem(nil, "\"\(state)\" never starts or ends an activity; remove it from the state lists")
        }
        let overlap = mapping.startStates.intersection(mapping.endStates.union(mapping.failureStates))
        if !overlap.isEmpty {
            reader.problem("endStates", "\(overlap.sorted()) cannot both start and end the activity")
        }
        if let source = readSource(reader, key: "progress", extra: "scale") {
            mapping.progress = source.source
            switch source.reader?.raw("scale") {
            case nil, .some(.null): break
            case .some(.string("auto")): mapping.progressScale = .automatic
            case .some(.string("percent")): mapping.progressScale = .percent
            case .some(.string("fraction")): mapping.progressScale = .fraction
            case .some(let value):
                if let maximum = value.doubleValue, maximum > 0 {
                    mapping.progressScale = .maximum(maximum)
                } else {
                    reader.problem(
                        "progress.scale", "expected \"auto\", \"percent\", \"fraction\" or the maximum (e.g. 255)")
                }
            }
            source.reader?.finish()
        }
        if let source = readSource(reader, key: "remaining", extra: "unit") {
            mapping.remaining = source.source
            if let unit = source.reader?.string("unit") {
                if durationUnits.contains(unit) {
                    mapping.remainingUnit = unit
                } else {
                    reader.problem(
                        "remaining.unit", "\"\(unit)\" is not one of \(durationUnits.joined(separator: ", "))")
                }
            }
            source.reader?.finish()
        }
        if let labels = reader.object("stateLabels") {
            for state in labels.members.keys.sorted() {
                if let text = labels.string(state), !text.isEmpty, text.count <= ContentRules.maximumTextLength {
                    mapping.stateLabels[state] = text
                } else {
                    labels.problem(state, "expected a non-empty text of at most 256 characters")
                }
            }
        }
        mapping.icon = reader.string("icon")
        if let icon = mapping.icon, icon.isEmpty || icon.count > ContentRules.maximumIconLength {
            reader.problem("icon", "expected an mdi: icon or an SF Symbol name of at most 128 characters")
        }
        for (key, apply) in [
            ("color", { (m: inout HomeAssistantEntityMapping, c: String) in m.accentColor = c }),
            ("backgroundColor", { (m: inout HomeAssistantEntityMapping, c: String) in m.backgroundColor = c }),
            ("textColor", { (m: inout HomeAssistantEntityMapping, c: String) in m.textColor = c }),
        ] {
            guard let color = reader.string(key) else { continue }
            if ContentRules.isValidColor(color) {
                apply(&mapping, color)
            } else {
                reader.problem(
                    key, "\"\(color)\" is not a colour; use a lower-case name (red, green, blue, …) or #RRGGBB")
            }
        }
        if let url = reader.string("url") {
            let lower = url.lowercased()
            if lower.hasPrefix("https://") || lower.hasPrefix("http://") || lower.hasPrefix("homeassistant://") {
                mapping.tapURL = url
            } else {
                reader.problem("url", "\"\(url)\" is not an http(s) or homeassistant:// URL")
            }
        }
        mapping.completionMessage = reader.string("completionMessage")
        mapping.priority = reader.int("priority", default: nil, range: 0...10)
        reader.finish()
        return entity.isEmpty ? nil : mapping
    }

    /// `"sensor.x"` (that entity's state) or `{entity, attribute, <extra>}`.
    static func readSource(_ reader: ConfigReader, key: String, extra: String)
        -> (source: HomeAssistantValueSource, reader: ConfigReader?)?
    {
        switch reader.raw(key) {
        case nil, .some(.null):
            return nil
        case .some(.string(let entity)):
            if !entity.contains(".") {
                reader.problem(key, "\"\(entity)\" is not an entity id; use \"sensor.x\" or {entity, attribute}")
            }
            return (HomeAssistantValueSource(entity: entity), nil)
        case .some(.object):
            guard let nested = reader.object(key) else { return nil }
            let source = HomeAssistantValueSource(
                entity: nested.string("entity"), attribute: nested.string("attribute"))
            if source.entity == nil && source.attribute == nil {
                nested.problem(nil, "give an entity, an attribute, or both")
            }
            return (source, nested)
        case .some:
            reader.problem(key, "expected an entity id or {entity, attribute, \(extra)}")
            return nil
        }
    }
}
