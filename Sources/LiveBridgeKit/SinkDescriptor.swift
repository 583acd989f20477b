public import LiveBridgeCore
public import LiveBridgeNet

/// One `type` a sink entry may have: its name, a line for the usage text, and the factory that
/// reads the entry's keys (calling `finish()`) and builds the sink, nil after recording problems.
/// Each sink declares its own (`PushWardSink.descriptor`); the registry lists them once
/// (`StandardComponents.sinks`), and the config reader and the usage text read that list. Public,
/// so a program outside the repository registers its own sink the same way.
public struct SinkDescriptor: Sendable {
    public var type: String
    public var summary: String
    public var make: @Sendable (ComponentConfig, SinkServices) -> (any Sink)?

    public init(
        type: String, summary: String, make: @escaping @Sendable (ComponentConfig, SinkServices) -> (any Sink)?
    ) {
        self.type = type
        self.summary = summary
        self.make = make
    }
}

/// What a sink's factory may use: what a source's may (`SourceServices`, its members read
/// through this one: `services.clock`), and every configured source by name for the sinks that
/// notify.
@dynamicMemberLookup
public struct SinkServices: Sendable {
    public var source: SourceServices
    /// Every configured source by name (its type and its own `notify`), for sinks that notify.
    public var sources: [String: NotificationSource]

    public init(_ source: SourceServices, sources: [String: NotificationSource] = [:]) {
        self.source = source
        self.sources = sources
    }

    public init(
        dataDir: String, store: any StateStore, clock: any TimeSource, logger: Logger, metrics: MetricsRegistry,
        health: HealthRegistry, http: any HTTPTransport, economy: EconomySettings
    ) {
        self.init(
            SourceServices(
                dataDir: dataDir, store: store, clock: clock, logger: logger, metrics: metrics, health: health,
                http: http, economy: economy))
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<SourceServices, Value>) -> Value {
        get { source[keyPath: path] }
        set { source[keyPath: path] = newValue }
    }
}

/// `notify` on a PushWard sink, or on a source entry (which then replaces the sink's for that
/// source): which job ends deserve a notification, and how loudly.
public struct NotificationRule: Sendable, Hashable {
    /// The iOS interruption level (PushWard API reference §15).
    public enum Level: String, Sendable, Hashable, CaseIterable {
        case passive, active
        case timeSensitive = "time-sensitive"
        case critical
    }

    /// The outcomes that notify (`success`, `failure`, `cancelled`); empty: none.
    public var on: Set<ActivityOutcome>
    public var level: Level

    public init(on: Set<ActivityOutcome> = [], level: Level = .active) {
        self.on = on
        self.level = level
    }
}

/// What a PushWard sink knows about one configured source, for its notifications.
public struct NotificationSource: Sendable, Hashable {
    /// The source's `type` (`bambu`): names the job in the title ("print failed").
    public var type: String
    /// The source's own `notify`, replacing the sink's; nil: the sink's applies.
    public var rule: NotificationRule?

    public init(type: String, rule: NotificationRule? = nil) {
        self.type = type
        self.rule = rule
    }
}

extension NotificationRule {
    /// Reads `notify: {on: ["failure", "cancelled", "success"], level: "time-sensitive"}` (a PushWard
    /// sink's, or a source's that replaces it for that source); `on` defaults to none.
    public static func read(_ reader: ConfigReader) -> NotificationRule {
        var rule = NotificationRule()
        let outcomes = ["success", "failure", "cancelled"]
        if reader.has("on") {
            if let names = reader.strings("on") {
                for name in names {
                    if let outcome = ActivityOutcome(rawValue: name), outcomes.contains(name) {
                        rule.on.insert(outcome)
                    } else {
                        reader.problem(
                            "on", "\"\(name)\" is not one of \(outcomes.map { "\"\($0)\"" }.joined(separator: ", "))")
                    }
                }
            }
        }
        let level = reader.choice("level", NotificationRule.Level.allCases.map(\.rawValue), default: "active")
        rule.level = NotificationRule.Level(rawValue: level) ?? .active
        reader.finish()
        return rule
    }
}
