public import LiveBridgeCore

/// A `mode=history` answer: jobs in post-processing first (in processing order), then finished
/// jobs, newest first.
public struct SABnzbdHistory: Sendable, Hashable {
    /// Number of jobs in post-processing.
    public var postProcessingSlots: Int
    /// The jobs in this answer.
    public var slots: [SABnzbdHistorySlot]

    /// A history; `postProcessingSlots` defaults to the slots not yet final.
    public init(postProcessingSlots: Int? = nil, slots: [SABnzbdHistorySlot] = []) {
        self.slots = slots
        self.postProcessingSlots = postProcessingSlots ?? slots.filter { !$0.isFinal }.count
    }

    /// Decodes `{"history": {…}}` (the API answer) or the inner object; returns nil for
    /// `{"history": false}` ("unchanged since `last_history_update`").
    public static func decode(answer: JSONValue) throws(SABnzbdAnswerError) -> SABnzbdHistory? {
        guard case .object(let outer) = answer else {
            throw SABnzbdAnswerError(
                "expected a JSON object with a \"history\" member, got \(SABnzbdQueue.kind(of: answer))")
        }
        if outer["status"]?.boolValue == false, let error = outer["error"]?.sabText {
            throw SABnzbdAnswerError("SABnzbd answered with an error: \"\(error)\"")
        }
        let members: [String: JSONValue]
        switch outer["history"] {
        case .bool(false)?:
            return nil
        case .object(let object)?:
            members = object
        case let other?:
            throw SABnzbdAnswerError("\"history\" is \(SABnzbdQueue.kind(of: other)), expected an object")
        case nil:
            guard outer["slots"] != nil else {
                let keys = outer.keys.sorted().prefix(6).joined(separator: ", ")
                throw SABnzbdAnswerError(
                    "the answer has no \"history\" member (members: \(keys.isEmpty ? "none" : keys))")
            }
            members = outer
        }
        var slots: [SABnzbdHistorySlot] = []
        if let list = members["slots"], case .array(let elements) = list {
            slots = elements.compactMap(SABnzbdHistorySlot.init(json:))
        } else if let list = members["slots"], !list.isNull {
            throw SABnzbdAnswerError("\"history.slots\" is \(SABnzbdQueue.kind(of: list)), expected a list")
        }
        return SABnzbdHistory(postProcessingSlots: members["ppslots"]?.sabCount, slots: slots)
    }
}

/// One job in the history: in post-processing, or finished.
public struct SABnzbdHistorySlot: Sendable, Hashable {
    /// Statuses of a job that is still being post-processed.
    public static let postProcessingStatuses: Set<String> = [
        "Queued", "QuickCheck", "Verifying", "Repairing", "Fetching", "Extracting", "Moving", "Running",
    ]

    /// SABnzbd's job id (`nzo_id`).
    public var id: String
    /// The job's name.
    public var name: String
    /// `Queued`, `QuickCheck`, `Verifying`, `Repairing`, `Fetching`, `Extracting`, `Moving`,
    /// `Running`, then `Completed` or `Failed` (`Deleted` in some versions).
    public var status: String
    /// True for the job actually being processed (waiting ones are listed above it).
    public var loaded: Bool
    /// What the processor is doing (`Repairing: 50%`, `Unpacking: Extract.Job`).
    public var actionLine: String
    /// Why the job failed or will fail; may be set while still `Queued`.
    public var failMessage: String
    /// Bytes actually fetched (0 for a job that got nothing).
    public var bytes: Double
    /// SABnzbd's own download time in seconds (excludes a global pause).
    public var downloadTime: Double
    /// SABnzbd's own post-processing time in seconds (0 until the end).
    public var postProcessingTime: Double
    /// Unix seconds the job finished — or, while in post-processing, the time of the answer.
    public var completed: Double?

    /// Creates a value with the given members.
    public init(
        id: String, name: String, status: String, loaded: Bool = false, actionLine: String = "",
        failMessage: String = "",
        bytes: Double = 0, downloadTime: Double = 0, postProcessingTime: Double = 0, completed: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.loaded = loaded
        self.actionLine = actionLine
        self.failMessage = failMessage
        self.bytes = bytes
        self.downloadTime = downloadTime
        self.postProcessingTime = postProcessingTime
        self.completed = completed
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json, let id = members["nzo_id"]?.sabText, !id.isEmpty else { return nil }
        self.id = id
        name = members["name"]?.sabText ?? members["nzb_name"]?.sabText ?? id
        status = members["status"]?.sabText ?? "Queued"
        loaded = members["loaded"]?.sabFlag ?? false
        actionLine = members["action_line"]?.sabText ?? ""
        failMessage = members["fail_message"]?.sabText ?? ""
        bytes = max(0, members["bytes"]?.sabNumber ?? members["downloaded"]?.sabNumber ?? 0)
        downloadTime = max(0, members["download_time"]?.sabNumber ?? 0)
        postProcessingTime = max(0, members["postproc_time"]?.sabNumber ?? 0)
        completed = members["completed"]?.sabNumber
    }

    /// True once the job is `Completed`, `Failed` or `Deleted`.
    public var isFinal: Bool { status == "Completed" || status == "Failed" || status == "Deleted" }

    /// True when the job failed or is doomed to (a fail message while still processing).
    public var hasFailed: Bool { status == "Failed" || (!failMessage.isEmpty && status != "Completed") }
}
