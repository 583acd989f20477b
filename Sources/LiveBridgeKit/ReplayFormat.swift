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

    /// Checks a record's `t` (seconds into the recording, or Unix seconds): finite and within the
    /// times an `end_date` can carry (to 9999-12-31), so every time the replay derives from it stays
    /// a time; a `t` past that is the line's error, not a trap further on.
    public static func checkTime(_ t: Double, line: Int) throws(ReplayError) {
        guard t.isFinite, abs(t) <= ActivityETA.latestFinish else {
            throw ReplayError(
                line: line, message: "\"t\": \(t) is not a time (seconds, at most \(Int(ActivityETA.latestFinish)))")
        }
    }
}
