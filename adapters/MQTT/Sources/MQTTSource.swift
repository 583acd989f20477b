import LiveBridgeCore
public import LiveBridgeKit

/// The generic MQTT source as the registry knows it.
public enum MQTTSource {
    /// `type: "mqtt"`: jobs read from any broker's JSON messages (OctoPrint, Klipper, a plug).
    public static var descriptor: SourceDescriptor {
        SourceDescriptor(
            type: "mqtt", summary: "jobs from any MQTT broker's JSON (OctoPrint, Klipper/Moonraker, power plugs)",
            replay: replayFormat,
            demo: DemoScenario(summary: "a Klipper print through Moonraker (the slicer's estimate, a pause)") { base in
                try MQTTReplay.updates(lines: MQTTDemo.lines(), base: base)
            },
            trajectories: MQTTTrajectories.families
        ) { entry, _ in
            guard let configuration = MQTTSourceConfiguration.read(entry) else { return nil }
            return SourceInstance(adapter: MQTTSourceAdapter(configuration: configuration))
        }
    }

    /// `livebridge replay --format mqtt`: a `{"mqtt": {…}}` header, then `{"t", "topic", "payload"}`.
    public static var replayFormat: ReplayFormat {
        ReplayFormat(
            name: "mqtt", summary: "MQTT messages: {\"mqtt\": {source keys}} then {\"t\", \"topic\", \"payload\"}",
            detects: MQTTReplay.detects
        ) { lines, base in
            try MQTTReplay.updates(lines: lines, base: base)
        }
    }
}
