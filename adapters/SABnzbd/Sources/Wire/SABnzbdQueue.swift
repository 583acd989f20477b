public import LiveBridgeCore

/// A `mode=queue` answer: the downloader's state and the jobs still to download.
///
/// Decoded leniently because SABnzbd sends the queue's numbers as strings and versions differ in
/// small ways; only the shape (an object with a `queue` object) is required.
public struct SABnzbdQueue: Sendable, Hashable {
    /// Top status: `Downloading`, `Idle` or `Paused` — throughput only, never "no work".
    public var status: String
    /// The whole queue is paused (`mode=pause`, or paused for post-processing).
    public var paused: Bool
    /// SABnzbd's speed meter in bytes per second (decays slowly; not a stall detector).
    public var bytesPerSecond: Double
    /// Bytes of the jobs that count toward the totals (not per-job paused ones).
    public var totalBytes: Double
    /// Bytes still to download of those jobs.
    public var remainingBytes: Double
    /// SABnzbd's own estimate (`H:MM:SS` or `D:HH:MM:SS`; `0:00:00` whenever the speed is 0).
    public var timeLeft: String?
    /// Number of jobs in the queue (also when the answer was limited to one slot).
    public var totalSlots: Int
    /// The jobs in this answer, in queue order.
    public var slots: [SABnzbdQueueSlot]
    /// SABnzbd's version (`4.5.0`).
    public var version: String?

    /// Creates a value with the given members.
    public init(
        status: String = "Idle", paused: Bool = false, bytesPerSecond: Double = 0, totalBytes: Double = 0,
        remainingBytes: Double = 0, timeLeft: String? = nil, totalSlots: Int? = nil, slots: [SABnzbdQueueSlot] = [],
        version: String? = nil
    ) {
        self.status = status
        self.paused = paused
        self.bytesPerSecond = bytesPerSecond
        self.totalBytes = totalBytes
        self.remainingBytes = remainingBytes
        self.timeLeft = timeLeft
        self.totalSlots = totalSlots ?? slots.count
        self.slots = slots
        self.version = version
    }

    /// Decodes `{"queue": {…}}` (the API answer) or the inner object itself.
    public init(answer: JSONValue) throws(SABnzbdAnswerError) {
        guard case .object(let outer) = answer else {
            throw SABnzbdAnswerError("expected a JSON object with a \"queue\" member, got \(Self.kind(of: answer))")
        }
        if outer["status"]?.boolValue == false, let error = outer["error"]?.sabText {
            throw SABnzbdAnswerError("SABnzbd answered with an error: \"\(error)\"")
        }
        let members: [String: JSONValue]
        if let inner = outer["queue"] {
            guard case .object(let object) = inner else {
                throw SABnzbdAnswerError("\"queue\" is \(Self.kind(of: inner)), expected an object")
            }
            members = object
        } else if outer["slots"] != nil && outer["status"] != nil {
            members = outer
        } else {
            let keys = outer.keys.sorted().prefix(6).joined(separator: ", ")
            throw SABnzbdAnswerError("the answer has no \"queue\" member (members: \(keys.isEmpty ? "none" : keys))")
        }
        status = members["status"]?.sabText ?? "Idle"
        paused = members["paused"]?.sabFlag ?? (status == "Paused")
        bytesPerSecond = max(0, (members["kbpersec"]?.sabNumber ?? 0) * SABnzbdUnits.kibibyte)
        totalBytes = max(0, (members["mb"]?.sabNumber ?? 0) * SABnzbdUnits.mebibyte)
        remainingBytes = max(0, (members["mbleft"]?.sabNumber ?? 0) * SABnzbdUnits.mebibyte)
        timeLeft = members["timeleft"]?.sabText
        version = members["version"]?.sabText
        var decoded: [SABnzbdQueueSlot] = []
        if let list = members["slots"], case .array(let elements) = list {
            decoded = elements.compactMap(SABnzbdQueueSlot.init(json:))
        } else if let list = members["slots"], !list.isNull {
            throw SABnzbdAnswerError("\"queue.slots\" is \(Self.kind(of: list)), expected a list")
        }
        slots = decoded
        totalSlots =
            members["noofslots_total"]?.sabCount ?? members["noofslots"]?.sabCount
            ?? decoded.count
    }

    /// SABnzbd's `timeleft` in seconds, when it is a clock text with 3 or 4 parts.
    public var timeLeftSeconds: Double? { timeLeft.flatMap(SABnzbdClock.seconds) }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// One job in the queue.
public struct SABnzbdQueueSlot: Sendable, Hashable {
    /// SABnzbd's job id (`SABnzbd_nzo_91q545xh`): the only stable key.
    public var id: String
    /// The job name as shown in SABnzbd (`filename`).
    public var name: String
    /// `Downloading` (also for jobs only waiting their turn), `Queued` (global pause), `Paused`
    /// (this job paused), `Propagating`, `Checking`, `Fetching`, `Grabbing`.
    public var status: String
    /// Bytes of the job, par2 volumes included.
    public var totalBytes: Double
    /// Bytes still to download.
    public var remainingBytes: Double
    /// SABnzbd's labels (`PROPAGATING 1 min`, `DUPLICATE`, `ENCRYPTED`; translated text).
    public var labels: [String]
    /// The slot's cumulative time left (its bytes plus those above it).
    public var timeLeft: String?

    /// Creates a value with the given members.
    public init(
        id: String, name: String, status: String, totalBytes: Double, remainingBytes: Double, labels: [String] = [],
        timeLeft: String? = nil
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.totalBytes = totalBytes
        self.remainingBytes = remainingBytes
        self.labels = labels
        self.timeLeft = timeLeft
    }

    /// Decodes one slot; nil when it has no job id (nothing could track it).
    init?(json: JSONValue) {
        guard case .object(let members) = json, let id = members["nzo_id"]?.sabText, !id.isEmpty else { return nil }
        self.id = id
        name = members["filename"]?.sabText ?? members["name"]?.sabText ?? id
        status = members["status"]?.sabText ?? "Downloading"
        let total = max(0, (members["mb"]?.sabNumber ?? 0) * SABnzbdUnits.mebibyte)
        totalBytes = total
        remainingBytes = min(total, max(0, (members["mbleft"]?.sabNumber ?? 0) * SABnzbdUnits.mebibyte))
        labels = members["labels"]?.sabLabels ?? []
        timeLeft = members["timeleft"]?.sabText
    }

    /// Bytes already downloaded.
    public var doneBytes: Double { max(0, totalBytes - remainingBytes) }
}

/// SABnzbd's clock texts: `H:MM:SS` with unpadded hours, `D:HH:MM:SS` from 24 h on.
public enum SABnzbdClock {
    /// Seconds for a 3- or 4-part clock text; nil for anything else (no ETA rather than a wrong one).
    public static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4 else { return nil }
        return ClockText.seconds(text)
    }

    /// The clock SABnzbd writes for `seconds` (`H:MM:SS`, whole seconds, hours past 24 as hours).
    public static func text(_ seconds: Double) -> String {
        let whole = Int(SABnzbdText.clampedSeconds(seconds).rounded())
        let minutes = whole / 60 % 60
        let rest = whole % 60
        return "\(whole / 3600):\(minutes < 10 ? "0" : "")\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }
}
