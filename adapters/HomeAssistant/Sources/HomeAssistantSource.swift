import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

/// The Home Assistant source as the registry knows it.
public enum HomeAssistantSource {
    /// `type: "homeassistant"`: entities and automations of a Home Assistant become activities.
    public static var descriptor: SourceDescriptor {
        SourceDescriptor(
            type: "homeassistant", summary: "Home Assistant entities and automation events", replay: replayFormat,
            demo: DemoScenario(summary: "a Home Assistant washer cycle") { base in
                try HomeAssistantReplay.updates(lines: HomeAssistantDemo.lines(start: base), base: base)
            }
        ) { entry, services in
            guard let configuration = HomeAssistantConfiguration.read(entry.reader, name: entry.name) else {
                return nil
            }
            return SourceInstance(adapter: HomeAssistantAdapter(configuration: configuration, transport: services.http))
        }
    }

    /// `livebridge replay --format homeassistant`: recorded WebSocket messages (JSONL).
    public static var replayFormat: ReplayFormat {
        ReplayFormat(
            name: "homeassistant", summary: "Home Assistant WebSocket messages with arrival times (JSONL)",
            detects: HomeAssistantReplay.detects
        ) { lines, base in
            try HomeAssistantReplay.updates(lines: lines, base: base)
        }
    }
}
