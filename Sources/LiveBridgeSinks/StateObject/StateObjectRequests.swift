public import LiveBridgeCore

/// One call to the state-object service before it becomes an `HTTPRequest`: what the sink sends
/// and what a replay can print.
public struct StateObjectRequest: Sendable, Hashable {
    public var method: String
    /// Path below the base URL, the activity id percent-escaped into it when the route has `{id}`.
    public var path: String
    public var body: JSONValue

    public init(method: String, path: String, body: JSONValue) {
        self.method = method
        self.path = path
        self.body = body
    }

    /// The `state` object the call carries, if any.
    public var state: JSONValue? { body["state"] }
}

/// Builds the calls of the state-object service from configured routes.
///
/// A route with `{id}` names the activity in its path; a route without it names it in the body
/// as `"activityIds": [id]` (the form the service's `No activity matched` error speaks of).
public enum StateObjectRequests {
    /// The start call: the whole state, and the brand when there is one.
    public static func start(_ paths: StateObjectPaths, state: JSONValue, brand: JSONValue?) -> StateObjectRequest {
        var body: [String: JSONValue] = ["state": state]
        if let brand, brand != .object([:]) { body["brand"] = brand }
        return StateObjectRequest(method: paths.start.method, path: paths.start.path(id: nil), body: .object(body))
    }

    /// An update carrying only the changed fields.
    public static func update(_ paths: StateObjectPaths, id: String, changes: JSONValue) -> StateObjectRequest {
        targeted(paths.update, id: id, members: ["state": changes])
    }

    /// The end call, with the last changes (merged by the service before it ends) when there are any.
    public static func end(_ paths: StateObjectPaths, id: String, changes: JSONValue) -> StateObjectRequest {
        let hasChanges = !(changes.objectValue ?? [:]).isEmpty
        return targeted(paths.end, id: id, members: hasChanges ? ["state": changes] : [:])
    }

    /// A branding change for one activity.
    public static func branding(_ paths: StateObjectPaths, id: String, brand: JSONValue) -> StateObjectRequest {
        targeted(paths.branding, id: id, members: ["brand": brand])
    }

    private static func targeted(_ route: StateObjectRoute, id: String, members: [String: JSONValue])
        -> StateObjectRequest
    {
        var body = members
        if !route.addressesOne { body["activityIds"] = [.string(id)] }
        return StateObjectRequest(method: route.method, path: route.path(id: id), body: .object(body))
    }
}
