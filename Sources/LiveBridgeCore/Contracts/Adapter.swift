/// A source of activity updates: one per configured source instance.
///
/// Runs until its task is cancelled (that is how it stops). Throwing ends only this adapter; the
/// supervisor restarts it with backoff and reports the error in `/health`.
public protocol Adapter: Sendable {
    /// The configured name (`home`).
    var name: String { get }
    /// The configured type (`sabnzbd`).
    var type: String { get }
    func run(_ context: AdapterContext) async throws
    /// Checks reachability and credentials for `livebridge check`.
    func probe(_ context: AdapterContext) async -> ProbeResult
}

extension Adapter {
    public func probe(_ context: AdapterContext) async -> ProbeResult {
        ProbeResult(ok: true, detail: "no probe for this source type")
    }
}

/// An HTTP request that reached `POST /webhook/<source>`, already authenticated.
public struct WebhookEvent: Sendable, Hashable {
    public var body: [UInt8]
    public var contentType: String?
    public var receivedAt: Double

    public init(body: [UInt8], contentType: String?, receivedAt: Double) {
        self.body = body
        self.contentType = contentType
        self.receivedAt = receivedAt
    }
}

/// What the core hands an adapter: where updates go and the injected services.
public struct AdapterContext: Sendable {
    /// The adapter's configured name.
    public var name: String
    /// Hands one observation to the trackers.
    public var emit: @Sendable (ActivityUpdate) async -> Void
    public var logger: Logger
    public var clock: any TimeSource
    /// Small persisted state (resume, TOFU pins); keys should start with the adapter's slug.
    public var store: any StateStore
    /// Where the adapter reports its connection state for `/health`.
    public var health: HealthReporter
    public var metrics: MetricsRegistry
    /// Webhook wake-ups for this source (empty stream when none are routed here).
    public var webhooks: AsyncStream<WebhookEvent>

    public init(
        name: String, emit: @escaping @Sendable (ActivityUpdate) async -> Void, logger: Logger,
        clock: any TimeSource, store: any StateStore, health: HealthReporter, metrics: MetricsRegistry,
        webhooks: AsyncStream<WebhookEvent> = AsyncStream { $0.finish() }
    ) {
        self.name = name
        self.emit = emit
        self.logger = logger
        self.clock = clock
        self.store = store
        self.health = health
        self.metrics = metrics
        self.webhooks = webhooks
    }

    /// Counts a parse error in metrics and logs it (never with secrets; the logger redacts).
    public func reportParseError(_ message: String) {
        metrics.increment("livebridge_adapter_parse_errors_total", ["source": name])
        health.noteError(message)
        logger.warning(message)
    }
}
