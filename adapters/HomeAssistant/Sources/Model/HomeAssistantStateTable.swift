/// The states of the entities LiveBridge watches, kept current from snapshots and diffs.
///
/// A value type: the session owns one and feeds it what arrives; every method returns the ids
/// whose state it changed, which is what the mapper re-evaluates.
public struct HomeAssistantStateTable: Sendable, Hashable {
    /// Current states by entity id.
    public private(set) var states: [String: HomeAssistantEntityState] = [:]
    /// When set, only these ids are kept (the `state_changed` fallback sees every entity).
    public var watched: Set<String>?

    /// An empty table, optionally limited to `watched` ids.
    public init(watched: Set<String>? = nil) {
        self.watched = watched
    }

    /// The state of `entityID`, if known.
    public subscript(entityID: String) -> HomeAssistantEntityState? { states[entityID] }

    private func isWatched(_ entityID: String) -> Bool { watched?.contains(entityID) ?? true }

    /// Applies a `subscribe_entities` event; `snapshot` replaces the table with its `a` states
    /// (the first event after every (re)subscription), so entities gone meanwhile are dropped.
    public mutating func apply(_ changes: HomeAssistantEntityChanges, snapshot: Bool = false) -> Set<String> {
        var touched: Set<String> = []
        if snapshot {
            touched = Set(states.keys)
            states = [:]
        }
        for (entityID, state) in changes.added where isWatched(entityID) {
            states[entityID] = state
            touched.insert(entityID)
        }
        for (entityID, diff) in changes.changed where isWatched(entityID) {
            // A diff for an entity never seen in full cannot be applied; it is picked up on resync.
            guard var state = states[entityID] else { continue }
            state.apply(diff)
            states[entityID] = state
            touched.insert(entityID)
        }
        for entityID in changes.removed where states.removeValue(forKey: entityID) != nil {
            touched.insert(entityID)
        }
        return touched
    }

    /// Sets one full state (`state_changed`, REST poll); nil removes the entity.
    public mutating func set(_ entityID: String, _ state: HomeAssistantEntityState?) -> Set<String> {
        guard isWatched(entityID) else { return [] }
        guard states[entityID] != state else { return [] }
        states[entityID] = state
        return [entityID]
    }

    /// Replaces every state with `all` (`get_states` after a reconnect).
    public mutating func replaceAll(_ all: [HomeAssistantEntityState]) -> Set<String> {
        var touched = Set(states.keys)
        states = [:]
        for state in all where isWatched(state.entityID) {
            states[state.entityID] = state
            touched.insert(state.entityID)
        }
        return touched
    }
}
