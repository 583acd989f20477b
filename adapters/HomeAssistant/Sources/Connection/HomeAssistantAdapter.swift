public import LiveBridgeCore
public import LiveBridgeNet

/// Home Assistant as a source (`type: "homeassistant"`): configured entities become activities
/// (a timer, a washer's state with its progress and remaining-time sensors, …), and automations
/// describe activities directly with a custom event.
///
/// WebSocket mode subscribes with `subscribe_entities` (falling back to `state_changed` events
/// on old versions), resyncs after every reconnect and keeps the link alive with pings; poll
/// mode reads `/api/states/<id>` on an interval. Both feed the same pure
/// `HomeAssistantActivityMapper`.
public struct HomeAssistantAdapter: Adapter {
    /// The source's configuration.
    public let configuration: HomeAssistantConfiguration
    let transport: any HTTPTransport

    /// An adapter; `transport` serves poll mode and `probe`.
    public init(configuration: HomeAssistantConfiguration, transport: any HTTPTransport = HTTPClient.shared) {
        self.configuration = configuration
        self.transport = transport
        // Also when built in code rather than read with `ConfigReader.secret`.
        Redactor.shared.register(configuration.token)
    }

    /// The configured name.
    public var name: String { configuration.name }
    /// `homeassistant`.
    public var type: String { "homeassistant" }

    /// Runs until cancelled; reconnects and backs off by itself, so it only throws on cancellation.
    public func run(_ context: AdapterContext) async throws {
        NetworkLibraries.initialize()
        let mapper = HomeAssistantActivityMapper(mappings: configuration.entities, eventType: configuration.eventType)
        switch configuration.mode {
        case .websocket:
            var session = HomeAssistantConnection(configuration: configuration, context: context, mapper: mapper)
            try await session.run()
        case .poll:
            var poller = HomeAssistantPoller(
                configuration: configuration, context: context, transport: transport, mapper: mapper)
            try await poller.run()
        }
    }

    /// `GET /api/`: checks the address and the token for `livebridge check`.
    public func probe(_ context: AdapterContext) async -> ProbeResult {
        NetworkLibraries.initialize()
        do {
            let response = try await HomeAssistantREST.get("/api/", configuration, transport)
            guard response.status == 200 else {
                return ProbeResult(
                    ok: false, detail: HomeAssistantREST.failure(response, path: "/api/", configuration).description)
            }
            let mode = configuration.mode == .poll ? "poll" : "websocket"
            return ProbeResult(
                ok: true,
                detail: "Home Assistant at \(configuration.url) accepted the token (\(configuration.entities.count) "
                    + "entities, \(mode) mode)")
        } catch {
            return ProbeResult(ok: false, detail: Redactor.shared.redact("cannot reach Home Assistant: \(error)"))
        }
    }
}
