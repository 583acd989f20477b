import FoundationEssentials
package import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks
import Synchronization

/// `livebridge demo`: every registered source's demo scenario (`SourceDescriptor.demo`), through
/// the real adapters' mapping, the real tracker and economy, into the preview page and a console
/// summary. No config, no accounts.
package enum DemoCommand {
    static func usage(_ registry: ComponentRegistry) -> String {
        """
        usage: livebridge demo [--speed N] [--port P] [--once]

        Plays \(sentence(registry.sources.compactMap(\.demo?.summary))) at N× speed (default 30) and
        draws them at http://127.0.0.1:P/ (default 8787) the way the phone would.
        --once plays the scenarios once and exits; otherwise they repeat until Ctrl-C.
        """
    }

    /// "a, b and c".
    static func sentence(_ parts: [String]) -> String {
        guard parts.count > 1 else { return parts.first ?? "nothing" }
        return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }

    /// Seconds between the starts of two sources' scenarios.
    package static let stagger: Double = 20

    static func run(
        _ arguments: [String], environment: [String: String], output: CommandOutput, handlesSignals: Bool = false,
        registry: ComponentRegistry = .standard
    ) async -> Int32 {
        let speed: Double
        let port: Int
        let once: Bool
        let quiet: Bool
        do throws(UsageError) {
            let parsed = try ParsedArguments(arguments, options: ["speed", "port"], flags: ["once", "quiet", "help"])
            if parsed.flag("help") {
                output.out(usage(registry))
                return ExitStatus.ok
            }
            if let extra = parsed.positional.first { throw UsageError("unexpected argument \(extra)") }
            speed = try parsed.number("speed", range: 0.1...10_000) ?? 30
            port = Int(try parsed.number("port", range: 0...65535) ?? 8787)
            once = parsed.flag("once")
            quiet = parsed.flag("quiet")
        } catch {
            output.err("livebridge demo: \(error.message)\n\n\(usage(registry))")
            return ExitStatus.usage
        }
        let task = Task {
            await play(speed: speed, port: port, once: once, quiet: quiet, output: output, registry: registry)
        }
        let traps = handlesSignals ? SignalTrap.cancelOnTermination(task) : []
        let status = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        withExtendedLifetime(traps) {}  // the signal sources must outlive the wait
        return status
    }

    static func play(
        speed: Double, port: Int, once: Bool, quiet: Bool, output: CommandOutput, registry: ComponentRegistry
    ) async -> Int32 {
        NetworkLibraries.initialize()
        let clock = ScaledClock(rate: speed)
        let logger = Logger(label: "demo", level: .warning, handler: StandardErrorLogHandler())
        let preview = PreviewSink(
            configuration: .init(name: "preview", listen: "127.0.0.1:\(port)", title: "LiveBridge demo"), clock: clock,
            logger: logger)
        let url: String
        do {
            url = try preview.start()
        } catch {
            output.err("livebridge demo: \(error) — try another --port")
            return ExitStatus.unavailable
        }
        let console = ConsoleSink(
            name: "console", format: .text, displayModel: .interpolating,
            writer: { line in if !quiet { output.out(line) } }, clock: clock)
        var settings = EconomySettings()
        settings.monthlyBudget = 250
        settings.endFrames = 2
        let store = MemoryStateStore()
        let metrics = MetricsRegistry()
        let health = HealthRegistry()
        var bindings: [ActivityEngine.Binding] = []
        for sink in [preview, console] as [any Sink] {
            let ledger = BudgetLedger(sink: sink.name, limit: settings.monthlyBudget, store: store, settings: settings)
            let queue = DeliveryQueue(
                sink: sink, clock: clock, logger: logger, metrics: metrics,
                health: health.reporter(kind: "sink", name: sink.name, type: sink.type, clock: clock), ledger: ledger)
            bindings.append(ActivityEngine.Binding(sink: sink, queue: queue, ledger: ledger))
        }
        let engine = ActivityEngine(
            bindings: bindings, settings: settings, clock: clock, store: store, logger: logger, metrics: metrics)
        await engine.start()
        let driver = Task { await engine.run() }
        await preview.attach(to: engine)
        output.out("LiveBridge demo at \(Int(speed))× speed — open \(url) (Ctrl-C to stop)")
        var round = 0
        while !Task.isCancelled {
            round += 1
            guard let updates = try? scenario(base: clock.now + 1, registry: registry) else {
                output.err("livebridge demo: the scenario could not be built")
                return ExitStatus.software
            }
            await playRound(updates, engine: engine, clock: clock)
            if once { break }
        }
        driver.cancel()
        await driver.value
        await engine.shutdown(endActivities: false, flushTimeout: 2)
        preview.shutdown()
        output.out(
            "demo stopped after \(round) round(s); \(Int(metrics.total("livebridge_pushes_sent_total"))) frames delivered"
        )
        return ExitStatus.ok
    }

    /// Emits each observation at its time, then lets the end frames go out and the finished cards
    /// stand for a while.
    static func playRound(_ updates: [ActivityUpdate], engine: ActivityEngine, clock: ScaledClock) async {
        for update in updates {
            if Task.isCancelled { return }
            try? await clock.sleep(until: update.observedAt ?? clock.now)
            if Task.isCancelled { return }
            await engine.emit(update)
        }
        try? await clock.sleep(for: 120)
    }

    /// Every source's demo observations, through the adapters' own mapping, in time order: the
    /// sources start `stagger` apart, in the registry's order.
    package static func scenario(base: Double, registry: ComponentRegistry = .standard) throws -> [ActivityUpdate] {
        var updates: [ActivityUpdate] = []
        for (index, demo) in registry.sources.compactMap(\.demo).enumerated() {
            updates += try demo.updates(base + Double(index) * stagger)
        }
        return updates.sorted { ($0.observedAt ?? 0) < ($1.observedAt ?? 0) }
    }
}
