public import LiveBridgeCore
public import LiveBridgeNet
public import LiveBridgeSinks

/// What a component factory may use.
public struct RuntimeServices: Sendable {
    public var dataDir: String
    public var store: any StateStore
    public var clock: any TimeSource
    public var logger: Logger
    public var metrics: MetricsRegistry
    public var health: HealthRegistry
    public var http: any HTTPTransport
    public var economy: EconomySettings
    /// Every configured source by name (its type and its own `notify`), for sinks that notify.
    public var sources: [String: NotificationSource] = [:]

    public init(
        dataDir: String, store: any StateStore, clock: any TimeSource, logger: Logger, metrics: MetricsRegistry,
        health: HealthRegistry, http: any HTTPTransport, economy: EconomySettings
    ) {
        self.dataDir = dataDir
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.health = health
        self.http = http
        self.economy = economy
    }
}

/// A configured source, ready to run.
public struct SourceInstance: Sendable {
    public var adapter: any Adapter
    /// The shared secret `POST /webhook/<name>` must carry, when one is configured.
    public var webhookSecret: String?
    /// Whether this source accepts webhooks at all.
    public var acceptsWebhooks: Bool

    public init(adapter: any Adapter, webhookSecret: String? = nil, acceptsWebhooks: Bool = false) {
        self.adapter = adapter
        self.webhookSecret = webhookSecret
        self.acceptsWebhooks = acceptsWebhooks
    }
}

/// One `type` a sink entry may have.
public struct SinkKind: Sendable {
    public var type: String
    public var summary: String
    /// Reads the entry's keys (calling `finish()`), returns nil after recording problems.
    public var make: @Sendable (ComponentConfig, RuntimeServices) -> (any Sink)?

    public init(
        type: String, summary: String, make: @escaping @Sendable (ComponentConfig, RuntimeServices) -> (any Sink)?
    ) {
        self.type = type
        self.summary = summary
        self.make = make
    }
}

/// One `type` a source entry may have.
public struct SourceKind: Sendable {
    public var type: String
    public var summary: String
    public var make: @Sendable (ComponentConfig, RuntimeServices) -> SourceInstance?

    public init(
        type: String, summary: String, make: @escaping @Sendable (ComponentConfig, RuntimeServices) -> SourceInstance?
    ) {
        self.type = type
        self.summary = summary
        self.make = make
    }
}

/// Every source and sink type the executable knows: the one place that sees all adapters and
/// sinks. Adding a source is a folder under `adapters/` and one line here.
public struct ComponentRegistry: Sendable {
    public var sinks: [SinkKind]
    public var sources: [SourceKind]

    public init(sinks: [SinkKind], sources: [SourceKind]) {
        self.sinks = sinks
        self.sources = sources
    }

    /// The built-in registry.
    public static var standard: ComponentRegistry {
        ComponentRegistry(sinks: StandardComponents.sinks, sources: StandardComponents.sources)
    }

    /// Builds every sink and source of `config`; throws every problem found.
    public func build(_ config: LiveBridgeConfig, services: RuntimeServices) throws(ConfigError)
        -> (sinks: [any Sink], sources: [(ComponentConfig, SourceInstance)])
    {
        var sinks: [any Sink] = []
        var sources: [(ComponentConfig, SourceInstance)] = []
        // `notify` on a source entry belongs to the sinks that notify; read before they are built.
        var services = services
        for entry in config.sources {
            let rule = entry.reader.object("notify").map(notificationRule)
            services.sources[entry.name] = NotificationSource(type: entry.type, rule: rule)
        }
        for entry in config.sinks {
            guard let kind = self.sinks.first(where: { $0.type == entry.type }) else {
                entry.reader.problem("type", unknownType(entry.type, known: self.sinks.map(\.type)))
                continue
            }
            if let sink = kind.make(entry, services) { sinks.append(sink) }
        }
        for entry in config.sources {
            guard let kind = self.sources.first(where: { $0.type == entry.type }) else {
                entry.reader.problem("type", unknownType(entry.type, known: self.sources.map(\.type)))
                continue
            }
            if let source = kind.make(entry, services) { sources.append((entry, source)) }
        }
        try config.problems.check()
        return (sinks, sources)
    }

    private func unknownType(_ type: String, known: [String]) -> String {
        let suggestion = known.min { ParsedArguments.distance($0, type) < ParsedArguments.distance($1, type) }
            .flatMap { ParsedArguments.distance($0, type) <= 3 ? $0 : nil }
        return "unknown type \"\(type)\"" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "")
            + " (known: \(known.joined(separator: ", ")))"
    }
}

/// Reads `notify: {on: ["failure", "cancelled", "success"], level: "time-sensitive"}` (a PushWard
/// sink's, or a source's that replaces it for that source); `on` defaults to none.
func notificationRule(_ reader: ConfigReader) -> NotificationRule {
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

/// Reads the TLS keys shared by HTTP-based sinks and sources: `fingerprint` (SPKI pin), `caFile`,
/// `insecure`.
func tlsOptions(_ reader: ConfigReader) -> TLSOptions {
    var options = TLSOptions()
    options.caFile = reader.string("caFile")
    if let pin = reader.string("fingerprint") {
        if pin.hasPrefix("sha256//") {
            options.pinnedPublicKey = pin
        } else {
            reader.problem(
                "fingerprint",
                "expected the SPKI pin as sha256//<base64>; get it with: openssl x509 -in cert.pem -pubkey -noout | "
                    + "openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64")
        }
    }
    options.insecure = reader.bool("insecure", default: false)
    return options
}
