public import LiveBridgeCore

/// One message Home Assistant sends over its WebSocket API, decoded.
///
/// Pure: `HomeAssistantFrame.decode` turns a text frame (an object, or an array of objects when
/// messages are coalesced) into these, so the protocol is tested and fuzzed without sockets.
public enum HomeAssistantMessage: Sendable, Hashable {
    /// The greeting; the client must answer with `auth`.
    case authRequired(version: String?)
    /// The token was accepted.
    case authOK(version: String?)
    /// The token was refused; Home Assistant closes the socket next.
    case authInvalid(message: String)
    /// The answer to a command.
    case result(HomeAssistantResult)
    /// The answer to an application-level `ping`.
    case pong(id: Int)
    /// An event on the subscription made by command `id`.
    case event(id: Int?, HomeAssistantEvent)
    /// A message type LiveBridge does not use.
    case other(type: String)
}

/// A command's `result` message.
public struct HomeAssistantResult: Sendable, Hashable {
    /// The command's id (nil when Home Assistant could not read it).
    public var id: Int?
    /// Whether the command succeeded.
    public var success: Bool
    /// The payload of a successful command (`get_states` → array of states).
    public var value: JSONValue
    /// `id_reuse`, `invalid_format`, `unknown_command`, `not_found`, … on failure.
    public var errorCode: String?
    /// Home Assistant's explanation on failure.
    public var errorMessage: String?

    /// A result from its parts.
    public init(
        id: Int?, success: Bool, value: JSONValue = .null, errorCode: String? = nil, errorMessage: String? = nil
    ) {
        self.id = id
        self.success = success
        self.value = value
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}

/// What an `event` message carries.
public enum HomeAssistantEvent: Sendable, Hashable {
    /// A `subscribe_entities` event: full states, diffs and removals.
    case entities(HomeAssistantEntityChanges)
    /// A `state_changed` event (`subscribe_events` fallback); `newState` nil when the entity was removed.
    case stateChanged(entityID: String, newState: HomeAssistantEntityState?)
    /// Any other event type, e.g. LiveBridge's custom event fired by an automation.
    case fired(type: String, data: JSONValue, timeFired: Double?)
}

/// The body of a `subscribe_entities` event: `{"a": {id: state}, "c": {id: diff}, "r": [id]}`.
public struct HomeAssistantEntityChanges: Sendable, Hashable {
    /// Full states, keyed by entity id (the first event after subscribing holds every entity).
    public var added: [String: HomeAssistantEntityState]
    /// Diffs, keyed by entity id.
    public var changed: [String: HomeAssistantStateDiff]
    /// Entity ids that were removed.
    public var removed: [String]

    /// Changes from their parts.
    public init(
        added: [String: HomeAssistantEntityState] = [:], changed: [String: HomeAssistantStateDiff] = [:],
        removed: [String] = []
    ) {
        self.added = added
        self.changed = changed
        self.removed = removed
    }

    /// Every entity id mentioned.
    public var entityIDs: Set<String> {
        Set(added.keys).union(changed.keys).union(removed)
    }
}

/// One WebSocket text frame from Home Assistant: its messages, and the ones that could not be read.
public struct HomeAssistantFrame: Sendable, Hashable {
    /// The messages, in order.
    public var messages: [HomeAssistantMessage]
    /// What could not be read; the other messages of the frame still count.
    public var problems: [HomeAssistantDecodingError]

    /// Decodes a frame: one JSON object, or an array of them (`coalesce_messages`).
    public static func decode(_ text: String) -> HomeAssistantFrame {
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONParser.parse(text)
        } catch {
            return HomeAssistantFrame(
                messages: [], problems: [HomeAssistantDecodingError("not JSON: \(error.description)")])
        }
        var frame = HomeAssistantFrame(messages: [], problems: [])
        let elements: [JSONValue]
        if case .array(let array) = json { elements = array } else { elements = [json] }
        for (offset, element) in elements.enumerated() {
            do throws(HomeAssistantDecodingError) {
                frame.messages.append(try HomeAssistantMessage(json: element))
            } catch {
                let prefix = elements.count > 1 ? "message \(offset + 1) of \(elements.count): " : ""
                frame.problems.append(HomeAssistantDecodingError(prefix + error.message))
            }
        }
        return frame
    }
}

extension HomeAssistantMessage {
    /// Reads one message object.
    public init(json: JSONValue) throws(HomeAssistantDecodingError) {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("expected a message object")
        }
        guard let type = members["type"]?.stringValue else {
            throw HomeAssistantDecodingError("type: expected a string")
        }
        let id = members["id"]?.intValue
        switch type {
        case "auth_required":
            self = .authRequired(version: members["ha_version"]?.stringValue)
        case "auth_ok":
            self = .authOK(version: members["ha_version"]?.stringValue)
        case "auth_invalid":
            self = .authInvalid(message: members["message"]?.stringValue ?? "")
        case "pong":
            guard let id else { throw HomeAssistantDecodingError("pong: id: expected an integer") }
            self = .pong(id: id)
        case "result":
            guard let success = members["success"]?.boolValue else {
                throw HomeAssistantDecodingError("result: success: expected true or false")
            }
            let error = members["error"]
            self = .result(
                HomeAssistantResult(
                    id: id, success: success, value: members["result"] ?? .null,
                    errorCode: error?["code"]?.stringValue, errorMessage: error?["message"]?.stringValue))
        case "event":
            guard let event = members["event"] else { throw HomeAssistantDecodingError("event: missing \"event\"") }
            self = .event(id: id, try HomeAssistantEvent(json: event))
        default:
            self = .other(type: type)
        }
    }
}

extension HomeAssistantEvent {
    /// Reads an event body: the compressed entity stream when it has no `event_type`.
    public init(json: JSONValue) throws(HomeAssistantDecodingError) {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("event: expected an object")
        }
        guard let type = members["event_type"] else {
            self = .entities(try HomeAssistantEntityChanges(json: json))
            return
        }
        guard let eventType = type.stringValue else {
            throw HomeAssistantDecodingError("event.event_type: expected a string")
        }
        let data = members["data"] ?? .object([:])
        if eventType == "state_changed" {
            guard let entityID = data["entity_id"]?.stringValue else {
                throw HomeAssistantDecodingError("event.data.entity_id: expected a string")
            }
            var newState: HomeAssistantEntityState?
            if let value = data["new_state"], !value.isNull {
                newState = try HomeAssistantEntityState(full: value, path: "event.data.new_state")
            }
            self = .stateChanged(entityID: entityID, newState: newState)
            return
        }
        self = .fired(
            type: eventType, data: data, timeFired: members["time_fired"]?.stringValue.flatMap(RFC3339.parse))
    }
}

extension HomeAssistantEntityChanges {
    /// Reads `{"a": …, "c": …, "r": […]}`; every part is optional.
    public init(json: JSONValue) throws(HomeAssistantDecodingError) {
        guard case .object(let members) = json else {
            throw HomeAssistantDecodingError("event: expected an object")
        }
        self.init()
        for key in members.keys where !["a", "c", "r"].contains(key) {
            throw HomeAssistantDecodingError("event: unexpected key \"\(key)\" (expected a, c or r, or an event_type)")
        }
        if let value = members["a"], !value.isNull {
            guard case .object(let states) = value else {
                throw HomeAssistantDecodingError("event.a: expected an object")
            }
            for (entityID, state) in states {
                added[entityID] = try HomeAssistantEntityState(
                    compressed: state, entityID: entityID, path: "event.a.\(entityID)")
            }
        }
        if let value = members["c"], !value.isNull {
            guard case .object(let diffs) = value else {
                throw HomeAssistantDecodingError("event.c: expected an object")
            }
            for (entityID, diff) in diffs {
                changed[entityID] = try HomeAssistantStateDiff(json: diff, path: "event.c.\(entityID)")
            }
        }
        if let value = members["r"], !value.isNull {
            guard case .array(let ids) = value else { throw HomeAssistantDecodingError("event.r: expected a list") }
            removed = ids.compactMap(\.stringValue)
        }
    }
}
