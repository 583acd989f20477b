import Foundation
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeMQTT
import LiveBridgeNet
import Testing

/// Sessions in the shape each system publishes (OctoPrint-MQTT 0.8, Moonraker
/// `[mqtt]`, Zigbee2MQTT plugs), through the presets' mappings.
@Suite("MQTT source: presets on recorded-shape sessions")
struct MQTTPresetTests {
    /// Reads a `type: "mqtt"` entry's keys.
    static func configuration(_ keys: String) throws -> (MQTTSourceConfiguration?, [String]) {
        let config = try ConfigLoader.parse(
            text: "{ sinks: [], sources: [ { name: \"lab\", type: \"mqtt\", host: \"broker\", \(keys) } ] }",
            environment: [:])
        let entry = try #require(config.sources.first)
        let read = MQTTSourceConfiguration.read(entry)
        return (read, config.problems.all.map(\.description))
    }

    static func mapper(_ keys: String, pastRuns: [Double] = []) throws -> MQTTJobMapper {
        let (read, problems) = try configuration(keys)
        #expect(problems.isEmpty, "\(problems)")
        let configuration = try #require(read)
        return MQTTJobMapper(
            mapping: try #require(configuration.jobs.first), offlineGrace: configuration.offlineGrace,
            pastRuns: pastRuns)
    }

    /// Feeds `(t, topic, payload)` messages and ticks every 5 s in between; every update.
    static func play(_ mapper: inout MQTTJobMapper, _ messages: [(Double, String, String)]) -> [ActivityUpdate] {
        var updates: [ActivityUpdate] = []
        var last = 0.0
        for (t, topic, payload) in messages {
            for tick in stride(from: last + 5, to: t, by: 5) { updates += mapper.tick(at: tick).updates }
            last = t
            updates += mapper.receive(topic: topic, payload: Array(payload.utf8), at: t).updates
        }
        return updates
    }

    @Test("OctoPrint: a print with a pause that fails; whole percents, printer_data's time left, the events' course")
    func octoPrint() throws {
        var mapper = try Self.mapper(#"preset: "octoprint""#)
        var messages: [(Double, String, String)] = [
            (0, "octoPrint/progress/printing", #"{"location":"local","path":"","progress":0}"#),
            (
                10, "octoPrint/event/PrintStarted",
                #"{"name":"benchy.gcode","path":"benchy.gcode","_event":"PrintStarted"}"#
            ),
        ]
        for percent in 1...40 {
            messages.append(
                (
                    10 + Double(percent) * 30, "octoPrint/progress/printing",
                    #"{"path":"benchy.gcode","progress":\#(percent),"printer_data":{"progress":{"printTimeLeft":\#((100 - percent) * 30),"printTime":\#(percent * 30)}}}"#
                ))
        }
        messages.append((1300, "octoPrint/event/PrintPaused", #"{"name":"benchy.gcode","_event":"PrintPaused"}"#))
        messages.append((1500, "octoPrint/event/PrintResumed", #"{"name":"benchy.gcode","_event":"PrintResumed"}"#))
        messages.append((1530, "octoPrint/progress/printing", #"{"path":"benchy.gcode","progress":41}"#))
        messages.append(
            (1560, "octoPrint/event/PrintFailed", #"{"name":"benchy.gcode","reason":"error","_event":"PrintFailed"}"#))
        let updates = Self.play(&mapper, messages)
        #expect(updates.first?.phase == .active)
        #expect(updates.first?.content.state.value == "Printing")
        #expect(updates.first?.details.subtitle.value == "benchy.gcode")
        let at20 = try #require(updates.first { $0.progress == 0.2 })
        #expect(at20.progressResolution == 0.01)
        #expect(at20.eta == .remaining(2400))
        #expect(updates.first?.statesFinish == true, "printer_data's time left: a first frame without it waits")
        #expect(updates.contains { $0.phase == .paused && $0.content.state.value == "Paused" })
        #expect(updates.last?.phase == .ended(.failure))
        #expect(updates.last?.content.state.value == "Failed")
        #expect(updates.last?.progress == 0.41)
        #expect(updates.filter { $0.phase.isEnded }.count == 1)
    }

    @Test(
        "Moonraker: deltas merge into the whole status; the remaining time is the print duration over the progress; a cancel ends it"
    )
    func moonraker() throws {
        var mapper = try Self.mapper(#"preset: "moonraker", instance: "voron""#)
        let topic = "voron/klipper/status"
        var messages: [(Double, String, String)] = [
            (
                0, topic,
                #"{"eventtime":578243.5,"status":{"print_stats":{"state":"standby","filename":"","print_duration":0},"display_status":{"progress":0},"virtual_sdcard":{"progress":0}}}"#
            ),
            (
                5, topic,
                #"{"eventtime":578248.5,"status":{"print_stats":{"state":"printing","filename":"cube.gcode"}}}"#
            ),
        ]
        for step in 1...20 {
            let duration = Double(step) * 60
            messages.append(
                (
                    5 + duration, topic,
                    #"{"eventtime":\#(578248.5 + duration),"status":{"print_stats":{"print_duration":\#(duration)},"display_status":{"progress":\#(Double(step) / 50)}}}"#
                ))
        }
        messages.append((1300, topic, #"{"eventtime":579548.5,"status":{"print_stats":{"state":"cancelled"}}}"#))
        messages.append((1310, topic, #"{"eventtime":579558.5,"status":{"print_stats":{"state":"standby"}}}"#))
        let updates = Self.play(&mapper, messages)
        #expect(updates.first?.content.state.value == "Printing")
        #expect(updates.first?.details.subtitle.value == "cube.gcode")
        // After a delta naming only the duration and the progress, the state and file still stand.
        let tenth = try #require(updates.first { $0.progress == 0.2 })
        #expect(tenth.content.state.value == "Printing")
        #expect(tenth.details.subtitle.value == "cube.gcode")
        #expect(tenth.eta == .remaining(600 / 0.2 - 600))
        #expect(updates.last?.phase == .ended(.cancelled))
        #expect(updates.filter { $0.phase.isEnded }.count == 1, "standby after the end starts nothing")
    }

    @Test(
        "Moonraker with slicerEstimate: one JSON-RPC request per print; the answer starts the estimate from the slicer and the progress takes over; errors said once"
    )
    func moonrakerSlicerEstimate() throws {
        var mapper = try Self.mapper(#"preset: "moonraker", instance: "voron", slicerEstimate: true"#)
        let status = "voron/klipper/status"
        let response = "voron/moonraker/api/response"
        func receive(_ t: Double, _ topic: String, _ payload: String) -> MQTTJobMapper.Output {
            mapper.receive(topic: topic, payload: Array(payload.utf8), at: t)
        }
        let started = receive(
            0, status,
            #"{"eventtime":1,"status":{"print_stats":{"state":"printing","filename":"cube.gcode","print_duration":0},"display_status":{"progress":0}}}"#
        )
        let request = try #require(started.requests.first)
        #expect(started.requests.count == 1)
        #expect(request.topic == "voron/moonraker/api/request")
        let rpc = try JSONParser.parse(request.payload)
        #expect(rpc["jsonrpc"]?.stringValue == "2.0")
        #expect(rpc["method"]?.stringValue == "server.files.metadata")
        #expect(rpc["params"]?["filename"]?.stringValue == "cube.gcode")
        let id = try #require(rpc["id"]?.doubleValue)
        #expect(started.updates.first?.eta == nil, "no estimate before the answer and below 1 %")
        // The next delta asks nothing again.
        let delta = receive(
            60, status,
            #"{"eventtime":61,"status":{"print_stats":{"print_duration":60},"display_status":{"progress":0.005}}}"#)
        #expect(delta.requests.isEmpty)
        // Whatever else shares the response topic and is not JSON is not this job's: no update, nothing said.
        let garbage = receive(61, response, "not json")
        #expect(garbage.updates.isEmpty && garbage.problem == nil && garbage.requests.isEmpty)
        // Another client's answer about another file is not this print's.
        let other = receive(
            61, response, #"{"jsonrpc":"2.0","result":{"filename":"other.gcode","estimated_time":99},"id":7}"#)
        #expect(other.updates.isEmpty && other.problem == nil)
        // The answer: below 1 % the estimate is the slicer's total less the print duration, and it
        // is stamped with the time of the status it was computed from.
        let answered = receive(
            62, response,
            #"{"jsonrpc":"2.0","result":{"filename":"cube.gcode","estimated_time":3600,"slicer":"PrusaSlicer"},"id":\#(Int(id))}"#
        )
        let first = try #require(answered.updates.first)
        #expect(first.eta == .remaining(3540))
        #expect(first.observedAt == 60)
        // Halfway, half the slicer's remaining time and half the progress's.
        let half = receive(
            1500, status,
            #"{"eventtime":1501,"status":{"print_stats":{"print_duration":1500},"display_status":{"progress":0.5}}}"#)
        let blended: Double = 0.5 * (3600 - 1500) + 0.5 * 1500
        #expect(half.updates.first?.eta == .remaining(blended))
        #expect(half.requests.isEmpty)
        // Done; the next print of the same file needs no question, its estimate is known.
        _ = receive(3000, status, #"{"eventtime":3001,"status":{"print_stats":{"state":"complete"}}}"#)
        let again = receive(
            3100, status,
            #"{"eventtime":3101,"status":{"print_stats":{"state":"printing","filename":"cube.gcode","print_duration":0},"display_status":{"progress":0}}}"#
        )
        #expect(again.requests.isEmpty)
        #expect(again.updates.first?.eta == .remaining(3600))
        _ = receive(3200, status, #"{"eventtime":3201,"status":{"print_stats":{"state":"cancelled"}}}"#)

        // A file Moonraker does not know: its error is said once, the estimate stays the progress's.
        let unknown = receive(
            4000, status,
            #"{"eventtime":4001,"status":{"print_stats":{"state":"printing","filename":"gone.gcode","print_duration":0}}}"#
        )
        let asked = try JSONParser.parse(try #require(unknown.requests.first).payload)
        let failed = receive(
            4001, response,
            #"{"jsonrpc":"2.0","error":{"code":404,"message":"File not found"},"id":\#(Int(try #require(asked["id"]?.doubleValue)))}"#
        )
        #expect(failed.problem?.contains("gone.gcode: File not found") == true, "\(failed.problem ?? "")")
        let later = receive(
            4600, status,
            #"{"eventtime":4601,"status":{"print_stats":{"print_duration":600},"display_status":{"progress":0.2}}}"#)
        #expect(later.requests.isEmpty, "asked once per print")
        #expect(later.updates.first?.eta == .remaining(600 / 0.2 - 600))
        // A reconnection asks again what was not answered.
        #expect(mapper.availability(online: false, at: 4700).requests.isEmpty)
        let back = mapper.availability(online: true, at: 4710)
        #expect(back.requests.count == 1)
        // Metadata without an estimate (a slicer that writes none) is said, and changes nothing.
        let resent = try JSONParser.parse(try #require(back.requests.first).payload)
        let empty = receive(
            4711, response,
            #"{"jsonrpc":"2.0","result":{"filename":"gone.gcode","size":1234},"id":\#(Int(try #require(resent["id"]?.doubleValue)))}"#
        )
        #expect(empty.problem?.contains("no slicer estimate") == true)
        #expect(empty.updates.isEmpty)
    }

    @Test("without slicerEstimate the Moonraker preset neither asks nor subscribes to the API's answers")
    func moonrakerWithoutSlicer() throws {
        let (read, _) = try Self.configuration(#"preset: "moonraker", instance: "voron""#)
        #expect(try #require(read).topicFilters == ["voron/klipper/status", "voron/moonraker/status"])
        let (withSlicer, _) = try Self.configuration(#"preset: "moonraker", instance: "voron", slicerEstimate: true"#)
        #expect(try #require(withSlicer).topicFilters.contains("voron/moonraker/api/response"))
        var mapper = try Self.mapper(#"preset: "moonraker", instance: "voron""#)
        let output = mapper.receive(
            topic: "voron/klipper/status",
            payload: Array(#"{"status":{"print_stats":{"state":"printing","filename":"cube.gcode"}}}"#.utf8), at: 0)
        #expect(output.requests.isEmpty && output.updates.count == 1)
        #expect(output.updates.first?.statesFinish == false, "Moonraker states no time left: its pace is waited for")
    }

    /// One washer cycle on a plug from `start`: warm-up, washing, an optional soak, spin, off.
    static func cycle(from start: Double, soak: Bool) -> [(Double, String, String)] {
        var messages: [(Double, String, String)] = []
        var t = start
        func power(_ watts: Double, for seconds: Double) {
            let end = t + seconds
            while t < end {
                messages.append((t, "zigbee2mqtt/washer_plug", #"{"state":"ON","power":\#(watts),"energy":15.3}"#))
                t += 30
            }
        }
        power(1, for: 120)
        power(420, for: 900)
        if soak { power(1.5, for: 150) }
        power(180, for: 600)
        power(1, for: 600)
        return messages
    }

    @Test(
        "a washer on a plug: three cycles, a soak shorter than the end hold does not end one; the fourth has an estimate"
    )
    func powerPlug() throws {
        var mapper = try Self.mapper(#"preset: "power-plug", device: "washer_plug""#)
        var updates: [ActivityUpdate] = []
        var starts: [Double] = []
        for (index, start) in [0.0, 5000, 10000].enumerated() {
            let cycle = Self.play(&mapper, Self.cycle(from: start, soak: index == 1))
            starts.append(try #require(cycle.first?.observedAt))
            #expect(cycle.filter { $0.phase.isEnded }.count == 1, "cycle \(index) ended once")
            #expect(cycle.last?.phase == .ended(.success))
            #expect(cycle.dropLast().allSatisfy { $0.eta == nil }, "no estimate before three cycles")
            updates += cycle
        }
        // Started once power held above 5 W for a minute; ended after 3 minutes under 3 W.
        #expect(starts[0] >= 120 + 60 && starts[0] <= 120 + 60 + 30)
        #expect(mapper.pastRuns.count == 3)
        #expect(mapper.pastRuns.allSatisfy { $0 >= 1500 - 30 && $0 <= 1650 + 30 }, "\(mapper.pastRuns)")
        let fourth = Self.play(&mapper, Self.cycle(from: 15000, soak: false))
        let first = try #require(fourth.first)
        guard case .remaining(let left)? = first.eta else {
            Issue.record("no estimate on the fourth cycle: \(String(describing: first.eta))")
            return
        }
        #expect(abs(left - mapper.pastRuns.sorted()[1]) < 120)
    }

    @Test("bad input is reported once per change of the problem; the card keeps its last good values")
    func badInput() throws {
        var mapper = try Self.mapper(#"preset: "moonraker", instance: "voron""#)
        let topic = "voron/klipper/status"
        let start = mapper.receive(
            topic: topic,
            payload: Array(#"{"status":{"print_stats":{"state":"printing"},"display_status":{"progress":0.3}}}"#.utf8),
            at: 0)
        #expect(start.updates.first?.progress == 0.3)
        let garbage = mapper.receive(topic: topic, payload: Array("not json".utf8), at: 1)
        #expect(garbage.problem?.contains("the payload is not JSON") == true)
        #expect(garbage.updates.isEmpty)
        #expect(mapper.receive(topic: topic, payload: Array("still not".utf8), at: 2).problem == nil, "said once")
        let wrongType = mapper.receive(
            topic: topic, payload: Array(#"{"status":{"display_status":{"progress":"half"}}}"#.utf8), at: 3)
        #expect(wrongType.problem?.contains("progress at status.display_status.progress is a string") == true)
        #expect(wrongType.updates.first?.progress == 0.3, "the last good progress")
        let good = mapper.receive(
            topic: topic, payload: Array(#"{"status":{"display_status":{"progress":0.35}}}"#.utf8), at: 4)
        #expect(good.problem == nil)
        #expect(good.updates.first?.progress == 0.35)
        let again = mapper.receive(topic: topic, payload: Array("{".utf8), at: 5)
        #expect(again.problem != nil, "a problem after a good message is said again")
        let array = mapper.receive(topic: topic, payload: Array("[1,2]".utf8), at: 6)
        #expect(array.problem?.contains("expected a JSON object, got an array") == true)
    }

    @Test("the source's last will pauses a running card after the grace, and the next message resumes it")
    func offline() throws {
        var mapper = try Self.mapper(#"preset: "moonraker", instance: "voron", offlineGrace: "30s""#)
        let topic = "voron/klipper/status"
        _ = mapper.receive(
            topic: topic,
            payload: Array(#"{"status":{"print_stats":{"state":"printing"},"display_status":{"progress":0.5}}}"#.utf8),
            at: 0)
        #expect(mapper.availability(online: false, at: 10).updates.isEmpty)
        #expect(mapper.tick(at: 35).updates.isEmpty)
        let shown = mapper.tick(at: 40).updates
        #expect(shown.count == 1 && shown[0].phase == .paused && shown[0].content.state.value == "Offline")
        #expect(mapper.tick(at: 45).updates.isEmpty, "said once")
        let back = mapper.receive(
            topic: topic, payload: Array(#"{"status":{"display_status":{"progress":0.52}}}"#.utf8), at: 60)
        #expect(back.updates.first?.phase == .active)
    }

    @Test("preset keys are overridden field by field; mistakes name their key")
    func configurationKeys() throws {
        let (read, problems) = try Self.configuration(
            #"preset: "octoprint", baseTopic: "printers/mk4/", displayName: "MK4", icon: "cube", slug: "mk4", progress: {path: "progress", scale: 100}"#
        )
        #expect(problems.isEmpty, "\(problems)")
        let job = try #require(read?.jobs.first)
        #expect(job.topics == ["printers/mk4/progress/printing", "printers/mk4/event/+"])
        #expect(job.name == "MK4" && job.icon == "cube" && job.slug == "mk4")
        #expect(read?.availability.first?.topic == "printers/mk4/mqtt")
        #expect(
            read?.session.subscriptions.map(\.topicFilter) == [
                "printers/mk4/progress/printing", "printers/mk4/event/+", "printers/mk4/mqtt",
            ])
        for (keys, expected) in [
            (#"preset: "moonraker""#, "sources[0].instance: required"),
            (#"preset: "klipper""#, "sources[0].preset: \"klipper\" is not one of"),
            (#"topics: ["a/#/b"], state: "s""#, "is not a topic filter"),
            (#"topics: ["a"], progress: "a..b", state: "s""#, "is not a path"),
            (#"topics: ["a"]"#, "sources[0].state: give state"),
            (#"topics: ["a"], start: {path: "power", above: 5}"#, "sources[0].end: required with start"),
            (#"topics: ["a"], state: "s", states: {on: "running"}"#, "sources[0].states.on: \"running\" is not one of"),
            (
                #"jobs: [{topics: ["a"], state: "s", slug: "x"}, {topics: ["b"], state: "s", slug: "x"}]"#,
                "two jobs have the slug \"x\""
            ),
        ] {
            let (configuration, problems) = try Self.configuration(keys)
            #expect(configuration == nil, "\(keys)")
            #expect(problems.contains { $0.contains(expected) }, "\(keys): \(problems)")
        }
    }

    @Test("topic filters: + is one level, # the rest")
    func filters() {
        #expect(MQTTTopicFilter.matches("octoPrint/event/+", topic: "octoPrint/event/PrintDone"))
        #expect(!MQTTTopicFilter.matches("octoPrint/event/+", topic: "octoPrint/event/a/b"))
        #expect(MQTTTopicFilter.matches("zigbee2mqtt/#", topic: "zigbee2mqtt/plug/availability"))
        #expect(MQTTTopicFilter.matches("zigbee2mqtt/#", topic: "zigbee2mqtt"))
        #expect(!MQTTTopicFilter.matches("zigbee2mqtt/plug", topic: "zigbee2mqtt/plug/availability"))
    }

    @Test("replay: the same session as a recording gives the mapper's updates")
    func replay() throws {
        var lines = [#"{"mqtt": {"preset": "power-plug", "device": "washer_plug"}}"#]
        for (t, topic, payload) in Self.cycle(from: 0, soak: true) {
            lines.append(#"{"t": \#(t), "topic": "\#(topic)", "payload": \#(payload)}"#)
        }
        let updates = try MQTTReplay.updates(lines: lines, base: 1000)
        var mapper = try Self.mapper(#"preset: "power-plug", device: "washer_plug""#)
        let direct = Self.play(&mapper, Self.cycle(from: 0, soak: true))
        #expect(updates.map(\.phase) == direct.map(\.phase))
        #expect(updates.last?.phase == .ended(.success))
        #expect(throws: ReplayError(line: 1, message: "the first line must be the {\"mqtt\": {…}} header")) {
            try MQTTReplay.updates(lines: [#"{"t": 0, "topic": "a", "payload": {}}"#], base: 0)
        }
    }

    @Test("replay: a recording in Unix seconds gives the same session as in seconds from its start, moved in time")
    func replayUnixTimes() throws {
        let shift = 1_795_999_136.0
        let header = #"{"mqtt": {"preset": "power-plug", "device": "washer_plug"}}"#
        let record = { (t: Double, topic: String, payload: String) in
            #"{"t": \#(t), "topic": "\#(topic)", "payload": \#(payload)}"#
        }
        let cycle = Self.cycle(from: 0, soak: true)
        let relative = try MQTTReplay.updates(lines: [header] + cycle.map { record($0.0, $0.1, $0.2) }, base: 1000)
        let unix = try MQTTReplay.updates(lines: [header] + cycle.map { record($0.0 + shift, $0.1, $0.2) }, base: 1000)
        #expect(unix.count == relative.count && unix.map(\.phase) == relative.map(\.phase))
        #expect(zip(unix, relative).allSatisfy { abs(($0.observedAt ?? 0) - ($1.observedAt ?? 0) - shift) < 1e-3 })
    }
}

extension MQTTPresetTests {
    @Test("examples/mqtt.json5 reads without problems: one job per entry, each preset's topics")
    func example() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/mqtt.json5").standardized.path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let config = try ConfigLoader.parse(text: text, environment: ["MQTT_PASSWORD": "secret123"])
        let sources = config.sources.compactMap(MQTTSourceConfiguration.read)
        // The example holds only sources; the missing sink is the one expected problem.
        #expect(config.problems.all.filter { !$0.path.hasPrefix("sinks") }.isEmpty, "\(config.problems.all)")
        #expect(sources.map { $0.jobs.map(\.slug) } == [["mqtt-mk3"], ["mqtt-voron"], ["mqtt-washer"], ["render"]])
        #expect(
            sources.map(\.topicFilters) == [
                ["octoPrint/progress/printing", "octoPrint/event/+", "octoPrint/mqtt"],
                ["voron/klipper/status", "voron/moonraker/api/response", "voron/moonraker/status"],
                ["zigbee2mqtt/washer_plug", "zigbee2mqtt/washer_plug/availability"],
                ["render/+/status"],
            ])
    }
}
