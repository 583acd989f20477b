import LiveBridgeCore

/// A refused call's body, `{statusCode, error, message}`, where `message` is a string or (as a
/// NestJS validation error sends it) an array of strings.
public struct StateObjectProblem: Sendable, Hashable {
    public var status: Int
    /// The HTTP reason phrase the service puts in `error`.
    public var error: String?
    /// The message(s): `FREE_TIER_LIMIT_REACHED`, `No activity matched`, validation texts.
    public var messages: [String]
    /// What came back when the body was not the expected JSON (`an HTML page`, `an empty body`).
    public var bodyNote: String?

    /// Reads an error body; a body that is not the expected JSON still gives a problem that says
    /// what came back.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        messages = []
        guard let json = try? JSONParser.parse(body), case .object = json else {
            let text = String(decoding: body.prefix(200), as: UTF8.self).lowercased()
            if text.contains("<html") || text.contains("<!doctype") {
                bodyNote = "an HTML page instead of an error body (a proxy in the way, or a wrong url?)"
            } else if text.isEmpty {
                bodyNote = "an empty body"
            } else {
                bodyNote = "a body that is not JSON"
            }
            return
        }
        error = json["error"]?.stringValue
        switch json["message"] {
        case .string(let text)?: messages = [text]
        case .array(let items)?: messages = items.compactMap(\.stringValue)
        default: break
        }
        if let code = json["code"]?.stringValue, messages.isEmpty { messages = [code] }
    }

    /// True when any message is exactly `code` (the service's stable messages are codes).
    public func has(_ code: String) -> Bool { messages.contains(code) }

    /// True for the 404 `No activity matched` answer (a 404 saying anything else is a wrong route).
    public var isNoActivityMatched: Bool {
        status == 404 && messages.contains { $0.lowercased().contains("no activity matched") }
    }

    /// One line for logs and `/health`.
    public var summary: String {
        if !messages.isEmpty { return messages.joined(separator: "; ") }
        return bodyNote ?? error ?? "no message"
    }
}
