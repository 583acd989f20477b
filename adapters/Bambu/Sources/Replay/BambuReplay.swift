public import LiveBridgeCore
public import LiveBridgeKit

/// Recorded printer traffic → activity updates, without sockets: the `livebridge replay` format
/// for Bambu printers and the bench hook for measuring pushes per print.
///
/// One JSON object per line:
/// - `{"t": 12.5, "payload": {"print": {…}}}` — a report received `t` seconds into the recording;
///   `payload` may also be the exact message text as a string (what `record.py` writes), and a
///   `topic` member, when present, must end in `/report` (request lines are skipped);
/// - `{"t": 300, "connection": "lost"}` / `"restored"` — the printer became unreachable / came back;
/// - blank lines and lines starting with `#` are ignored.
///
/// Reports go through the same decoder and `BambuActivityMapper` as the live adapter, so a replay
/// shows exactly what the adapter would have emitted. Payloads that are not JSON are skipped like
/// the adapter skips them; a line that is not a JSON object with a numeric `t` is an error.
public enum BambuReplay {
    /// How often the mapper's timers (failure settling, offline grace) are checked between records.
    public static let tickInterval: Double = 5

    /// The updates a recording produces, each with `observedAt` = `base` + its record's `t`.
    ///
    /// - Parameters:
    ///   - lines: the recording's lines.
    ///   - base: Unix time of `t = 0`.
    ///   - slug: the activity slug; default `bambu-<serial>` from the first topic, else `bambu-replay`.
    ///   - name: the activity's display name; default "Bambu Lab <serial>".
    ///   - settings: the mapper's timing rules.
    public static func updates(
        fromLines lines: [String], base: Double, slug: String? = nil, name: String? = nil,
        settings: BambuActivityMapper.Settings = BambuActivityMapper.Settings()
    ) throws(ReplayError) -> [ActivityUpdate] {
        let records = try parse(lines)
        let serial = records.lazy.compactMap(\.serial).first
        let resolvedSlug = slug ?? serial.map { "bambu-" + $0.lowercased() } ?? "bambu-replay"
        let resolvedName = name ?? serial.map { "Bambu Lab \($0)" } ?? "Bambu Lab printer"
        var mapper = BambuActivityMapper(slug: resolvedSlug, printerName: resolvedName, settings: settings)
        var updates: [ActivityUpdate] = []
        var lastTick: Double?
        for record in records {
            let time = base + record.time
            if var tick = lastTick {
                while tick + tickInterval < time {
                    tick += tickInterval
                    updates += mapper.tick(at: tick)
                }
            }
            lastTick = time
            switch record.event {
            case .report(let report):
                updates += mapper.observe(report, at: time)
            case .connection(let connected):
                updates += mapper.connectionChanged(isConnected: connected, at: time)
            case .skipped:
                updates += mapper.tick(at: time)
            }
        }
        return updates
    }

    /// True when `record` (the first line of a file) looks like this format.
    public static func detects(_ record: JSONValue) -> Bool {
        guard record["t"]?.doubleValue != nil else { return false }
        if let topic = record["topic"]?.stringValue, topic.hasPrefix("device/") { return true }
        switch record["payload"] {
        case .object(let members)?: return members["print"] != nil
        case .string(let text)?: return text.contains("\"print\"")
        default: return record["connection"]?.stringValue != nil
        }
    }

    // MARK: - Parsing

    struct Record {
        enum Event {
            case report(BambuReport)
            case connection(Bool)
            case skipped
        }

        var time: Double
        var serial: String?
        var event: Event
    }

    static func parse(_ lines: [String]) throws(ReplayError) -> [Record] {
        var records: [Record] = []
        var times = ReplayTimes()
        for (offset, line) in lines.enumerated() {
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let json: JSONValue
            do {
                json = try JSONParser.parse(trimmed)
            } catch {
                throw ReplayError(line: offset + 1, message: error.description)
            }
            guard case .object(let members) = json, let time = members["t"]?.doubleValue else {
                throw ReplayError(line: offset + 1, message: "expected an object with a numeric \"t\"")
            }
            try times.check(time, line: offset + 1)
            let topic = members["topic"]?.stringValue
            let serial = topic.flatMap(serial(inTopic:))
            if let connection = members["connection"] {
                switch connection.stringValue?.lowercased() {
                case "lost", "disconnected":
                    records.append(Record(time: time, serial: serial, event: .connection(false)))
                case "restored", "connected":
                    records.append(Record(time: time, serial: serial, event: .connection(true)))
                default:
                    throw ReplayError(
                        line: offset + 1, message: "\"connection\" must be \"lost\" or \"restored\", got \(connection)")
                }
                continue
            }
            if let topic, !topic.hasSuffix("/report") {
                records.append(Record(time: time, serial: serial, event: .skipped))
                continue
            }
            let payload: [UInt8]
            switch members["payload"] {
            case .string(let text)?: payload = Array(text.utf8)
            case let value?: payload = JSONWriter.bytes(value)
            case nil:
                throw ReplayError(line: offset + 1, message: "expected \"payload\" (a report) or \"connection\"")
            }
            let event: Record.Event
            if case .status(let report)? = try? BambuReport.decode(payload) {
                event = .report(report)
            } else {
                event = .skipped
            }
            records.append(Record(time: time, serial: serial, event: event))
        }
        return records
    }

    static func serial(inTopic topic: String) -> String? {
        let parts = topic.split(separator: "/")
        guard parts.count == 3, parts[0] == "device", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }
}
