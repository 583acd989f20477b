public import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// A Bambu Lab printer as a source: one MQTT session to the printer's own broker (TLS, user
/// `bblp`, the LAN access code), its reports merged into one printer state, and one activity per
/// job under the printer's slug.
///
/// `run` owns the session for as long as it runs: it asks for the full state (`pushall`) after
/// every (re)connect, keeps `/health` up to date with the connection (a wrong access code or a
/// certificate that does not match the pin is an error with what to change; a printer that is off
/// is degraded and retried with backoff), and emits the mapper's updates in order.
public struct BambuAdapter: Adapter {
    /// The printer.
    public let configuration: BambuPrinterConfiguration
    /// Called after each thing the adapter did (see `BambuAdapterEvent`).
    public let observer: (@Sendable (BambuAdapterEvent) -> Void)?
    /// Seconds between checks of the offline and failure timers.
    public var tickInterval: Double = 5

    /// An adapter for one printer.
    public init(
        configuration: BambuPrinterConfiguration, observer: (@Sendable (BambuAdapterEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.observer = observer
    }

    /// The configured name.
    public var name: String { configuration.name }
    /// `bambu`.
    public var type: String { "bambu" }

    /// Follows the printer until cancelled. Throws only when the session cannot be created (a
    /// configuration libmosquitto refuses); connection problems are retried, not thrown.
    ///
    /// The context's clock must really wait in `sleep` (the system clock, or a `VirtualClock` a
    /// test advances): the offline and failure timers tick on it every `tickInterval` seconds.
    public func run(_ context: AdapterContext) async throws {
        var monitor = BambuPrinterConnection(configuration: configuration, context: context, observer: observer)
        let gate = BambuPushallGate(
            configuration: configuration, clock: context.clock, logger: context.logger, observer: observer)
        let session = try MQTTSession(
            configuration: configuration.session, pinStore: context.store, logger: context.logger,
            onConnect: { session in await gate.send(on: session) })
        let statuses = session.statusUpdates()
        context.health.setDetail("connection", "connecting")
        context.health.setDetail("slug", configuration.slug)
        context.logger.info(
            "following Bambu Lab printer",
            [
                "host": "\(configuration.host):\(configuration.port)", "serial": configuration.serial,
                "slug": configuration.slug, "security": "\(configuration.security)",
            ])
        do {
            try session.start()
        } catch {
            await session.shutdown()
            throw error
        }
        await monitor.begin()
        await session.follow(statuses: statuses, ticking: tickInterval, on: context.clock) { input in
            await monitor.handle(input)
        }
        await session.shutdown()
        context.health.setDetail("connection", "stopped")
    }

    /// Connects once (up to 15 s), asks for the printer's state and reports what it found: the
    /// certificate fingerprint (to pin), whether the access code was accepted, the printer's state.
    public func probe(_ context: AdapterContext) async -> ProbeResult {
        await BambuProbe(configuration: configuration, context: context).run()
    }
}
