public import LiveBridgeCore

/// The month's update count of the sink, for the page's budget counter.
public struct PreviewBudget: Sendable, Hashable {
    /// Updates counted this calendar month (UTC).
    public var used: Int
    /// The configured monthly budget; nil = unlimited.
    public var limit: Int?

    /// A count of `used` updates against `limit` (nil = no budget).
    public init(used: Int, limit: Int?) {
        self.used = used
        self.limit = limit
    }
}

extension PreviewBoard {
    /// The `GET /api/state` document: everything the page draws, secrets masked.
    ///
    /// The page computes the bar itself from `content` and `anchorTime` (that is the point: it
    /// runs the display model); `now` is the bridge's clock, which the page follows.
    public func json(now: Double, title: String, sink: String, budget: PreviewBudget?) -> JSONValue {
        var root: [String: JSONValue] = [
            "title": .string(title),
            "sink": .string(sink),
            "now": .double(now),
            "version": .int(Int64(version)),
            "totals": [
                "pushes": .int(Int64(pushes)), "skipped": .int(Int64(skipped)), "invalid": .int(Int64(invalid)),
                "activities": .int(Int64(activities.count)),
            ],
        ]
        if let budget {
            root["budget"] = ["used": .int(Int64(budget.used)), "limit": budget.limit.map { .int(Int64($0)) } ?? .null]
        } else {
            root["budget"] = .null
        }
        // Ongoing activities first, higher priority first (as the phone orders them by relevance),
        // then ended ones; otherwise in order of appearance.
        let ongoing = activities.filter { $0.state == .ongoing }.enumerated()
            .sorted { ($1.element.priority, $0.offset) < ($0.element.priority, $1.offset) }.map(\.element)
        let ordered = ongoing + activities.filter { $0.state == .ended }
        root["activities"] = .array(ordered.map { $0.json })
        return .object(root)
    }
}

extension PreviewActivity {
    var json: JSONValue {
        [
            "slug": .string(slug),
            "name": .string(Redactor.shared.redact(name)),
            "state": .string(state.rawValue),
            "outcome": outcome.map { .string($0.rawValue) } ?? .null,
            "content": PreviewRedaction.sanitize(content),
            "anchorTime": .double(anchorTime),
            "firstSeen": .double(firstSeen),
            "updatedAt": .double(updatedAt),
            "counters": [
                "pushes": .int(Int64(pushes)), "skipped": .int(Int64(skipped)), "invalid": .int(Int64(invalid)),
            ],
            "log": .array(log.reversed().map { $0.json }),
        ]
    }
}

extension PreviewLogEntry {
    var json: JSONValue {
        var entry: [String: JSONValue] = [
            "time": .double(time),
            "state": activityState.map { .string($0) } ?? .null,
            "sequence": sequence.map { .int(Int64($0)) } ?? .null,
            "changes": .array(changes.map { ["key": .string($0.key), "value": $0.value] }),
        ]
        switch event {
        case .push(let kind, let reason):
            entry["kind"] = .string(kind.rawValue)
            entry["reason"] = .string(reason.rawValue)
        case .invalid(let problems):
            entry["kind"] = "invalid"
            entry["reason"] = "validation"
            entry["problems"] = .array(problems.map { .string($0) })
        }
        return .object(entry)
    }
}
