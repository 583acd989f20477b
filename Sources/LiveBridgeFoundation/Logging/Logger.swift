import Synchronization

/// Severity of a log line.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error, critical

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }

    /// Parses `info`, `debug`, … (case-insensitive).
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }
}

/// One log event after redaction, handed to a `LogHandler`.
public struct LogRecord: Sendable {
    /// Unix seconds.
    public var time: Double
    public var level: LogLevel
    /// Which component logged (`sabnzbd.home`, `sink.phone`).
    public var label: String
    public var message: String
    public var metadata: [(String, String)]

    /// The record as one logfmt line (no trailing newline).
    public var logfmt: String {
        var line = "ts=\(Self.formatTime(time)) level=\(level) logger=\(Self.quote(label)) msg=\(Self.quote(message))"
        for (key, value) in metadata { line += " \(key)=\(Self.quote(value))" }
        return line
    }

    static func quote(_ value: String) -> String {
        // CR and CRLF too: Swift sees "\r\n" as one Character that is not "\n", and either would
        // start a forged line in the journal.
        let needsQuotes =
            value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline })
        guard needsQuotes else { return value }
        var escaped = "\""
        for character in value {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\r\n": escaped += "\\r\\n"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }

    /// RFC 3339 UTC with milliseconds.
    package static func formatTime(_ time: Double) -> String {
        let civil = CivilTime(unixSeconds: time)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))T\(pad(civil.hour, 2)):"
            + "\(pad(civil.minute, 2)):\(pad(civil.second, 2)).\(pad(civil.millisecond, 3))Z"
    }
}

/// Where log records go: stderr in the program, memory in tests.
public protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}

/// A small value-type logger in the shape of swift-log: `logger.info("…", ["key": "value"])`.
///
/// Messages and metadata pass through `Redactor` before any handler sees them, so no handler
/// can leak a registered secret.
public struct Logger: Sendable {
    public var label: String
    public var level: LogLevel
    public var handler: any LogHandler
    public var metadata: [(String, String)] = []
    public var redactor: Redactor
    public var now: @Sendable () -> Double

    public init(
        label: String, level: LogLevel = .info, handler: any LogHandler, redactor: Redactor = .shared,
        now: @escaping @Sendable () -> Double = { SystemClock().now }
    ) {
        self.label = label
        self.level = level
        self.handler = handler
        self.redactor = redactor
        self.now = now
    }

    /// A logger that discards everything.
    public static var disabled: Logger { Logger(label: "none", level: .critical, handler: NullLogHandler()) }

    /// A child logger with a sub-label (`sabnzbd` → `sabnzbd.home`) and extra metadata.
    public func child(_ sublabel: String, metadata extra: [(String, String)] = []) -> Logger {
        var copy = self
        copy.label = label.isEmpty ? sublabel : label + "." + sublabel
        copy.metadata += extra
        return copy
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        var pairs = self.metadata
        for key in metadata.keys.sorted() { pairs.append((key, metadata[key]!)) }
        let record = LogRecord(
            time: now(), level: level, label: label, message: redactor.redact(message()),
            metadata: pairs.map { ($0.0, redactor.redact($0.1)) })
        handler.log(record)
    }

    public func trace(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.trace, message(), metadata)
    }
    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }
    public func notice(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.notice, message(), metadata)
    }
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }
}

/// Drops every record.
public struct NullLogHandler: LogHandler {
    public init() {}
    public func log(_ record: LogRecord) {}
}

/// Keeps records in memory so tests can assert on log lines (and on redaction).
public final class InMemoryLogHandler: LogHandler {
    private let storage = Mutex<[LogRecord]>([])

    public init() {}

    public func log(_ record: LogRecord) { storage.withLock { $0.append(record) } }

    /// Every record so far.
    public var records: [LogRecord] { storage.withLock { $0 } }

    /// Every record as a logfmt line.
    public var lines: [String] { records.map(\.logfmt) }

    /// Forgets the records.
    public func reset() { storage.withLock { $0.removeAll() } }
}

/// Fans records out to several handlers.
public struct MultiplexLogHandler: LogHandler {
    public var handlers: [any LogHandler]
    public init(_ handlers: [any LogHandler]) { self.handlers = handlers }
    public func log(_ record: LogRecord) { for handler in handlers { handler.log(record) } }
}
