public import LiveBridgeCore

/// One request to the PushWard API, before it becomes an `HTTPRequest`: what `livebridge replay`
/// prints and what the sink sends.
public struct PushWardRequest: Sendable, Hashable {
    public var method: String
    /// Path below the base URL, slug percent-escaped (`/activities/sabnzbd-home`).
    public var path: String
    public var body: JSONValue?
    public var contentType: String?

    public init(method: String, path: String, body: JSONValue? = nil, contentType: String? = nil) {
        self.method = method
        self.path = path
        self.body = body
        self.contentType = contentType
    }
}

/// Renders frames into PushWard API calls (PushWard API reference §2–§4, §8).
public enum PushWardRequests {
    /// `POST /activities`: idempotent create with name, priority and TTLs.
    public static func create(_ frame: ActivityFrame) -> PushWardRequest {
        var body: [String: JSONValue] = ["slug": .string(frame.slug), "name": .string(String(frame.name.prefix(256)))]
        if let priority = frame.priority { body["priority"] = .int(Int64(min(10, max(0, priority)))) }
        if let stale = frame.ttls.stale { body["stale_ttl"] = .int(Int64(stale)) }
        if let ended = frame.ttls.ended { body["ended_ttl"] = .int(Int64(ended)) }
        if let dismissal = frame.ttls.dismissal { body["dismissal_ttl"] = .int(Int64(dismissal)) }
        return PushWardRequest(
            method: "POST", path: "/activities", body: .object(body), contentType: "application/json")
    }

    /// `PATCH /activities/{slug}` with the frame's merge patch (or its whole content when
    /// `fullContent`, used to re-seed after a create).
    public static func update(_ frame: ActivityFrame, fullContent: Bool = false) -> PushWardRequest {
        var body: [String: JSONValue] = [:]
        // An update or a final card keeps the state (omitted = keep): an explicit `ongoing` would take a
        // preempted activity back from whoever took its place, and the service would then preempt
        // another; without it the service answers 422 and the sink learns of the preemption.
        let keeps = (frame.kind == .update || frame.kind == .final) && !fullContent
        if let state = frame.activityState, !(keeps && state == "ongoing") {
            body["state"] = .string(state)
        }
        var content = fullContent || frame.kind == .seed ? frame.content : frame.patch
        if fullContent || frame.kind == .seed, case .object(var members) = content {
            // A start replaces the whole card: the service keeps an ended activity's content, and
            // a field the new job does not set (the last job's red accent, its subtitle) would
            // otherwise show on it.
            for field in GenericContent.fieldNames where members[field] == nil { members[field] = .null }
            content = .object(members)
        }
        if case .object(let members) = content, !members.isEmpty { body["content"] = content }
        if let stale = frame.ttls.stale { body["stale_ttl"] = .int(Int64(stale)) }
        if fullContent || frame.kind == .seed {
            if body["state"] == nil { body["state"] = "ongoing" }
        }
        if let priority = frame.priority, frame.kind == .seed {
            body["priority"] = .int(Int64(min(10, max(0, priority))))
        }
        return PushWardRequest(
            method: "PATCH", path: "/activities/" + escapeSlug(frame.slug), body: .object(body),
            contentType: "application/merge-patch+json")
    }

    /// The requests a frame costs when nothing goes wrong: create + seed for a seed, else one PATCH.
    public static func requests(for frame: ActivityFrame) -> [PushWardRequest] {
        frame.kind == .seed ? [create(frame), update(frame)] : [update(frame)]
    }

    /// Percent-escapes everything but unreserved characters (slugs are validated anyway).
    public static func escapeSlug(_ slug: String) -> String {
        var result = ""
        for byte in slug.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result += "%"
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}
