public import LiveBridgeCore

/// The brand object of the state-object service: the activity's row title in the app and the
/// branding shown on the card and its cover.
///
/// Sent with the start call, and again through the branding route when the configured brand
/// (or the activity's name, the default title) changes.
public struct StateObjectBrand: Sendable, Hashable {
    /// Row title in the app; defaults to the activity's display name.
    public var title: String?
    /// Brand (source) name on the card ("SABnzbd").
    public var name: String?
    /// Brand site; its domain is shown and its favicon is the logo fallback.
    public var url: String?
    /// Logo URL.
    public var logo: String?
    /// Short description under the title on the cover.
    public var description: String?
    /// Brand accent colour: a name (`blue`) or hex, sent as `#RRGGBB`.
    public var color: String?

    public init(
        title: String? = nil, name: String? = nil, url: String? = nil, logo: String? = nil,
        description: String? = nil, color: String? = nil
    ) {
        self.title = title
        self.name = name
        self.url = url
        self.logo = logo
        self.description = description
        self.color = color
    }

    /// The brand object for one activity: the configured fields, the title defaulting to `activityName`.
    public func json(activityName: String) -> JSONValue {
        var members: [String: JSONValue] = [:]
        let resolvedTitle = title ?? (activityName.isEmpty ? nil : activityName)
        if let resolvedTitle { members["title"] = .string(resolvedTitle) }
        if let name { members["name"] = .string(name) }
        if let url { members["url"] = .string(url) }
        if let logo { members["logo"] = .string(logo) }
        if let description { members["description"] = .string(description) }
        if let color, let hex = ContentRules.hexColor(color) { members["color"] = .string(hex) }
        return .object(members)
    }
}
