import LiveBridgeCore

/// A message LiveBridge sends to Home Assistant's WebSocket API.
///
/// Every command after `auth` carries an id that must increase per connection; the session
/// allocates it and writes the frame in the same step, so ids always go out in order.
public enum HomeAssistantCommand: Sendable, Hashable {
    /// `{"type":"supported_features","features":{"coalesce_messages":1}}`: allow arrays of messages per frame.
    case coalesceMessages
    /// `subscribe_entities` for these entity ids (a snapshot, then diffs).
    case subscribeEntities([String])
    /// `subscribe_events` for one event type (`state_changed`, `livebridge`).
    case subscribeEvents(String)
    /// `get_states`: every state (resync in the `state_changed` fallback).
    case getStates
    /// Application-level keepalive, answered with `pong`.
    case ping

    /// The JSON text with `id`.
    public func text(id: Int) -> String {
        var members: [String: JSONValue] = ["id": .int(Int64(id))]
        switch self {
        case .coalesceMessages:
            members["type"] = "supported_features"
            members["features"] = ["coalesce_messages": 1]
        case .subscribeEntities(let entityIDs):
            members["type"] = "subscribe_entities"
            members["entity_ids"] = .array(entityIDs.map { .string($0) })
        case .subscribeEvents(let eventType):
            members["type"] = "subscribe_events"
            members["event_type"] = .string(eventType)
        case .getStates:
            members["type"] = "get_states"
        case .ping:
            members["type"] = "ping"
        }
        return JSONWriter.string(.object(members))
    }

    /// The `auth` message (no id). Contains the token: never log it.
    public static func authentication(token: String) -> String {
        JSONWriter.string(["type": "auth", "access_token": .string(token)])
    }
}
