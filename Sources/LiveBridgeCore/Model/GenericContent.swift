/// The generic template's content: what a Live Activity card shows.
///
/// Every field is tri-state so one type serves both whole documents and merge patches. Field
/// names on the wire are the spec's snake_case ones.
public struct GenericContent: Sendable, Hashable {
    /// Always `"generic"` for this template; required by the service on the seed.
    public var template: Field<String> = nil
    /// Bar fill 0…1; required by the spec on a full document.
    public var progress: Field<Double> = nil
    /// Short status text ("Downloading").
    public var state: Field<String> = nil
    /// SF Symbol name or an `mdi:` icon.
    public var icon: Field<String> = nil
    /// Seconds left, shown as a countdown label.
    public var remainingTime: Field<Int> = nil
    /// Line under the bar.
    public var subtitle: Field<String> = nil
    /// Named colour or `#RRGGBB`.
    public var accentColor: Field<String> = nil
    /// Named colour or `#RRGGBB`.
    public var backgroundColor: Field<String> = nil
    /// Named colour or `#RRGGBB`.
    public var textColor: Field<String> = nil
    /// Unix seconds of the expected finish, the anchor of `live_progress`.
    public var endDate: Field<Int> = nil
    /// Unix seconds; must be before `end_date`.
    public var startDate: Field<Int> = nil
    /// When true the phone animates the bar toward 1.0 at `end_date`.
    public var liveProgress: Field<Bool> = nil
    /// Seconds or `"1h30m"`; the service turns it into `end_date`. LiveBridge prefers `end_date`.
    public var duration: Field<DurationValue> = nil
    /// https image shown on the card.
    public var imageURL: Field<String> = nil
    /// `poster`, `square` or `circle`.
    public var imageShape: Field<String> = nil
    /// ThumbHash placeholder for the image.
    public var imageThumbhash: Field<String> = nil
    /// Legacy first button URL.
    public var url: Field<String> = nil
    /// Legacy second button URL.
    public var secondaryURL: Field<String> = nil
    /// Tap on the card background.
    public var tapAction: Field<ActionObject> = nil
    /// First button under the bar.
    public var urlAction: Field<ActionObject> = nil
    /// Second button under the bar.
    public var secondaryURLAction: Field<ActionObject> = nil

    /// An empty content (every field absent).
    public init() {}

    /// Content with the fields adapters set most.
    public init(
        progress: Double? = nil, state: String? = nil, icon: String? = nil, subtitle: String? = nil,
        accentColor: String? = nil
    ) {
        self.progress = Field(progress)
        self.state = Field(state)
        self.icon = Field(icon)
        self.subtitle = Field(subtitle)
        self.accentColor = Field(accentColor)
    }
}

/// `duration` is either whole seconds or a string such as `"1h30m"`.
public enum DurationValue: Sendable, Hashable {
    case seconds(Int)
    case text(String)

    /// The duration in seconds, or nil when the text does not match `^(\d+|(\d+[hms])+)$`.
    public var seconds: Int? {
        switch self {
        case .seconds(let value): return value
        case .text(let text): return DurationText.seconds(text)
        }
    }
}

/// A tap target or button: `tap_action`, `url_action`, `secondary_url_action`.
public struct ActionObject: Sendable, Hashable {
    /// Required on a full document; may be absent in a patch that only renames the button.
    public var url: String?
    /// http(s) only: open in the browser rather than fire a silent request.
    public var foreground: Bool?
    /// HTTP method of a silent request.
    public var method: String?
    /// Headers of a silent request (≤ 1024 bytes in total).
    public var headers: [String: String]?
    /// Body of a silent request (≤ 1024 characters).
    public var body: String?
    /// Button label (buttons only, ≤ 64).
    public var title: String?
    /// Button SF Symbol (buttons only, ≤ 64).
    public var icon: String?

    public init(
        url: String? = nil, foreground: Bool? = nil, method: String? = nil, headers: [String: String]? = nil,
        body: String? = nil, title: String? = nil, icon: String? = nil
    ) {
        self.url = url
        self.foreground = foreground
        self.method = method
        self.headers = headers
        self.body = body
        self.title = title
        self.icon = icon
    }
}

// MARK: - JSON

extension ActionObject {
    /// The action as a JSON object (nil members omitted).
    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if let url { members["url"] = .string(url) }
        if let foreground { members["foreground"] = .bool(foreground) }
        if let method { members["method"] = .string(method) }
        if let headers { members["headers"] = .object(headers.mapValues { .string($0) }) }
        if let body { members["body"] = .string(body) }
        if let title { members["title"] = .string(title) }
        if let icon { members["icon"] = .string(icon) }
        return .object(members)
    }

    /// Reads an action object; wrong member types are reported by path.
    public init(json: JSONValue, path: String) throws(ContentDecodingError) {
        guard case .object(let members) = json else { throw ContentDecodingError(path: path, expected: "an object") }
        self.init()
        for (key, value) in members {
            let memberPath = path + "." + key
            switch key {
            case "url": url = try value.decodeString(memberPath)
            case "foreground": foreground = try value.decodeBool(memberPath)
            case "method": method = try value.decodeString(memberPath)
            case "headers":
                guard case .object(let headerMembers) = value else {
                    throw ContentDecodingError(path: memberPath, expected: "an object of strings")
                }
                var result: [String: String] = [:]
                for (name, headerValue) in headerMembers {
                    result[name] = try headerValue.decodeString(memberPath + "." + name)
                }
                headers = result
            case "body": body = try value.decodeString(memberPath)
            case "title": title = try value.decodeString(memberPath)
            case "icon": icon = try value.decodeString(memberPath)
            default: throw ContentDecodingError(path: memberPath, expected: "a known action member")
            }
        }
    }
}

/// A content document or patch whose JSON has the wrong shape.
public struct ContentDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the document (`content.progress`).
    public var path: String
    /// What was expected there.
    public var expected: String

    public init(path: String, expected: String) {
        self.path = path
        self.expected = expected
    }

    public var description: String { "\(path): expected \(expected)" }
}

extension JSONValue {
    func decodeString(_ path: String) throws(ContentDecodingError) -> String {
        guard case .string(let text) = self else { throw ContentDecodingError(path: path, expected: "a string") }
        return text
    }

    func decodeBool(_ path: String) throws(ContentDecodingError) -> Bool {
        guard case .bool(let flag) = self else { throw ContentDecodingError(path: path, expected: "true or false") }
        return flag
    }

    func decodeDouble(_ path: String) throws(ContentDecodingError) -> Double {
        guard let number = doubleValue else { throw ContentDecodingError(path: path, expected: "a number") }
        return number
    }

    func decodeInt(_ path: String) throws(ContentDecodingError) -> Int {
        guard let number = intValue else { throw ContentDecodingError(path: path, expected: "an integer") }
        return number
    }
}

extension GenericContent {
    /// Wire names in the order the spec lists them.
    public static let fieldNames: [String] = [
        "template", "progress", "state", "icon", "remaining_time", "subtitle", "accent_color",
        "background_color", "text_color", "end_date", "start_date", "live_progress", "duration", "image_url",
        "image_shape", "image_thumbhash", "url", "secondary_url", "tap_action", "url_action",
        "secondary_url_action",
    ]

    /// The content as a JSON object: absent fields omitted, `null` fields written as `null`.
    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        func put<T>(_ name: String, _ field: Field<T>, _ encode: (T) -> JSONValue) {
            switch field {
            case .absent: break
            case .null: members[name] = .null
            case .value(let value): members[name] = encode(value)
            }
        }
        put("template", template) { .string($0) }
        put("progress", progress) { .number($0) }
        put("state", state) { .string($0) }
        put("icon", icon) { .string($0) }
        put("remaining_time", remainingTime) { .int(Int64($0)) }
        put("subtitle", subtitle) { .string($0) }
        put("accent_color", accentColor) { .string($0) }
        put("background_color", backgroundColor) { .string($0) }
        put("text_color", textColor) { .string($0) }
        put("end_date", endDate) { .int(Int64($0)) }
        put("start_date", startDate) { .int(Int64($0)) }
        put("live_progress", liveProgress) { .bool($0) }
        put("duration", duration) { value in
            switch value {
            case .seconds(let seconds): return .int(Int64(seconds))
            case .text(let text): return .string(text)
            }
        }
        put("image_url", imageURL) { .string($0) }
        put("image_shape", imageShape) { .string($0) }
        put("image_thumbhash", imageThumbhash) { .string($0) }
        put("url", url) { .string($0) }
        put("secondary_url", secondaryURL) { .string($0) }
        put("tap_action", tapAction) { $0.json }
        put("url_action", urlAction) { $0.json }
        put("secondary_url_action", secondaryURLAction) { $0.json }
        return .object(members)
    }

    /// Reads content from JSON. Unknown members are errors unless `ignoringUnknown` (the
    /// service's answers may carry read-only extras such as `snoozed_until`).
    public init(json: JSONValue, path: String = "content", ignoringUnknown: Bool = false)
        throws(ContentDecodingError)
    {
        guard case .object(let members) = json else { throw ContentDecodingError(path: path, expected: "an object") }
        self.init()
        for (key, value) in members {
            let fieldPath = path + "." + key
            switch key {
            case "template":
                template = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "progress":
                progress = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeDouble(fieldPath) }
            case "state":
                state = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "icon":
                icon = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "remaining_time":
                remainingTime = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeInt(fieldPath) }
            case "subtitle":
                subtitle = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "accent_color":
                accentColor = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "background_color":
                backgroundColor = try Self.field(value) { v throws(ContentDecodingError) in
                    try v.decodeString(fieldPath)
                }
            case "text_color":
                textColor = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "end_date":
                endDate = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeInt(fieldPath) }
            case "start_date":
                startDate = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeInt(fieldPath) }
            case "live_progress":
                liveProgress = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeBool(fieldPath) }
            case "duration":
                duration = try Self.field(value) { v throws(ContentDecodingError) -> DurationValue in
                    if let seconds = v.intValue { return .seconds(seconds) }
                    if case .string(let text) = v { return .text(text) }
                    throw ContentDecodingError(path: fieldPath, expected: "seconds or a string like \"1h30m\"")
                }
            case "image_url":
                imageURL = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "image_shape":
                imageShape = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "image_thumbhash":
                imageThumbhash = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath)
                }
            case "url": url = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "secondary_url":
                secondaryURL = try Self.field(value) { v throws(ContentDecodingError) in try v.decodeString(fieldPath) }
            case "tap_action":
                tapAction = try Self.field(value) { v throws(ContentDecodingError) in
                    try ActionObject(json: v, path: fieldPath)
                }
            case "url_action":
                urlAction = try Self.field(value) { v throws(ContentDecodingError) in
                    try ActionObject(json: v, path: fieldPath)
                }
            case "secondary_url_action":
                secondaryURLAction = try Self.field(value) { v throws(ContentDecodingError) in
                    try ActionObject(json: v, path: fieldPath)
                }
            default:
                if !ignoringUnknown {
                    throw ContentDecodingError(path: fieldPath, expected: "a generic-template field")
                }
            }
        }
    }

    private static func field<T>(
        _ value: JSONValue, _ decode: (JSONValue) throws(ContentDecodingError) -> T
    ) throws(ContentDecodingError) -> Field<T> {
        if value.isNull { return .null }
        return .value(try decode(value))
    }

    /// This content with `patch` merged on top (RFC 7396 semantics, `null` clears).
    public func merged(with patch: GenericContent) -> GenericContent {
        let result = MergePatch.apply(patch.json, to: json)
        return (try? GenericContent(json: result)) ?? self
    }
}

extension GenericContent: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
