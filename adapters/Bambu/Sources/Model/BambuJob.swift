public import LiveBridgeCore

/// The print job an activity follows: what stays fixed for the job's life, and what the end
/// frame needs after the printer has moved on (the last progress, the first error code).
///
/// Persisted in the state store while a job runs, so a bridge restarted after the job finished
/// still ends its activity instead of leaving it on the phone until it goes stale.
public struct BambuJob: Sendable, Hashable {
    /// The job's title, latched at the start so a P1S clearing `gcode_file` at the end does not
    /// change the card's subtitle (and cost a push).
    public var name: String?
    /// `task_id` when the printer gives a real one (not `"0"`).
    public var taskID: String?
    /// When tracking started (Unix seconds).
    public var startedAt: Double
    /// The last progress seen while printing or paused, 0…1 (kept for a cancel or failure).
    public var lastProgress: Double

    /// A job starting now.
    public init(name: String?, taskID: String?, startedAt: Double, lastProgress: Double = 0) {
        self.name = name
        self.taskID = taskID
        self.startedAt = startedAt
        self.lastProgress = lastProgress
    }

    /// The job as stored: `{"name": …, "taskID": …, "startedAt": …, "lastProgress": …}`.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "startedAt": .number(startedAt), "lastProgress": .number(lastProgress),
        ]
        if let name { members["name"] = .string(name) }
        if let taskID { members["taskID"] = .string(taskID) }
        return .object(members)
    }

    /// Reads a stored job; nil when the document is not one.
    public init?(json: JSONValue) {
        guard let startedAt = json["startedAt"]?.doubleValue else { return nil }
        self.init(
            name: json["name"]?.stringValue, taskID: json["taskID"]?.stringValue, startedAt: startedAt,
            lastProgress: min(1, max(0, json["lastProgress"]?.doubleValue ?? 0)))
    }
}
