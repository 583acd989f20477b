/// Where the MQTT sink publishes: LiveBridge's own topics under `prefix` and Home Assistant's
/// discovery topics under `discoveryPrefix`, with the object ids automations rely on.
public struct MQTTTopics: Sendable, Hashable {
    /// Topic prefix (`livebridge`).
    public var prefix: String
    /// Home Assistant's discovery prefix (`homeassistant`).
    public var discoveryPrefix: String

    /// Topics for `prefix` and `discoveryPrefix`.
    public init(prefix: String, discoveryPrefix: String) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
    }

    /// The four entities of an activity's device, in the order they are announced.
    public enum Entity: String, Sendable, CaseIterable {
        case progress, status
        case finishesAt = "finishes_at"
        case running

        /// The Home Assistant platform (`sensor` or `binary_sensor`).
        public var component: String { self == .running ? "binary_sensor" : "sensor" }
    }

    /// `<prefix>/status`: `online` while LiveBridge runs, `offline` (also as its last will) when not.
    public var status: String { "\(prefix)/status" }

    /// `<prefix>/<slug>/state`: the whole card, retained.
    public func state(_ slug: String) -> String { "\(prefix)/\(slug)/state" }

    /// `<prefix>/<slug>/event`: starts, changes and ends, not retained.
    public func event(_ slug: String) -> String { "\(prefix)/\(slug)/event" }

    /// The prefix as an id: lower case, anything but letters, digits and `_` as `_`
    /// (`livebridge`; `home/lb` becomes `home_lb`).
    public var prefixID: String { Self.identifier(prefix) }

    /// `<prefix id>_<slug id>`: the activity's node id and the stem of its object ids
    /// (`livebridge_sabnzbd_home`).
    public func objectStem(_ slug: String) -> String { "\(prefixID)_\(Self.identifier(slug))" }

    /// The entity id Home Assistant gives `entity` of `slug` (`sensor.livebridge_dryer_progress`).
    public func entityID(_ entity: Entity, _ slug: String) -> String {
        "\(entity.component).\(objectStem(slug))_\(entity.rawValue)"
    }

    /// The discovery config topic of `entity` (`homeassistant/sensor/livebridge_dryer/progress/config`).
    public func discovery(_ entity: Entity, _ slug: String) -> String {
        "\(discoveryPrefix)/\(entity.component)/\(objectStem(slug))/\(entity.rawValue)/config"
    }

    /// Every discovery config topic of `slug`'s device.
    public func discoveryTopics(_ slug: String) -> [String] { Entity.allCases.map { discovery($0, slug) } }

    /// The discovery config of the LiveBridge instance's own device (its `online` sensor).
    public var bridgeDiscovery: String { "\(discoveryPrefix)/binary_sensor/\(prefixID)/online/config" }

    /// The single sensor earlier versions announced per activity; cleared when the device is announced.
    public func legacyDiscovery(_ slug: String) -> String {
        "\(discoveryPrefix)/sensor/livebridge_\(String(slug.map { $0 == "-" ? "_" : $0 }))/config"
    }

    /// Every retained topic LiveBridge keeps for `slug` with or without discovery.
    public func retainedTopics(_ slug: String, discovery: Bool) -> [String] {
        (discovery ? discoveryTopics(slug) : []) + [state(slug)]
    }

    static func identifier(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.lowercased().unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
                        ? scalar : "_"
                }))
    }
}
