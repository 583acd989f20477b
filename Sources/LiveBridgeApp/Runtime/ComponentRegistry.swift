public import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks

/// What a component factory may use: the sinks' services, whose `source` part is what a
/// source's factory gets.
public typealias RuntimeServices = SinkServices

/// Every source and sink type the executable knows: the one place that sees all adapters and
/// sinks. Adding a source is a folder under `adapters/` and one line in
/// `StandardComponents.sources` (docs/architecture.md).
public struct ComponentRegistry: Sendable {
    public var sinks: [SinkDescriptor]
    public var sources: [SourceDescriptor]

    public init(sinks: [SinkDescriptor], sources: [SourceDescriptor]) {
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
            let rule = entry.reader.object("notify").map(NotificationRule.read)
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
            if let source = kind.make(entry, services.source) { sources.append((entry, source)) }
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
