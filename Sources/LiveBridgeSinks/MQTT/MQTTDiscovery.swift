public import LiveBridgeCore

/// Home Assistant MQTT discovery configs: every activity is a device (`<prefix>_<slug>`, named
/// like the activity, via the LiveBridge instance's device) with four entities whose object ids
/// are fixed, all reading the activity's state topic and unavailable while LiveBridge is offline.
///
/// Attribute names avoid the ones Home Assistant drops from MQTT attributes (`state`, `icon`,
/// `name`, …): the card icon is `card_icon`.
public struct MQTTDiscovery: Sendable {
    public var topics: MQTTTopics

    /// Configs for `topics`.
    public init(topics: MQTTTopics) {
        self.topics = topics
    }

    /// The config of `entity` for the activity `slug` named `name`.
    public func config(_ entity: MQTTTopics.Entity, slug: String, name: String) -> JSONValue {
        let stem = topics.objectStem(slug)
        var config: [String: JSONValue] = [
            "unique_id": .string("\(stem)_\(entity.rawValue)"), "object_id": .string("\(stem)_\(entity.rawValue)"),
            "has_entity_name": true, "state_topic": .string(topics.state(slug)),
            "availability": [
                [
                    "topic": .string(topics.status), "payload_available": "online",
                    "payload_not_available": "offline",
                ]
            ],
            "device": [
                "identifiers": [.string("\(topics.prefixID)_\(slug)")], "name": .string(name),
                "manufacturer": "LiveBridge", "model": "Activity", "via_device": .string(topics.prefixID),
            ],
            "origin": origin,
        ]
        switch entity {
        case .progress:
            config["name"] = "Progress"
            config["value_template"] = "{{ value_json.percent }}"
            config["unit_of_measurement"] = "%"
            config["state_class"] = "measurement"
            config["icon"] = "mdi:progress-clock"
        case .status:
            config["name"] = "Status"
            config["value_template"] = "{{ value_json.status }}"
            config["icon"] = "mdi:card-text-outline"
            config["json_attributes_topic"] = .string(topics.state(slug))
            config["json_attributes_template"] = .string(
                "{{ {'card_icon': value_json.icon, 'color': value_json.color, 'subtitle': value_json.subtitle, "
                    + "'phase': value_json.phase} | tojson }}")
        case .finishesAt:
            config["name"] = "Finishes at"
            config["device_class"] = "timestamp"
            // Home Assistant 2024.3 turns "None" into unknown (logging that it is no timestamp).
            config["value_template"] = "{{ value_json.finishes_at or 'None' }}"
        case .running:
            config["name"] = "Running"
            config["device_class"] = "running"
            config["value_template"] = "{{ 'ON' if value_json.running else 'OFF' }}"
            config["json_attributes_topic"] = .string(topics.state(slug))
            config["json_attributes_template"] =
                "{{ {'outcome': value_json.outcome, 'phase': value_json.phase} | tojson }}"
        }
        return .object(config)
    }

    /// The LiveBridge instance's device: a connectivity sensor on the status topic (off, not
    /// unavailable, when LiveBridge is offline), which the activities' `via_device` points to.
    public var bridgeConfig: JSONValue {
        let id = "\(topics.prefixID)_online"
        return [
            "unique_id": .string(id), "object_id": .string(id), "has_entity_name": true, "name": "Online",
            "device_class": "connectivity", "state_topic": .string(topics.status), "payload_on": "online",
            "payload_off": "offline",
            "device": [
                "identifiers": [.string(topics.prefixID)],
                "name": .string(topics.prefix == "livebridge" ? "LiveBridge" : "LiveBridge (\(topics.prefix))"),
                "manufacturer": "LiveBridge", "model": "LiveBridge", "sw_version": .string(LiveBridgeVersion.current),
            ],
            "origin": origin,
        ]
    }

    private var origin: JSONValue { ["name": "LiveBridge", "sw_version": .string(LiveBridgeVersion.current)] }
}
