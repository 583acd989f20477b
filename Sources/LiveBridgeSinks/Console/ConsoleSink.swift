public import LiveBridgeCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Prints every delivered frame, as a human-readable line or as JSON Lines: a dry run that shows
/// what the push services would be sent, and when.
///
/// It has no display of its own, so its display model is a choice: by default it mirrors the
/// interpolating model (PushWard's economy, the usual main sink); `static` previews the economy
/// of the state-object service instead. Every line passes the redactor.
public struct ConsoleSink: Sink {
    /// How frames are printed.
    public enum Format: String, Sendable, CaseIterable {
        /// One readable line per frame.
        case text
        /// One JSON object per line (sorted keys).
        case jsonl
    }

    /// Writes one line (without its newline).
    public typealias Writer = @Sendable (String) -> Void

    public let name: String
    public let format: Format
    public let displayModel: DisplayModel
    private let writer: Writer
    private let clock: any TimeSource

    public var type: String { "console" }

    /// A console sink writing to `writer` (standard output by default).
    public init(
        name: String, format: Format = .text, displayModel: DisplayModel = .interpolating,
        writer: @escaping Writer = ConsoleSink.standardOutput, clock: any TimeSource = SystemClock()
    ) {
        self.name = name
        self.format = format
        self.displayModel = displayModel
        self.writer = writer
        self.clock = clock
    }

    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        let now = clock.now
        let line =
            switch format {
            case .text: ConsoleFrameFormat.text(frame, at: now)
            case .jsonl: ConsoleFrameFormat.jsonLine(frame, sink: name, at: now)
            }
        writer(Redactor.shared.redact(line))
        return DeliveryReceipt(requests: 0, appliedAt: now)
    }

    public func probe() async -> ProbeResult {
        ProbeResult(ok: true, detail: "prints frames to standard output as \(format.rawValue)")
    }

    /// Writes lines to standard output, whole lines at a time even from concurrent deliveries.
    public static let standardOutput: Writer = { line in
        let bytes = Array((line + "\n").utf8)
        standardOutputLock.withLock { _ in
            var written = 0
            while written < bytes.count {
                let result = bytes.withUnsafeBytes { buffer in
                    write(1, buffer.baseAddress! + written, buffer.count - written)
                }
                if result < 0 {
                    if errno == EINTR { continue }
                    return
                }
                written += result
            }
        }
    }
}

private let standardOutputLock = Mutex(())

/// Renders frames for the console sink: pure, so the formats are tested without a terminal.
public enum ConsoleFrameFormat {
    /// A readable line: `2026-06-15T10:00:00Z sabnzbd-home #3 update (displayError) 42% "Downloading" ·
    /// 11.8 MB/s · ends 10:07:00Z (gliding) patch {"progress":0.42}` (on one line).
    public static func text(_ frame: ActivityFrame, at now: Double) -> String {
        var parts = [
            RFC3339.format(now), frame.slug, "#\(frame.sequence)", "\(frame.kind.rawValue) (\(frame.reason.rawValue))",
        ]
        if let state = frame.activityState, state != "ongoing" { parts.append("state=\(state)") }
        if let outcome = frame.outcome { parts.append("outcome=\(outcome.rawValue)") }
        let content = frame.content
        var summary: [String] = []
        if let progress = content["progress"]?.doubleValue {
            summary.append("\(Int((min(1, max(0, progress)) * 100).rounded(.down)))%")
        }
        if let state = content["state"]?.stringValue { summary.append("\"\(state)\"") }
        var lines: [String] = []
        if let subtitle = content["subtitle"]?.stringValue { lines.append(subtitle) }
        if let endDate = content["end_date"]?.doubleValue {
            let live = content["live_progress"]?.boolValue == true ? " (gliding)" : ""
            lines.append("ends " + clockTime(endDate) + live)
        } else if let remaining = content["remaining_time"]?.doubleValue {
            lines.append("\(Int((remaining / 60).rounded(.up))) min left")
        }
        parts.append(([summary.joined(separator: " ")] + lines).filter { !$0.isEmpty }.joined(separator: " · "))
        if frame.patch != .object([:]) { parts.append("patch " + JSONWriter.string(frame.patch)) }
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// One JSON object: time, sink, slug, name, kind, reason, sequence, state, outcome, patch, content.
    public static func jsonLine(_ frame: ActivityFrame, sink: String, at now: Double) -> String {
        var object: [String: JSONValue] = [
            "time": .string(RFC3339.format(now)), "sink": .string(sink), "slug": .string(frame.slug),
            "name": .string(frame.name), "kind": .string(frame.kind.rawValue), "reason": .string(frame.reason.rawValue),
            "sequence": .int(Int64(frame.sequence)), "patch": frame.patch, "content": frame.content,
        ]
        if let state = frame.activityState { object["state"] = .string(state) }
        if let outcome = frame.outcome { object["outcome"] = .string(outcome.rawValue) }
        return JSONWriter.string(.object(object))
    }

    /// `HH:MM:SSZ` of a Unix time.
    static func clockTime(_ time: Double) -> String {
        let civil = CivilTime(unixSeconds: time)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(civil.hour)):\(two(civil.minute)):\(two(civil.second))Z"
    }
}
