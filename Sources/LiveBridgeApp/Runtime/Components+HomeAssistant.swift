import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeNet

extension StandardComponents {
    /// `type: "homeassistant"`: entities and automations of a Home Assistant become activities.
    static var homeAssistantSource: SourceKind {
        SourceKind(type: "homeassistant", summary: "Home Assistant entities and automation events") { entry, services in
            guard let configuration = HomeAssistantConfiguration.read(entry.reader, name: entry.name) else {
                return nil
            }
            return SourceInstance(adapter: HomeAssistantAdapter(configuration: configuration, transport: services.http))
        }
    }

    /// `livebridge replay --format homeassistant`: recorded WebSocket messages (JSONL).
    package static var homeAssistantReplay: DetectableFormat {
        DetectableFormat(
            format: ReplayFormat(
                name: "homeassistant", summary: "Home Assistant WebSocket messages with arrival times (JSONL)"
            ) { lines, base in
                try HomeAssistantReplay.updates(lines: lines, base: base)
            },
            detects: HomeAssistantReplay.detects)
    }
}
