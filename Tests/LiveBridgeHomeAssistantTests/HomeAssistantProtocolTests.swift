import LiveBridgeCore
import LiveBridgeHomeAssistant
import Testing

@Suite("Home Assistant protocol decoding")
struct HomeAssistantProtocolTests {
    static let transcripts = [
        "auth_ok.jsonl", "auth_invalid.jsonl", "subscribe_entities.jsonl", "subscribe_events_state_changed.jsonl",
        "custom_event.jsonl", "coalesce_messages.jsonl", "timer_events.jsonl", "get_states_config.jsonl",
        "error_results.jsonl", "ping_pong.jsonl",
    ]

    @Test("every message of every recorded transcript decodes without a problem", arguments: transcripts)
    func decodesRealTranscripts(_ name: String) throws {
        let inbound = try Fixture.inbound(name)
        #expect(!inbound.isEmpty)
        for message in inbound {
            let frame = HomeAssistantFrame.decode(JSONWriter.string(message))
            #expect(frame.problems.isEmpty, "\(name): \(frame.problems)")
            #expect(frame.messages.count == (message.arrayValue?.count ?? 1))
            #expect(!frame.messages.contains { if case .other = $0 { true } else { false } }, "\(name): \(message)")
        }
    }

    @Test("auth handshake messages")
    func authentication() throws {
        let ok = try Fixture.inbound("auth_ok.jsonl").map { HomeAssistantFrame.decode(JSONWriter.string($0)).messages }
        #expect(ok == [[.authRequired(version: "2024.3.3")], [.authOK(version: "2024.3.3")]])
        let invalid = try Fixture.inbound("auth_invalid.jsonl").last.map {
            HomeAssistantFrame.decode(JSONWriter.string($0))
        }
        #expect(invalid?.messages == [.authInvalid(message: "Invalid access token or password")])
        #expect(HomeAssistantCommand.authentication(token: "t0k") == #"{"access_token":"t0k","type":"auth"}"#)
    }

    @Test("a coalesced frame (JSON array) yields every message in order")
    func coalescedFrames() throws {
        let frames = try Fixture.inbound("coalesce_messages.jsonl").filter { $0.arrayValue != nil }
        #expect(frames.count >= 5)
        let pongs = HomeAssistantFrame.decode(JSONWriter.string(frames.last!)).messages
        #expect(pongs == [.pong(id: 3), .pong(id: 4), .pong(id: 5), .pong(id: 6), .pong(id: 7)])
        let first = HomeAssistantFrame.decode(JSONWriter.string(frames[0])).messages
        guard case .result(let result) = first[0], case .event(let id, .entities(let changes)) = first[1] else {
            Issue.record("expected a result and a snapshot, got \(first)")
            return
        }
        #expect(result.id == 2 && result.success && id == 2 && changes.added.count == 9)
    }

    @Test("error results keep their code and message; a null id is read as nil")
    func errorResults() throws {
        let messages = try Fixture.inbound("error_results.jsonl").flatMap {
            HomeAssistantFrame.decode(JSONWriter.string($0)).messages
        }
        let results = messages.compactMap { message -> HomeAssistantResult? in
            if case .result(let result) = message { return result }
            return nil
        }
        #expect(results.contains { $0.errorCode == "id_reuse" && $0.id == 2 && !$0.success })
        #expect(results.contains { $0.id == nil && $0.errorCode == "invalid_format" })
        #expect(
            results.contains { $0.errorCode == "not_found" && $0.errorMessage == "Service timer.explode not found." })
    }

    @Test("the compressed stream, merged, equals the full states Home Assistant reported over REST")
    func compressedStreamMatchesRESTStates() throws {
        var table = HomeAssistantStateTable()
        var snapshot = true
        // REST answers in the actions file, by time.
        let actions = try Fixture.records("subscribe_entities.actions.jsonl").filter { $0["kind"] == "rest" }
        var checked = 0
        for message in try Fixture.inbound("subscribe_entities.jsonl") {
            guard case .event(_, .entities(let changes)) = try HomeAssistantMessage(json: message) else { continue }
            _ = table.apply(changes, snapshot: snapshot)
            snapshot = false
        }
        // The final timer state after "start with duration 0:00:02" then finishing: idle, duration restored.
        let timer = try #require(table["timer.washer"])
        #expect(timer.state == "idle")
        #expect(timer.attributes["duration"] == "0:00:30")
        #expect(timer.attributes["finishes_at"] == nil && timer.attributes["remaining"] == nil)
        #expect(timer.attributes["icon"] == "mdi:washing-machine")
        #expect(table["input_select.washer_state"]?.state == "finished")
        #expect(table["input_number.print_progress"]?.state == "100.0")
        #expect(table["sensor.dishwasher_end"]?.state == "2026-11-30T02:12:41+00:00")
        #expect(table["input_datetime.dishwasher_end"]?.attributes["timestamp"] == .double(1_796_004_761.0))
        // Replay step by step and compare each REST-changed state with the table right after its diff.
        table = HomeAssistantStateTable()
        snapshot = true
        let inbound = try Fixture.records("subscribe_entities.jsonl").filter { $0["dir"] == "in" }
        for record in inbound {
            guard let message = record["msg"],
                case .event(_, .entities(let changes)) = try HomeAssistantMessage(json: message)
            else { continue }
            _ = table.apply(changes, snapshot: snapshot)
            snapshot = false
            for (entityID, _) in changes.changed {
                // The REST call that caused this diff happened just before it.
                guard let t = record["t"]?.doubleValue,
                    let action = actions.last(where: { ($0["t"]?.doubleValue ?? .infinity) <= t }),
                    let full = action["response"]?.arrayValue?.first(where: { $0["entity_id"]?.stringValue == entityID }
                    ),
                    action["t"]!.doubleValue! > t - 0.5
                else { continue }
                let rest = try HomeAssistantEntityState(full: full)
                let streamed = try #require(table[entityID])
                #expect(streamed.state == rest.state, "\(entityID) at \(t)")
                #expect(streamed.attributes == rest.attributes, "\(entityID) at \(t)")
                checked += 1
            }
        }
        #expect(checked >= 8)
    }

    @Test("state_changed events carry full new states; removal is nil")
    func stateChanged() throws {
        let events = try Fixture.inbound("subscribe_events_state_changed.jsonl").compactMap {
            json -> HomeAssistantEvent? in
            if case .event(_, let event) = try HomeAssistantMessage(json: json) { return event }
            return nil
        }
        guard case .stateChanged(let entityID, let state) = events.first else {
            Issue.record("expected state_changed")
            return
        }
        #expect(entityID == "timer.washer" && state?.state == "active")
        #expect(state?.attributes["finishes_at"] == "2026-11-30T00:43:23+00:00")
        #expect(state?.lastChanged == RFC3339.parse("2026-11-30T00:42:53.713470+00:00"))
        let removal = try HomeAssistantMessage(
            json: [
                "id": 1, "type": "event",
                "event": [
                    "event_type": "state_changed", "data": ["entity_id": "x.y", "old_state": nil, "new_state": nil],
                ],
            ])
        #expect(removal == .event(id: 1, .stateChanged(entityID: "x.y", newState: nil)))
    }

    @Test("custom events keep their data; a POST without a body is an empty object")
    func customEvents() throws {
        let fired = try Fixture.inbound("custom_event.jsonl").compactMap { json -> JSONValue? in
            if case .event(_, .fired("livebridge_update", let data, let time)) = try HomeAssistantMessage(json: json) {
                #expect(time != nil)
                return data
            }
            return nil
        }
        #expect(fired.count == 3)
        #expect(fired[0]["progress"] == 0.42 && fired[0]["nested"]?["layers"] == [12, 240])
        #expect(fired[2] == .object([:]))
    }

    @Test("commands: ids, entity filter, coalescing opt-in")
    func commands() {
        #expect(
            HomeAssistantCommand.subscribeEntities(["timer.washer"]).text(id: 2)
                == #"{"entity_ids":["timer.washer"],"id":2,"type":"subscribe_entities"}"#)
        #expect(
            HomeAssistantCommand.coalesceMessages.text(id: 1)
                == #"{"features":{"coalesce_messages":1},"id":1,"type":"supported_features"}"#)
        #expect(
            HomeAssistantCommand.subscribeEvents("livebridge").text(id: 3)
                == #"{"event_type":"livebridge","id":3,"type":"subscribe_events"}"#)
        #expect(HomeAssistantCommand.ping.text(id: 9) == #"{"id":9,"type":"ping"}"#)
    }

    @Test(
        "malformed input is reported, never a crash",
        arguments: [
            "", "not json", "<html>", "[]", "[1, 2]", #"{"type": 5}"#, #"{"type": "event"}"#,
            #"{"type": "event", "event": {"a": []}}"#, #"{"type": "event", "event": {"c": {"x.y": {"+": []}}}}"#,
            #"{"type": "event", "event": {"c": {"x.y": {"-": {"a": "s"}}}}}"#, #"{"type": "event", "event": {"q": 1}}"#,
            #"{"type": "result"}"#, #"{"type": "pong"}"#,
            #"{"type": "event", "event": {"event_type": "state_changed", "data": {"entity_id": "a.b", "new_state": {"state": 1}}}}"#,
        ])
    func malformed(_ text: String) {
        let frame = HomeAssistantFrame.decode(text)
        #expect(!frame.problems.isEmpty || frame.messages.isEmpty, "\(text)")
    }

    @Test("fuzz: byte-level mutations of real frames never crash the decoder or the mapper")
    func fuzz() throws {
        var generator = SplitMix(seed: 0x5EED)
        let corpus = try Self.transcripts.flatMap { try Fixture.inbound($0) }.map { Array(JSONWriter.string($0).utf8) }
        var mapper = HomeAssistantActivityMapper(
            mappings: [
                HomeAssistantEntityMapping(entity: "timer.washer"),
                HomeAssistantEntityMapping(entity: "input_boolean.printer_running"),
            ])
        let interesting: [UInt8] = Array(#"{}[]":,0123456789.-+aceinrst"#.utf8) + [0, 0xFF, 0xC3]
        var decoded = 0
        for round in 0..<4000 {
            var bytes = corpus[Int(generator.next() % UInt64(corpus.count))]
            for _ in 0..<(1 + Int(generator.next() % 4)) where !bytes.isEmpty {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting[Int(generator.next() % UInt64(interesting.count))], at: index)
                }
            }
            let frame = HomeAssistantFrame.decode(String(decoding: bytes, as: UTF8.self))
            for message in frame.messages {
                _ = mapper.receive(message, at: 1_796_000_000 + Double(round))
                decoded += 1
            }
        }
        #expect(decoded > 1000)
    }
}

/// A small deterministic PRNG for the fuzz loop.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
