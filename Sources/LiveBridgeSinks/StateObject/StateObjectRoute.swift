/// One endpoint of the state-object service as configured: `"POST /api/activities/{id}/end"`.
///
/// The service's document names no routes (only `POST /api/branding`), so every route is an
/// assumption the user can override. A path with `{id}` addresses one activity in the URL; a
/// path without it names the activity in the body as `"activityIds": [id]`.
public struct StateObjectRoute: Sendable, Hashable, CustomStringConvertible {
    /// HTTP method, upper case.
    public var method: String
    /// Path below the base URL, starting with `/`, optionally with an `{id}` placeholder.
    public var path: String

    public init(method: String, path: String) {
        self.method = method.uppercased()
        self.path = path
    }

    /// Parses `"METHOD /path"`; nil when the text is not of that form.
    public init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let method = parts[0].uppercased()
        guard ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method), parts[1].hasPrefix("/") else { return nil }
        self.init(method: method, path: String(parts[1]))
    }

    /// True when the activity id goes into the URL rather than the body.
    public var addressesOne: Bool { path.contains("{id}") }

    /// The path with `{id}` replaced by the percent-escaped id.
    public func path(id: String?) -> String {
        guard let id, addressesOne else { return path }
        return path.replacing("{id}", with: Self.escape(id))
    }

    public var description: String { "\(method) \(path)" }

    /// Percent-escapes everything but unreserved characters.
    static func escape(_ text: String) -> String {
        var result = ""
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%"
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}

/// The four routes the sink uses, with the defaults assumed in the project's API notes.
public struct StateObjectPaths: Sendable, Hashable {
    /// Creates an activity; answers `{"activityId": …}`. Must not contain `{id}`.
    public var start = StateObjectRoute(method: "POST", path: "/api/activities")
    /// Merges a partial state into an activity.
    public var update = StateObjectRoute(method: "POST", path: "/api/activities/update")
    /// Ends an activity, merging the final state first.
    public var end = StateObjectRoute(method: "POST", path: "/api/activities/end")
    /// Changes the brand object of running activities (the one route the service's document names).
    public var branding = StateObjectRoute(method: "POST", path: "/api/branding")

    public init() {}

    public init(start: StateObjectRoute, update: StateObjectRoute, end: StateObjectRoute, branding: StateObjectRoute) {
        self.start = start
        self.update = update
        self.end = end
        self.branding = branding
    }
}
