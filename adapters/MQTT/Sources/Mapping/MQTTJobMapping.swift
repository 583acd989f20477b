public import LiveBridgeCore

/// How one activity reads from an MQTT source: which topics feed it and where in their JSON its
/// progress, remaining time and state are. Pure data, read from the config (`MQTTSourceConfiguration`)
/// or filled in by a preset.
public struct MQTTJobMapping: Sendable, Hashable {
    /// What a raw state value means.
    public enum Meaning: String, Sendable, Hashable, CaseIterable {
        /// No job (a printer standing by): no card, and a running card ends as done.
        case idle
        case active, paused
        case success, failure, cancelled
    }

    /// One row of the `states` table.
    public struct StateEntry: Sendable, Hashable {
        public var meaning: Meaning
        /// The card's text; nil: the raw value.
        public var label: String?

        public init(_ meaning: Meaning, _ label: String? = nil) {
            self.meaning = meaning
            self.label = label
        }
    }

    /// Where the remaining time is and what it counts.
    public struct Remaining: Sendable, Hashable {
        public enum Unit: String, Sendable, Hashable, CaseIterable {
            case seconds, minutes
            /// A Unix timestamp (seconds) of the finish.
            case timestamp
        }

        public var path: JSONPath
        public var unit: Unit

        public init(path: JSONPath, unit: Unit) {
            self.path = path
            self.unit = unit
        }
    }

    /// A value held past a threshold for a while (a plug drawing over 5 W for a minute).
    public struct Threshold: Sendable, Hashable {
        public var path: JSONPath
        public var above: Double?
        public var below: Double?
        /// Seconds the condition must hold.
        public var hold: Double

        public init(path: JSONPath, above: Double? = nil, below: Double? = nil, hold: Double = 0) {
            self.path = path
            self.above = above
            self.below = below
            self.hold = hold
        }

        func holds(_ value: Double) -> Bool {
            (above.map { value > $0 } ?? true) && (below.map { value < $0 } ?? true)
        }
    }

    /// How the remaining time is estimated when the source states none.
    public enum Estimate: String, Sendable, Hashable, CaseIterable {
        /// From the elapsed time (`elapsed`) and the progress: elapsed / progress − elapsed.
        case elapsedOverProgress = "elapsed-over-progress"
        /// From the durations of this job's past runs (an appliance's cycles), after three.
        case pastRuns = "past-runs"
    }

    /// The slicer's estimate of a file's print time, asked for over Moonraker's JSON-RPC
    /// (`server.files.metadata` → `estimated_time`) once per print.
    public struct SlicerEstimate: Sendable, Hashable {
        /// Where requests go (`<instance>/moonraker/api/request`) and answers come from.
        public var requestTopic: String
        public var responseTopic: String
        /// The printed file's name in the job's document (`status.print_stats.filename`).
        public var filename: JSONPath

        public init(requestTopic: String, responseTopic: String, filename: JSONPath) {
            self.requestTopic = requestTopic
            self.responseTopic = responseTopic
            self.filename = filename
        }
    }

    /// Topic filters (`+` and `#` allowed) whose messages feed this job.
    public var topics: [String]
    /// Payload fields that must have these values for a message to count (`{"_event": …}`).
    public var match: [JSONPath: JSONValue] = [:]
    /// The progress, divided by `progressScale` (100 for a percentage).
    public var progress: JSONPath?
    public var progressScale: Double = 1
    public var remaining: Remaining?
    public var estimate: Estimate?
    /// Seconds the job has been running (for `elapsed-over-progress`); nil: since the card started.
    public var elapsed: JSONPath?
    /// With `elapsed-over-progress`: the slicer's estimate of the whole print, which the
    /// estimate starts from and leaves as the progress grows.
    public var slicerEstimate: SlicerEstimate?
    /// The raw state value and what each value means.
    public var state: JSONPath?
    public var states: [String: StateEntry] = [:]
    /// Without a `state`: when a job starts and ends.
    public var start: Threshold?
    public var end: Threshold?
    /// A detail that rides along (the file name, the layer).
    public var subtitle: JSONPath?
    public var slug: String
    public var name: String
    public var icon: String?
    public var color: String?

    public init(topics: [String], slug: String, name: String) {
        self.topics = topics
        self.slug = slug
        self.name = name
    }
}

/// A dotted path into a JSON object (`status.print_stats.state`).
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var keys: [String]

    public init(_ text: String) {
        keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { keys.joined(separator: ".") }

    /// True when the text is a path: keys separated by dots, none empty.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && !text.split(separator: ".", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    /// The value at this path, nil when a key is missing or a step is not an object.
    public func value(in json: JSONValue) -> JSONValue? {
        var current = json
        for key in keys {
            guard let next = current.objectValue?[key] else { return nil }
            current = next
        }
        return current == .null ? nil : current
    }
}
