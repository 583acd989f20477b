public import LiveBridgeCore

/// One entity's state as Home Assistant reports it: the state string and the typed attributes.
///
/// Built from a full state object (REST, `get_states`, `state_changed`) or from the compressed
/// form of `subscribe_entities`, and kept current by applying that stream's diffs.
public struct HomeAssistantEntityState: Sendable, Hashable {
    /// `timer.washer`.
    public var entityID: String
    /// The state; always a string in Home Assistant (`"active"`, `"42.0"`, `"unavailable"`).
    public var state: String
    /// Typed attributes (`finishes_at`, `unit_of_measurement`, `friendly_name`, …).
    public var attributes: [String: JSONValue]
    /// When the state string last changed (Unix seconds), when known.
    public var lastChanged: Double?
    /// When the state or an attribute last changed (Unix seconds), when known.
    public var lastUpdated: Double?

    /// A state from its parts.
    public init(
        entityID: String, state: String, attributes: [String: JSONValue] = [:], lastChanged: Double? = nil,
        lastUpdated: Double? = nil
    ) {
        self.entityID = entityID
        self.state = state
        self.attributes = attributes
        self.lastChanged = lastChanged
        self.lastUpdated = lastUpdated ?? lastChanged
    }

    /// The domain, the part before the dot (`timer`).
    public var domain: String {
        String(entityID.prefix { $0 != "." })
    }

    /// True for `unavailable` and `unknown`: such a state never starts, ends or updates anything.
    public var isUnavailable: Bool {
        Self.unavailableStates.contains(state)
    }

    /// States that carry no information about the job.
    public static let unavailableStates: Set<String> = ["unavailable", "unknown"]

    /// The `friendly_name` attribute.
    public var friendlyName: String? { attributes["friendly_name"]?.stringValue }
    /// The `unit_of_measurement` attribute.
    public var unit: String? { attributes["unit_of_measurement"]?.stringValue }
    /// The `device_class` attribute.
    public var deviceClass: String? { attributes["device_class"]?.stringValue }

    // MARK: - Decoding

    /// Reads a full state object: `{"entity_id", "state", "attributes", "last_changed", "last_updated", …}`.
    public init(full json: JSONValue, path: String = "state") throws(HomeAssistantDecodingError) {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("\(path): expected a state object")
        }
        guard let entityID = members["entity_id"]?.stringValue, !entityID.isEmpty else {
            throw HomeAssistantDecodingError("\(path).entity_id: expected a string")
        }
        guard let state = members["state"]?.stringValue else {
            throw HomeAssistantDecodingError("\(path).state: expected a string")
        }
        var attributes: [String: JSONValue] = [:]
        if let value = members["attributes"], !value.isNull {
            guard case .object(let object) = value else {
                throw HomeAssistantDecodingError("\(path).attributes: expected an object")
            }
            attributes = object
        }
        let changed = members["last_changed"]?.stringValue.flatMap(RFC3339.parse)
        let updated = members["last_updated"]?.stringValue.flatMap(RFC3339.parse)
        self.init(entityID: entityID, state: state, attributes: attributes, lastChanged: changed, lastUpdated: updated)
    }

    /// Reads the compressed form of `subscribe_entities`: `{"s", "a", "c", "lc", "lu"}` (no id inside).
    public init(compressed json: JSONValue, entityID: String, path: String = "state") throws(HomeAssistantDecodingError)
    {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("\(path): expected a compressed state object")
        }
        guard let state = members["s"]?.stringValue else {
            throw HomeAssistantDecodingError("\(path).s: expected the state string")
        }
        var attributes: [String: JSONValue] = [:]
        if let value = members["a"], !value.isNull {
            guard case .object(let object) = value else {
                throw HomeAssistantDecodingError("\(path).a: expected an object of attributes")
            }
            attributes = object
        }
        let changed = members["lc"]?.doubleValue
        // `lu` is omitted when it equals `lc`.
        let updated = members["lu"]?.doubleValue ?? changed
        self.init(entityID: entityID, state: state, attributes: attributes, lastChanged: changed, lastUpdated: updated)
    }

    /// Applies one `subscribe_entities` diff: new state, merged and removed attributes, times.
    public mutating func apply(_ diff: HomeAssistantStateDiff) {
        if let state = diff.state { self.state = state }
        for (key, value) in diff.changedAttributes { attributes[key] = value }
        for key in diff.removedAttributes { attributes[key] = nil }
        if let changed = diff.lastChanged {
            lastChanged = changed
            lastUpdated = changed
        } else if let updated = diff.lastUpdated {
            lastUpdated = updated
        }
    }
}

/// One entity's change in the compressed stream: `{"+": {"s", "a", "lc", "lu", "c"}, "-": {"a": [names]}}`.
public struct HomeAssistantStateDiff: Sendable, Hashable {
    /// The new state string, only when it changed.
    public var state: String?
    /// Added or changed attributes, to merge.
    public var changedAttributes: [String: JSONValue]
    /// Attributes to delete.
    public var removedAttributes: [String]
    /// New `last_changed` (implies `last_updated`).
    public var lastChanged: Double?
    /// New `last_updated` alone.
    public var lastUpdated: Double?

    /// A diff from its parts.
    public init(
        state: String? = nil, changedAttributes: [String: JSONValue] = [:], removedAttributes: [String] = [],
        lastChanged: Double? = nil, lastUpdated: Double? = nil
    ) {
        self.state = state
        self.changedAttributes = changedAttributes
        self.removedAttributes = removedAttributes
        self.lastChanged = lastChanged
        self.lastUpdated = lastUpdated
    }

    /// Reads a diff; the context (`c`) is ignored, LiveBridge has no use for it.
    public init(json: JSONValue, path: String = "diff") throws(HomeAssistantDecodingError) {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("\(path): expected a diff object")
        }
        self.init()
        if let plus = members["+"], !plus.isNull {
            guard case .object(let added) = plus else {
                throw HomeAssistantDecodingError("\(path).+: expected an object")
            }
            if let value = added["s"], !value.isNull {
                guard let text = value.stringValue else {
                    throw HomeAssistantDecodingError("\(path).+.s: expected the state string")
                }
                state = text
            }
            if let value = added["a"], !value.isNull {
                guard case .object(let attributes) = value else {
                    throw HomeAssistantDecodingError("\(path).+.a: expected an object of attributes")
                }
                changedAttributes = attributes
            }
            lastChanged = added["lc"]?.doubleValue
            lastUpdated = added["lu"]?.doubleValue
        }
        if let minus = members["-"], !minus.isNull {
            guard case .object(let removed) = minus else {
                throw HomeAssistantDecodingError("\(path).-: expected an object")
            }
            if let value = removed["a"], !value.isNull {
                guard case .array(let names) = value else {
                    throw HomeAssistantDecodingError("\(path).-.a: expected a list of attribute names")
                }
                removedAttributes = names.compactMap(\.stringValue)
            }
        }
    }
}
