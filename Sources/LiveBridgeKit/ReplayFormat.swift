public import LiveBridgeCore

/// A way to turn a recording into timestamped observations for `livebridge replay`.
public struct ReplayFormat: Sendable {
    public var name: String
    public var summary: String
    /// Whether a recording's first record is in this format (for `replay` without `--format`).
    public var detects: @Sendable (JSONValue) -> Bool
    /// Parses the whole file (JSONL) into updates with `observedAt` = `base` + the record's `t`.
    public var parse: @Sendable (_ lines: [String], _ base: Double) throws -> [ActivityUpdate]

    public init(
        name: String, summary: String, detects: @escaping @Sendable (JSONValue) -> Bool = { _ in false },
        parse: @escaping @Sendable (_ lines: [String], _ base: Double) throws -> [ActivityUpdate]
    ) {
        self.name = name
        self.summary = summary
        self.detects = detects
        self.parse = parse
    }
}

/// A recording line that could not be read, in any replay format.
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// What is wrong with the line.
    public var message: String

    /// An error at 1-based `line`.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line N: message`.
    public var description: String { "line \(line): \(message)" }
}

/// The times of a recording's records, checked as a format reads them: each `t` (seconds into the
/// recording, or Unix seconds) finite, within the times an `end_date` can carry (to 9999-12-31),
/// and within `longestSpan` of the first record's. A `t` past that is its line's error, not a
/// trap or an endless replay further on (the display is measured on a one-second grid, MQTT's
/// timeouts tick every 5 s between records).
public struct ReplayTimes: Sendable {
    /// The longest a recording may span: a month, far past any job a Live Activity shows (iOS
    /// ends one after 8 hours); more is relative and absolute times mixed up.
    public static let longestSpan: Double = 31 * 86400

    /// The first record's `t`.
    private var first: Double?

    public init() {}

    /// Checks the `t` of the record at 1-based `line`.
    public mutating func check(_ t: Double, line: Int) throws(ReplayError) {
        guard t.isFinite, abs(t) <= ActivityETA.latestFinish else {
            throw ReplayError(
                line: line, message: "\"t\": \(t) is not a time (seconds, at most \(Int(ActivityETA.latestFinish)))")
        }
        guard let first else {
            self.first = t
            return
        }
        guard abs(t - first) <= Self.longestSpan else {
            throw ReplayError(
                line: line,
                message: "\"t\": \(t) is \(Int((abs(t - first) / 86400).rounded())) days from the first record's "
                    + "(\(first)); a recording spans at most 31 days (relative and Unix times mixed?)")
        }
    }
}
