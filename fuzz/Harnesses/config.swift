// Harness `config`: the whole config path `livebridge run` and `livebridge check` take, minus the
// file read: `ConfigLoader.parse(text:environment:)` (JSON5, `${ENV}` interpolation, typed keys,
// did-you-means), then every sink and source built through `ComponentRegistry.standard.build`
// with in-memory services. Nothing connects: sinks and sources are built, never started.
//
// Invariants: any text gives a config or a typed `ConfigError` with at least one problem, each
// with a message; a config that builds has as many sinks and sources as entries, with unique names.

import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// What the config may reference as `${NAME}`.
private let environment = [
    "HOME": "/nonexistent/home", "PUSHWARD_API_KEY": "pw-fuzz-key-0001", "STATE_OBJECT_API_KEY": "so-fuzz-key-0002",
    "MQTT_PASSWORD": "mqtt-fuzz-0003", "LIVEBRIDGE_API_TOKEN": "api-fuzz-0004", "EMPTY": "",
]

/// An HTTP transport that never sends anything (building components must not need the network).
private struct OfflineTransport: HTTPTransport {
    func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        throw HTTPClientError(.network, message: "offline: the config harness never sends requests")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    let config: LiveBridgeConfig
    do {
        config = try ConfigLoader.parse(text: text, environment: environment)
    } catch {
        fuzzTrace("parse: \(error)")
        checkProblems(error)
        return 0
    }
    let clock = VirtualClock()
    let services = RuntimeServices(
        dataDir: config.dataDir, store: MemoryStateStore(), clock: clock, logger: .disabled, metrics: MetricsRegistry(),
        health: HealthRegistry(), http: OfflineTransport(), economy: config.economy)
    do {
        let built = try ComponentRegistry.standard.build(config, services: services)
        fuzzCheck(
            built.sinks.count == config.sinks.count, "\(config.sinks.count) sink entries built \(built.sinks.count)")
        fuzzCheck(
            built.sources.count == config.sources.count,
            "\(config.sources.count) source entries built \(built.sources.count)")
        fuzzTrace("built \(built.sinks.count) sinks, \(built.sources.count) sources")
        let names = built.sinks.map(\.name)
        fuzzCheck(Set(names).count == names.count, "duplicate sink names accepted: \(names)")
    } catch {
        fuzzTrace("build: \(error)")
        checkProblems(error)
    }
    return 0
}

private func checkProblems(_ error: ConfigError) {
    fuzzCheck(!error.problems.isEmpty, "a config error without problems")
    for problem in error.problems {
        fuzzCheck(!problem.message.isEmpty, "a problem without a message at \(problem.path)")
    }
    _ = error.description
}
