public import LiveBridgeCore
public import LiveBridgeKit

/// `livebridge replay` for MQTT recordings: a header with the source's mapping, then the messages
/// with their arrival times, through the same mapper as the live adapter.
///
/// - `{"mqtt": {"preset": "moonraker", "instance": "voron"}}` — the first line: the keys of a
///   `type: "mqtt"` source entry (`host` may be left out);
/// - `{"t": 12.5, "topic": "voron/klipper/status", "payload": {…}}` — a message `t` seconds in;
///   a payload that is not JSON is given as a string.
public enum MQTTReplay {
    /// Whether a first record is an MQTT recording's header.
    public static func detects(_ json: JSONValue) -> Bool { json["mqtt"]?.objectValue != nil }

    /// The updates the live adapter would have emitted.
    public static func updates(lines: [String], base: Double) throws(ReplayError) -> [ActivityUpdate] {
        var configuration: MQTTSourceConfiguration?
        var mappers: [MQTTJobMapper] = []
        var updates: [ActivityUpdate] = []
        // Timeouts tick from the first record on: before it no job exists to time out.
        var lastTime: Double?
        var times = ReplayTimes()
        for (offset, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            let json: JSONValue
            do throws(JSONParseError) {
                json = try JSONParser.parse(line)
            } catch {
                throw ReplayError(line: offset + 1, message: error.description)
            }
            if let header = json["mqtt"]?.objectValue {
                guard configuration == nil else {
                    throw ReplayError(line: offset + 1, message: "the {\"mqtt\": …} header must come once, first")
                }
                var keys = header
                keys["host"] = keys["host"] ?? "replay"
                let problems = ConfigProblems()
                guard let reader = ConfigReader.object(.object(keys), path: "mqtt", problems: problems),
                    let read = MQTTSourceConfiguration.read(
                        ComponentConfig(path: "mqtt", name: "replay", type: "mqtt", reader: reader))
                else {
                    throw ReplayError(
                        line: offset + 1, message: problems.all.map(\.description).joined(separator: "; "))
                }
                configuration = read
                mappers = read.jobs.map { MQTTJobMapper(mapping: $0, offlineGrace: read.offlineGrace) }
                continue
            }
            guard let configuration else {
                throw ReplayError(line: offset + 1, message: "the first line must be the {\"mqtt\": {…}} header")
            }
            guard let t = json["t"]?.doubleValue, let topic = json["topic"]?.stringValue, let payload = json["payload"]
            else {
                throw ReplayError(line: offset + 1, message: "expected {\"t\": seconds, \"topic\": …, \"payload\": …}")
            }
            try times.check(t, line: offset + 1)
            let now = base + t
            let bytes = Array((payload.stringValue ?? JSONWriter.string(payload)).utf8)
            for index in mappers.indices {
                for tick in stride(from: (lastTime ?? now) + 5, to: now, by: 5) {
                    updates += mappers[index].tick(at: tick).updates
                }
            }
            lastTime = max(lastTime ?? now, now)
            for availability in configuration.availability {
                guard let offline = availability.says(topic: topic, payload: bytes) else { continue }
                for index in mappers.indices {
                    updates += mappers[index].availability(online: !offline, at: now).updates
                }
            }
            for index in mappers.indices {
                updates += mappers[index].receive(topic: topic, payload: bytes, at: now).updates
            }
        }
        guard configuration != nil else { throw ReplayError(line: 1, message: "no {\"mqtt\": {…}} header") }
        return updates
    }
}
