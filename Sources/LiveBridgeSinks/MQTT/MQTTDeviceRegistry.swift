public import LiveBridgeCore

/// The activities the MQTT sink left retained topics for (discovery configs, the state), when
/// each was last seen, and the topics still to clear: what a restart needs so that no device
/// outlives `retention` and none is left behind. A value type with no I/O and no clock; the
/// sink persists `json` in the data directory.
///
/// Bounded: at most `capacity` devices (the least recently seen go first, like an expiry) and
/// the topics of the devices removed while the broker could not be reached.
public struct MQTTDeviceRegistry: Sendable, Equatable {
    /// One activity's device.
    public struct Device: Sendable, Equatable {
        /// The display name it was last announced with.
        public var name: String
        /// When a frame for it was last delivered (Unix seconds).
        public var seen: Double
        /// The retained topics published for it.
        public var topics: [String]

        public init(name: String, seen: Double, topics: [String]) {
            self.name = name
            self.seen = seen
            self.topics = topics
        }
    }

    /// Devices by slug.
    public private(set) var devices: [String: Device] = [:]
    /// Retained topics of removed devices not yet cleared on the broker.
    public private(set) var pendingClears: [String] = []
    /// Seconds a device stays after it was last seen (`retainDevices`).
    public let retention: Double
    /// Most devices kept.
    public let capacity: Int

    /// An empty registry.
    public init(retention: Double, capacity: Int = 1000) {
        self.retention = retention
        self.capacity = max(1, capacity)
    }

    /// How a sighting changed the registry.
    public struct Sighting: Sendable, Equatable {
        /// The slug was not known: its device is new.
        public var isNew: Bool
        /// The name or the topics changed (announce again, persist).
        public var changed: Bool
        /// Devices pushed out by the capacity, whose topics now wait in `pendingClears`.
        public var evicted: [String]
    }

    /// Records a delivered frame for `slug`.
    public mutating func saw(_ slug: String, name: String, topics: [String], at now: Double) -> Sighting {
        let previous = devices[slug]
        devices[slug] = Device(name: name, seen: max(now, previous?.seen ?? now), topics: topics)
        if let previous { queueClears(previous.topics.filter { !topics.contains($0) }) }
        var evicted: [String] = []
        while devices.count > capacity {
            guard let oldest = devices.min(by: { ($0.value.seen, $0.key) < ($1.value.seen, $1.key) })?.key else {
                break
            }
            remove(oldest)
            evicted.append(oldest)
        }
        return Sighting(
            isNew: previous == nil, changed: previous == nil || previous?.name != name || previous?.topics != topics,
            evicted: evicted)
    }

    /// When the next device expires, nil when there is none.
    public var nextExpiry: Double? { devices.values.map(\.seen).min().map { $0 + retention } }

    /// Removes every device not seen for `retention` at `now`; their topics join `pendingClears`.
    public mutating func expire(at now: Double) -> [String] {
        let expired = devices.filter { $0.value.seen + retention <= now }.keys.sorted()
        for slug in expired { remove(slug) }
        return expired
    }

    /// Removes `slug`'s device; its topics join `pendingClears`.
    public mutating func remove(_ slug: String) {
        guard let device = devices.removeValue(forKey: slug) else { return }
        queueClears(device.topics)
    }

    /// Changes every device to the topics the configuration now gives it (`topics(slug)`): a
    /// changed prefix or discovery switched off leaves the old topics to clear.
    public mutating func reconcile(_ topics: (String) -> [String]) {
        for (slug, device) in devices {
            let current = topics(slug)
            guard current != device.topics else { continue }
            queueClears(device.topics.filter { !current.contains($0) })
            devices[slug]?.topics = device.topics.filter { current.contains($0) }
        }
    }

    /// Adds `topics` to the ones to clear, keeping at most eight per device of the capacity (the
    /// oldest go: a broker away for that long has lost track of them anyway).
    private mutating func queueClears(_ topics: [String]) {
        for topic in topics where !pendingClears.contains(topic) { pendingClears.append(topic) }
        if pendingClears.count > capacity * 8 { pendingClears.removeFirst(pendingClears.count - capacity * 8) }
    }

    /// Marks `topics` as cleared on the broker.
    public mutating func cleared(_ topics: [String]) {
        pendingClears.removeAll { topics.contains($0) }
    }

    /// The persisted form: `{"devices": {slug: {name, seen, topics}}, "clear": [topics]}`.
    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        for (slug, device) in devices {
            members[slug] = [
                "name": .string(device.name), "seen": .number(device.seen),
                "topics": .array(device.topics.map { .string($0) }),
            ]
        }
        return ["version": 1, "devices": .object(members), "clear": .array(pendingClears.map { .string($0) })]
    }

    /// A registry from its persisted form; entries it cannot read are skipped, and the bound
    /// holds however large the file is.
    public init(json: JSONValue, retention: Double, capacity: Int = 1000) {
        self.init(retention: retention, capacity: capacity)
        for (slug, entry) in json["devices"]?.objectValue ?? [:] {
            guard let name = entry["name"]?.stringValue, let seen = entry["seen"]?.doubleValue, seen.isFinite else {
                continue
            }
            let topics = (entry["topics"]?.arrayValue ?? []).compactMap(\.stringValue)
            _ = saw(slug, name: name, topics: topics, at: seen)
        }
        queueClears((json["clear"]?.arrayValue ?? []).compactMap(\.stringValue))
    }
}
