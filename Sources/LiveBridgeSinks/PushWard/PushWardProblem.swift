import LiveBridgeCore

/// An RFC 9457 problem answer from PushWard, matched on its stable `code` (never on `detail`).
public struct PushWardProblem: Sendable, Hashable {
    public var status: Int
    public var code: String?
    public var title: String?
    public var detail: String?
    /// `retry_after_ms` of a rate limit, in seconds.
    public var retryAfter: Double?
    /// `reset_at` of a quota error, Unix seconds.
    public var resetAt: Double?
    /// `errors[]` of a validation error, as `location: message`.
    public var errors: [String]

    /// Reads a problem body; a non-JSON body (a proxy's HTML page) still yields a problem with
    /// a detail saying what came back.
    public init(status: Int, body: [UInt8], contentType: String?) {
        self.status = status
        errors = []
        guard let json = try? JSONParser.parse(body), case .object = json else {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            if text.lowercased().contains("<html") || text.lowercased().contains("<!doctype") {
                detail = "an HTML page instead of a problem document (a proxy or captive portal in the way?)"
            } else if text.isEmpty {
                detail = "an empty body"
            } else {
                detail = "a non-JSON body"
            }
            return
        }
        code = json["code"]?.stringValue
        title = json["title"]?.stringValue
        detail = json["detail"]?.stringValue
        if let milliseconds = json["retry_after_ms"]?.doubleValue { retryAfter = milliseconds / 1000 }
        if let reset = json["reset_at"]?.stringValue { resetAt = RFC3339.parse(reset) }
        for error in json["errors"]?.arrayValue ?? [] {
            let location = error["location"]?.stringValue ?? "?"
            let message = error["message"]?.stringValue ?? "invalid"
            errors.append("\(location): \(message)")
        }
    }

    /// A one-line summary for logs and `/health`.
    public var summary: String {
        var parts: [String] = []
        if let detail { parts.append(detail) } else if let title { parts.append(title) }
        if !errors.isEmpty { parts.append("[" + errors.joined(separator: "; ") + "]") }
        return parts.joined(separator: " ")
    }
}
