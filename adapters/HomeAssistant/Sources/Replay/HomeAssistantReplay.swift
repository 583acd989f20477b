import FoundationEssentials
public import LiveBridgeCore
public import LiveBridgeKit

/// `livebridge replay` for Home Assistant recordings: JSONL of the WebSocket messages with their
/// arrival times, run through the same mapper as the live adapter.
///
/// ```text
/// {"homeassistant": {"entities": [{"entity": "timer.washer"}], "eventType": "livebridge"}, "start": 1795999350}
/// {"t": 0.004, "dir": "in", "msg": {"id": 2, "type": "event", "event": {"a": {…}}}}
/// {"t": 0.508, "dir": "in", "msg": [{"type": "event", …}, …]}
/// ```
///
/// - The optional first line gives the mapping (the source's `entities` and `eventType`, same
///   keys as the config) and `start`, the Unix time of `t = 0` when recorded. Without it every
///   entity of a domain with default start/end states (timer, input_boolean, …) is mapped.
/// - Records are `{"t": seconds since the start, "dir": "in"|"out", "msg": frame}` — exactly
///   what `tools/homeassistant/ws_transcripts.py` records. `out` records only mark
///   resubscriptions (the next snapshot replaces every state) and `get_states` requests.
/// - Time: observations happen at `base + t`; absolute times inside the messages (`finishes_at`,
///   timestamp sensors) move by `base − start` with them. Without `start` it is inferred from the
///   first change's `lc` or an event's `time_fired`.
public enum HomeAssistantReplay {
    /// True when a JSONL record looks like this format (for format detection).
    public static func detects(_ record: JSONValue) -> Bool {
        record["homeassistant"] != nil || (record["msg"] != nil && record["t"] != nil)
    }

    /// The observations a recording produces, with `observedAt` set: pure, no sockets, usable by
    /// benchmarks (`EconomySimulation`) and by `livebridge replay`.
    public static func updates(lines: [String], base: Double) throws(ReplayError) -> [ActivityUpdate] {
        var records: [(line: Int, t: Double, outbound: Bool, message: JSONValue)] = []
        var header: JSONValue?
        var times = ReplayTimes()
        for (offset, line) in lines.enumerated() {
            let trimmed = line.trimmingWhitespace()
            guard !trimmed.isEmpty else { continue }
            let json: JSONValue
            do throws(JSONParseError) {
                json = try JSONParser.parse(trimmed)
            } catch {
                throw ReplayError(line: offset + 1, message: error.description)
            }
            if json["homeassistant"] != nil {
                guard records.isEmpty, header == nil else {
                    throw ReplayError(line: offset + 1, message: "the header must be the first line")
                }
                header = json
                continue
            }
            guard let t = json["t"]?.doubleValue, let message = json["msg"] else {
                throw ReplayError(
                    line: offset + 1, message: "expected {\"t\": seconds, \"dir\": \"in\", \"msg\": {…}}")
            }
            try times.check(t, line: offset + 1)
            let direction = json["dir"]?.stringValue ?? "in"
            guard direction == "in" || direction == "out" else {
                throw ReplayError(line: offset + 1, message: "dir must be \"in\" or \"out\"")
            }
            records.append((offset + 1, t, direction == "out", message))
        }

        let (mappings, eventType) = try mapping(header, records: records.filter { !$0.outbound }.map(\.message))
        let start =
            header?["start"]?.doubleValue ?? inferredStart(records.filter { !$0.outbound }.map { ($0.t, $0.message) })
        var mapper = HomeAssistantActivityMapper(
            mappings: mappings, eventType: eventType, absoluteShift: start.map { base - $0 } ?? 0)
        var getStatesIDs: Set<Int> = []
        var updates: [ActivityUpdate] = []
        for record in records {
            let elements = record.message.arrayValue ?? [record.message]
            let now = base + record.t
            if record.outbound {
                for element in elements {
                    switch element["type"]?.stringValue {
                    case "subscribe_entities": mapper.expectSnapshot()
                    case "get_states": if let id = element["id"]?.intValue { getStatesIDs.insert(id) }
                    default: break
                    }
                }
                continue
            }
            for element in elements {
                let message: HomeAssistantMessage
                do throws(HomeAssistantDecodingError) {
                    message = try HomeAssistantMessage(json: element)
                } catch {
                    throw ReplayError(line: record.line, message: error.message)
                }
                if case .result(let result) = message, let id = result.id, getStatesIDs.contains(id) {
                    let states = (result.value.arrayValue ?? []).compactMap { try? HomeAssistantEntityState(full: $0) }
                    updates += mapper.replaceStates(states, at: now).updates
                } else {
                    updates += mapper.receive(message, at: now).updates
                }
            }
        }
        return updates
    }

    /// The header's mapping, or defaults for every entity with default states.
    static func mapping(_ header: JSONValue?, records: [JSONValue]) throws(ReplayError)
        -> ([HomeAssistantEntityMapping], String)
    {
        if let header {
            let problems = ConfigProblems()
            guard
                let reader = ConfigReader.object(
                    header["homeassistant"] ?? .null, path: "homeassistant", problems: problems)
            else {
                throw ReplayError(line: 1, message: "homeassistant: expected an object")
            }
            let eventType = reader.string("eventType", default: "livebridge")
            let mappings = reader.objects("entities").compactMap(HomeAssistantConfiguration.readMapping)
            reader.finish()
            if !problems.all.isEmpty {
                throw ReplayError(
                    line: 1, message: problems.all.map(\.description).joined(separator: "; "))
            }
            return (mappings, eventType)
        }
        var entities: Set<String> = []
        for record in records {
            for element in record.arrayValue ?? [record] {
                entities.formUnion(element["event"]?["a"]?.objectValue?.keys ?? [:].keys)
                if let id = element["event"]?["data"]?["entity_id"]?.stringValue { entities.insert(id) }
                for state in element["result"]?.arrayValue ?? [] {
                    if let id = state["entity_id"]?.stringValue { entities.insert(id) }
                }
            }
        }
        let mappings = entities.sorted()
            .filter {
                HomeAssistantEntityMapping.defaultStates(forDomain: HomeAssistantEntityMapping.domain(of: $0)) != nil
            }
            .map { HomeAssistantEntityMapping(entity: $0) }
        return (mappings, "livebridge")
    }

    /// The recording's start: the first change's `lc` or event's `time_fired`, minus its `t`.
    static func inferredStart(_ records: [(t: Double, message: JSONValue)]) -> Double? {
        var snapshotLatest: Double?
        for record in records {
            for element in record.message.arrayValue ?? [record.message] {
                guard let event = element["event"] else { continue }
                if let fired = event["time_fired"]?.stringValue.flatMap(HomeAssistantValueReading.timestamp) {
                    return fired - record.t
                }
                for diff in event["c"]?.objectValue?.values.map({ $0 }) ?? [] {
                    if let changed = diff["+"]?["lc"]?.doubleValue ?? diff["+"]?["lu"]?.doubleValue {
                        return changed - record.t
                    }
                }
                for state in event["a"]?.objectValue?.values.map({ $0 }) ?? [] {
                    if let changed = state["lu"]?.doubleValue ?? state["lc"]?.doubleValue {
                        snapshotLatest = max(snapshotLatest ?? changed, changed)
                    }
                }
            }
        }
        return snapshotLatest
    }
}
