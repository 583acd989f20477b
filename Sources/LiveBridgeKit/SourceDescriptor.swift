public import LiveBridgeCore
public import LiveBridgeNet

/// Everything LiveBridge knows about one source `type`, in one value: how an entry of that type
/// is read and built, and optionally how its recordings replay, what the demo plays of it and the
/// bench's generated jobs of its kind.
///
/// An adapter's folder declares its own (`SABnzbdSource.descriptor`); the executable's registry
/// lists them (`StandardComponents.sources`), and the config reader, `livebridge replay`'s formats
/// and detection, the usage text, `livebridge demo` and the bench's corpus all read that one list. An out-of-tree
/// adapter builds one the same way and appends it to `ComponentRegistry.standard.sources`.
public struct SourceDescriptor: Sendable {
    /// The config entry's `type`.
    public var type: String
    /// One line for the usage text and the config errors.
    public var summary: String
    /// Reads the entry's keys (calling `finish()`); nil after recording problems.
    public var make: @Sendable (ComponentConfig, SourceServices) -> SourceInstance?
    /// `livebridge replay --format <type>`: the source's recordings through its own mapping.
    public var replay: ReplayFormat?
    /// What `livebridge demo` plays of this source, through its own mapping.
    public var demo: DemoScenario?
    /// The bench corpus families of this source's jobs, through its own mapping (`livebridge-bench
    /// --only corpus` runs 40 seeded variants of each).
    public var trajectories: [TrajectoryFamily]

    public init(
        type: String, summary: String, replay: ReplayFormat? = nil, demo: DemoScenario? = nil,
        trajectories: [TrajectoryFamily] = [],
        make: @escaping @Sendable (ComponentConfig, SourceServices) -> SourceInstance?
    ) {
        self.type = type
        self.summary = summary
        self.replay = replay
        self.demo = demo
        self.trajectories = trajectories
        self.make = make
    }
}

/// What a source's factory may use.
public struct SourceServices: Sendable {
    public var dataDir: String
    public var store: any StateStore
    public var clock: any TimeSource
    public var logger: Logger
    public var metrics: MetricsRegistry
    public var health: HealthRegistry
    public var http: any HTTPTransport
    public var economy: EconomySettings

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

/// A source's part of `livebridge demo`: what it would send, through its own mapping.
public struct DemoScenario: Sendable {
    /// What it plays, for the usage text ("a Bambu print: heating, layers, a runout pause").
    public var summary: String
    /// The observations, in time order, from `base` on.
    public var updates: @Sendable (_ base: Double) throws -> [ActivityUpdate]

    public init(summary: String, updates: @escaping @Sendable (_ base: Double) throws -> [ActivityUpdate]) {
        self.summary = summary
        self.updates = updates
    }
}
