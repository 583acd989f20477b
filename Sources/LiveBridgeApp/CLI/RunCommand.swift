import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// `livebridge run --config FILE`: the daemon.
enum RunCommand {
    static let usage = "usage: livebridge run --config FILE [--log-level info]"

    static func run(
        _ arguments: [String], environment: [String: String], output: CommandOutput, handlesSignals: Bool = false
    ) async -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, options: ["config", "log-level"], flags: ["help"])
        } catch {
            output.err("livebridge run: \(error.message)\n\(usage)")
            return ExitStatus.usage
        }
        if parsed.flag("help") {
            output.out(usage)
            return ExitStatus.ok
        }
        guard let path = parsed.value("config") ?? environment["LIVEBRIDGE_CONFIG"] else {
            output.err("livebridge run: --config FILE is required (or set LIVEBRIDGE_CONFIG)\n\(usage)")
            return ExitStatus.usage
        }
        let runtime: LiveBridgeRuntime
        do {
            var config = try ConfigLoader.load(path: path, environment: environment)
            if let level = parsed.value("log-level").flatMap(LogLevel.init(name:)) { config.logLevel = level }
            runtime = try LiveBridgeRuntime(config: config)
        } catch let error as ConfigError {
            output.err("livebridge: \(path): \(error)")
            return ExitStatus.configuration
        } catch {
            output.err(Redactor.shared.redact("livebridge: \(error)"))
            return ExitStatus.software
        }
        let task = Task { await runtime.run() }
        let traps = handlesSignals ? SignalTrap.cancelOnTermination(task) : []
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        // The signal sources must outlive the wait (`_ = traps` let the optimizer drop them early).
        withExtendedLifetime(traps) {}
        return ExitStatus.ok
    }
}

/// `livebridge check --config FILE`: validate, probe every source and sink, print a table.
enum CheckCommand {
    static let usage = "usage: livebridge check --config FILE"

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) async -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, options: ["config"], flags: ["help"])
        } catch {
            output.err("livebridge check: \(error.message)\n\(usage)")
            return ExitStatus.usage
        }
        guard let path = parsed.value("config") ?? environment["LIVEBRIDGE_CONFIG"] else {
            output.err("livebridge check: --config FILE is required\n\(usage)")
            return ExitStatus.usage
        }
        let config: LiveBridgeConfig
        let built: (sinks: [any Sink], sources: [(ComponentConfig, SourceInstance)])
        let services: RuntimeServices
        do {
            config = try ConfigLoader.load(path: path, environment: environment)
            let clock = SystemClock()
            let health = HealthRegistry()
            services = RuntimeServices(
                dataDir: config.dataDir, store: FileStateStore(directory: config.dataDir), clock: clock,
                logger: Logger(label: "check", level: .warning, handler: StandardErrorLogHandler()),
                metrics: MetricsRegistry(), health: health, http: HTTPClient.shared, economy: config.economy)
            built = try ComponentRegistry.standard.build(config, services: services)
        } catch {
            output.err(Redactor.shared.redact("livebridge check: \(path): \(error)"))
            return ExitStatus.configuration
        }
        // Probe details quote URLs and service answers: mask secrets as the log does.
        let redact = { (text: String) in Redactor.shared.redact(text) }
        for warning in config.warnings + config.problems.warnings { output.err(redact("warning: \(warning)")) }
        var rows: [(String, String, String, ProbeResult)] = []
        for sink in built.sinks {
            rows.append(("sink", sink.name, sink.type, await sink.probe()))
        }
        for (entry, instance) in built.sources {
            let context = AdapterContext(
                name: entry.name, emit: { _ in }, logger: services.logger, clock: services.clock, store: services.store,
                health: services.health.reporter(
                    kind: "source", name: entry.name, type: entry.type, clock: services.clock),
                metrics: services.metrics)
            rows.append(("source", entry.name, entry.type, await instance.adapter.probe(context)))
        }
        let ledgerLines = built.sinks.map { sink -> String in
            let ledger = BudgetLedger(
                sink: sink.name, limit: config.economy.monthlyBudget, store: services.store, settings: config.economy)
            let used = ledger.used(at: services.clock.now)
            return "budget \(sink.name): \(used) update(s) counted this month"
                + (config.economy.monthlyBudget.map { " of \($0)" } ?? "")
        }
        let width = max(10, rows.map { $0.1.count + $0.2.count + 3 }.max() ?? 10)
        output.out(
            "config ok: \(config.sinks.count) sink(s), \(config.sources.count) source(s), data in \(config.dataDir)")
        for (kind, name, type, result) in rows {
            let label = "\(name) (\(type))"
            let padded = label + String(repeating: " ", count: max(1, width - label.count))
            output.out(redact("\(result.ok ? "ok  " : "FAIL") \(kind.padding(6)) \(padded) \(result.detail)"))
        }
        for line in ledgerLines { output.out(line) }
        return rows.allSatisfy(\.3.ok) ? ExitStatus.ok : ExitStatus.unavailable
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
