import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeTestSupport

@testable import LiveBridgeApp

/// The sinks the config entries `sinks` build into with only `kind` registered, on throwaway
/// services (a memory store, a stepping clock): what the registry makes of a sink's keys.
func buildSinks(_ kind: SinkDescriptor, _ sinks: String) throws(ConfigError) -> [any Sink] {
    let config = try ConfigLoader.parse(text: "{ dataDir: \"/tmp/unused\", sinks: [ \(sinks) ] }", environment: [:])
    let services = RuntimeServices(
        dataDir: config.dataDir, store: MemoryStateStore(), clock: SteppingClock(), logger: .disabled,
        metrics: MetricsRegistry(), health: HealthRegistry(), http: HTTPClient.shared, economy: config.economy)
    return try ComponentRegistry(sinks: [kind], sources: []).build(config, services: services).sinks
}
