import Foundation
import LiveBridgeCore
import LiveBridgeHomeAssistant
import Testing

@Suite("Home Assistant entity mapping")
struct HomeAssistantMappingTests {
    static let t0 = 1_795_999_361.549581

    func changes(_ json: JSONValue) throws -> HomeAssistantMessage {
        try HomeAssistantMessage(json: ["id": 2, "type": "event", "event": json])
    }

    func timerMapper() -> HomeAssistantActivityMapper {
        HomeAssistantActivityMapper(mappings: [HomeAssistantEntityMapping(entity: "timer.washer")])
    }

    @Test("the recorded timer run: start → finishes_at as end_date, pause, resume, restart, finish")
    func recordedTimer() throws {
        var mapper = timerMapper()
        var updates: [ActivityUpdate] = []
        for record in try Fixture.records("subscribe_entities.jsonl") where record["dir"] == "in" {
            let message = try HomeAssistantMessage(json: record["msg"]!)
            // Observe each message at the time HA stamped the change (the recording's clock).
            let lc = record["msg"]?["event"]?["c"]?["timer.washer"]?["+"]?["lc"]?.doubleValue
            updates += mapper.receive(message, at: lc ?? Self.t0 - 1).updates
        }
        let washer = updates.filter { $0.slug == "ha-timer-washer" }
        // Snapshot: idle (first observation → an `ended` that only closes a leftover activity).
        #expect(washer.first?.phase == .ended(.success))
        let started = try #require(washer.first { $0.phase == .active })
        #expect(started.eta == .finishesAt(RFC3339.parse("2026-11-30T00:43:11+00:00")!))
        #expect(started.name == "Washer" && started.content.icon == .value("mdi:washing-machine"))
        #expect(started.content.state == .value("Running"))
        // 30 s timer, observed right at start: progress ≈ 1 − (finishes_at − now)/30.
        let expected = 1 - (RFC3339.parse("2026-11-30T00:43:11+00:00")! - Self.t0) / 30
        #expect(abs((started.progress ?? -1) - expected) < 1e-9)
        let paused = try #require(washer.first { $0.phase == .paused })
        #expect(paused.eta == .remaining(25) && paused.content.state == .value("Paused"))
        #expect(abs((paused.progress ?? 0) - 5.0 / 30) < 1e-9)
        // Restart with a 2 s duration: new finishes_at; then idle at finishes_at → success.
        #expect(washer.contains { $0.eta == .finishesAt(RFC3339.parse("2026-11-30T00:42:50+00:00")!) })
        let ended = try #require(washer.last)
        #expect(ended.phase == .ended(.success))
        #expect(ended.content.state == .value("Done") && ended.content.accentColor == .value("green"))
        // The input_select and input_number changes do not touch the timer's activity.
        #expect(washer.count == 6)
    }

    @Test("a timer cancelled long before finishes_at ends as cancelled; one cancelled while paused too")
    func timerCancelled() throws {
        var mapper = timerMapper()
        let records = try Fixture.records("timer_events.jsonl").filter { $0["dir"] == "in" }
        var outcomes: [ActivityPhase] = []
        for record in records {
            let message = try HomeAssistantMessage(json: record["msg"]!)
            let lc = record["msg"]?["event"]?["c"]?["timer.washer"]?["+"]?["lc"]?.doubleValue ?? 1_795_999_396
            outcomes += mapper.receive(message, at: lc).updates.map(\.phase)
        }
        // snapshot idle, start, pause, resume, change (still active), cancel, start (2 s), finish.
        #expect(
            outcomes == [
                .ended(.success), .active, .paused, .active, .active, .ended(.cancelled), .active, .ended(.success),
            ])
        var paused = timerMapper()
        let start = try changes([
            "a": [
                "timer.washer": [
                    "s": "active", "a": ["duration": "0:10:00", "finishes_at": "2026-11-30T01:00:00+00:00"],
                ]
            ]
        ])
        _ = paused.receive(start, at: 1_796_000_000)
        _ = paused.receive(
            try changes([
                "c": [
                    "timer.washer": ["+": ["s": "paused", "a": ["remaining": "0:05:00"]], "-": ["a": ["finishes_at"]]]
                ]
            ]), at: 1_796_000_100)
        let cancel = paused.receive(
            try changes(["c": ["timer.washer": ["+": ["s": "idle"], "-": ["a": ["remaining"]]]]]), at: 1_796_000_200)
        #expect(cancel.updates.map(\.phase) == [.ended(.cancelled)])
        #expect(cancel.updates.first?.content.state == .value("Cancelled"))
    }

    @Test("unavailable and unknown never start, end or update; the last good value is kept")
    func unavailable() throws {
        var mapping = HomeAssistantEntityMapping(entity: "input_boolean.printer_running", slug: "printer")
        mapping.progress = HomeAssistantValueSource(entity: "sensor.printer_progress")
        var mapper = HomeAssistantActivityMapper(mappings: [mapping])
        let snapshot = try changes([
            "a": [
                "input_boolean.printer_running": ["s": "unavailable", "a": [:]],
                "sensor.printer_progress": ["s": "unknown", "a": ["unit_of_measurement": "%"]],
            ]
        ])
        #expect(mapper.receive(snapshot, at: 100).updates.isEmpty)
        let on = mapper.receive(try changes(["c": ["input_boolean.printer_running": ["+": ["s": "on"]]]]), at: 101)
        #expect(on.updates.map(\.phase) == [.active] && on.updates.first?.progress == nil)
        _ = mapper.receive(try changes(["c": ["sensor.printer_progress": ["+": ["s": "42"]]]]), at: 102)
        let dropout = mapper.receive(
            try changes(["c": ["sensor.printer_progress": ["+": ["s": "unavailable"]]]]), at: 103)
        #expect(dropout.updates.first?.progress == 0.42)
        #expect(
            mapper.receive(try changes(["c": ["input_boolean.printer_running": ["+": ["s": "unavailable"]]]]), at: 104)
                .updates.isEmpty)
        let back = mapper.receive(try changes(["c": ["input_boolean.printer_running": ["+": ["s": "on"]]]]), at: 105)
        // Only a report of the progress sensor carries progress; the tracker keeps 0.42 meanwhile.
        #expect(back.updates.map(\.phase) == [.active] && back.updates.first?.progress == nil)
        let off = mapper.receive(try changes(["c": ["input_boolean.printer_running": ["+": ["s": "off"]]]]), at: 106)
        #expect(off.updates.map(\.phase) == [.ended(.success)])
        #expect(
            mapper.receive(try changes(["c": ["input_boolean.printer_running": ["+": ["s": "unknown"]]]]), at: 107)
                .updates.isEmpty)
    }

    @Test("configured states: start, labels, paused, failure; other states only update a running activity")
    func configuredStates() throws {
        var mapping = HomeAssistantEntityMapping(entity: "sensor.washer_state", slug: "washer")
        mapping.startStates = ["run"]
        mapping.pausedStates = ["pause"]
        mapping.endStates = ["finished"]
        mapping.failureStates = ["error"]
        mapping.stateLabels = ["run": "Washing", "actionrequired": "Open the door"]
        mapping.completionMessage = "Laundry is done"
        mapping.accentColor = "blue"
        mapping.tapURL = "https://ha.example/lovelace/laundry"
        var mapper = HomeAssistantActivityMapper(mappings: [mapping])
        func state(_ s: String, _ t: Double) throws -> [ActivityUpdate] {
            try mapper.receive(
                changes(["a": ["sensor.washer_state": ["s": .string(s), "a": ["friendly_name": "Washer"]]]]), at: t
            ).updates
        }
        _ = try state("ready", 0)  // the first snapshot
        #expect(try state("actionrequired", 1).isEmpty)
        let run = try state("run", 2)
        #expect(run.first?.content.state == .value("Washing") && run.first?.content.accentColor == .value("blue"))
        #expect(run.first?.content.tapAction == .value(ActionObject(url: "https://ha.example/lovelace/laundry")))
        #expect(run.first?.statesFinish == false, "no remaining-time entity: nothing to wait for")
        #expect(try state("actionrequired", 3).first?.content.state == .value("Open the door"))
        #expect(try state("delayed_start", 4).first?.content.state == .value("Delayed start"))
        #expect(try state("pause", 5).first?.phase == .paused)
        #expect(try state("run", 6).first?.phase == .active)
        let done = try state("finished", 7)
        #expect(done.first?.phase == .ended(.success) && done.first?.content.state == .value("Laundry is done"))
        #expect(try state("finished", 8).isEmpty)
        _ = try state("run", 9)
        let failed = try state("error", 10)
        #expect(failed.first?.phase == .ended(.failure) && failed.first?.content.accentColor == .value("red"))
    }

    @Test(
        "domain defaults",
        arguments: [
            ("timer.x", ["active"], ["idle"]),
            ("media_player.tv", ["buffering", "playing"], ["idle", "off", "standby"]),
            ("vacuum.robo", ["cleaning", "mowing"], ["docked", "idle"]), ("input_boolean.b", ["on"], ["off"]),
            ("cover.garage", ["closing", "opening"], ["closed", "open"]), ("lock.door", ["unlocked"], ["locked"]),
        ])
    func domainDefaults(_ entity: String, _ start: [String], _ end: [String]) {
        let mapping = HomeAssistantEntityMapping(entity: entity)
        #expect(mapping.startStates.sorted() == start && mapping.endStates.sorted() == end)
        #expect(mapping.slug == "ha-" + entity.replacingOccurrences(of: ".", with: "-"))
        #expect(HomeAssistantEntityMapping.defaultStates(forDomain: "sensor") == nil)
    }

    @Test("progress scale: % unit, values above 1, fractions below 1, configured maxima")
    func progressScale() throws {
        func read(_ raw: JSONValue, unit: String? = nil, scale: HomeAssistantProgressScale = .automatic) throws
            -> Double?
        {
            var decided: Bool?
            return try HomeAssistantValueReading.progress(raw, unit: unit, scale: scale, decidedPercent: &decided)
        }
        #expect(try read("42.0", unit: "%") == 0.42)
        #expect(try read("42") == 0.42)
        #expect(try read("1", unit: "%") == 0.01)
        #expect(try read(0.42) == 0.42)
        #expect(try read("1") == 0.01)
        #expect(try read(128, scale: .maximum(255)) == 128.0 / 255)
        #expect(try read(0.5, scale: .percent) == 0.005)
        #expect(try read(150, unit: "%") == 1)
        #expect(try read(.null) == nil)
        #expect(throws: HomeAssistantValueError.self) { try read("printing") }
        // The automatic decision sticks: a 0–1 source reaching 1 is done, a 0–100 source at 1 is 1 %.
        var decided: Bool?
        _ = try HomeAssistantValueReading.progress(0.3, unit: nil, scale: .automatic, decidedPercent: &decided)
        #expect(try HomeAssistantValueReading.progress(1, unit: nil, scale: .automatic, decidedPercent: &decided) == 1)
        decided = nil
        _ = try HomeAssistantValueReading.progress(30, unit: nil, scale: .automatic, decidedPercent: &decided)
        #expect(
            try HomeAssistantValueReading.progress(1, unit: nil, scale: .automatic, decidedPercent: &decided) == 0.01)
    }

    @Test("remaining-time rules: timestamps, H:MM:SS, ISO durations, units, no guessing")
    func remainingRules() throws {
        func read(_ raw: JSONValue, deviceClass: String? = nil, unit: String? = nil) throws -> HomeAssistantTimeValue? {
            try HomeAssistantValueReading.remaining(raw, deviceClass: deviceClass, unit: unit)
        }
        let end = RFC3339.parse("2026-11-30T02:12:37+00:00")!
        #expect(try read("2026-11-30T02:12:37+00:00", deviceClass: "timestamp") == .finishesAt(end))
        #expect(
            try read("2026-11-30T00:42:37.845925+00:00")
                == .finishesAt(RFC3339.parse("2026-11-30T00:42:37.845925+00:00")!))
        #expect(try read("0:25:00") == .remaining(1500))
        #expect(try read("1 day, 2:03:04") == .remaining(93784))
        #expect(try read("PT25M") == .remaining(1500))
        #expect(try read("P1DT2H") == .remaining(93600))
        #expect(try read("25", deviceClass: "duration", unit: "min") == .remaining(1500))
        #expect(try read("0.783", deviceClass: "duration", unit: "h") == .remaining(0.783 * 3600))
        #expect(try read(1500000, unit: "ms") == .remaining(1500))
        #expect(try read("-3", unit: "min") == .remaining(0))
        #expect(try read(1_796_004_761, unit: "timestamp") == .finishesAt(1_796_004_761))
        #expect(try read("unavailable") == nil)
        #expect(try read("nan", unit: "s") == nil)
        #expect(throws: HomeAssistantValueError.self) { try read("25") }
        #expect(throws: HomeAssistantValueError.self) { try read("25", unit: "fortnights") }
        #expect(throws: HomeAssistantValueError.self) { try read("tomorrow", deviceClass: "timestamp") }
    }

    @Test("a duration sensor counts down from its own report, at its own resolution; derived progress")
    func relativeRemainingAnchoring() throws {
        var mapping = HomeAssistantEntityMapping(entity: "input_select.washer_state", slug: "washer")
        mapping.startStates = ["washing"]
        mapping.endStates = ["finished"]
        mapping.remaining = HomeAssistantValueSource(entity: "sensor.washer_remaining")
        var mapper = HomeAssistantActivityMapper(mappings: [mapping])
        let unit: JSONValue = ["unit_of_measurement": "min", "device_class": "duration"]
        let first = mapper.receive(
            try changes([
                "a": [
                    "input_select.washer_state": ["s": "washing"], "sensor.washer_remaining": ["s": "30", "a": unit],
                ]
            ]),
            at: 1000)
        #expect(first.updates.first?.eta == .remaining(1800))
        #expect(first.updates.first?.etaResolution == 60)
        #expect(first.updates.first?.statesFinish == true, "a remaining-time entity states the finish")
        // The minute sensor reports 29 at 1059: true then, so the finish is 1059 + 1740.
        let report = mapper.receive(try changes(["c": ["sensor.washer_remaining": ["+": ["s": "29"]]]]), at: 1059)
        #expect(report.updates.first?.eta == .remaining(1740))
        #expect(report.updates.first?.etaResolution == 60)
        let progress: Double = report.updates.first?.progress ?? 0
        #expect(abs(progress - (1 - 1740.0 / 1800)) < 1e-9)
        let step: Double = report.updates.first?.progressResolution ?? 0
        #expect(abs(step - 60.0 / 1800) < 1e-12)
        // The program changes at 1100 without a new report: the 29 minutes count from 1059, not
        // from 1100 (a value restamped with another entity's change would push the finish 41 s late).
        let program = mapper.receive(
            try changes(["c": ["input_select.washer_state": ["+": ["s": "rinsing"]]]]), at: 1100)
        #expect(program.updates.first?.eta == .remaining(2799 - 1100))
        // Ten more minutes appear: the new report is the truth at once (no adapter-side filtering).
        let moved = mapper.receive(try changes(["c": ["sensor.washer_remaining": ["+": ["s": "39"]]]]), at: 1110)
        #expect(moved.updates.first?.eta == .remaining(39 * 60))
        // A snapshot after a reconnect carries Home Assistant's own time of the last report.
        mapper.expectSnapshot()
        let snapshot = mapper.receive(
            try changes([
                "a": [
                    "input_select.washer_state": ["s": "rinsing"],
                    "sensor.washer_remaining": ["s": "37", "a": unit, "lc": 1170, "lu": 1180],
                ]
            ]),
            at: 1200)
        #expect(snapshot.updates.first?.eta == .remaining(1180 + 37 * 60 - 1200))
        // Fractional minutes are exact: no resolution is claimed.
        let fraction = mapper.receive(
            try changes(["c": ["sensor.washer_remaining": ["+": ["s": "36.5"]]]]), at: 1230)
        #expect(fraction.updates.first?.eta == .remaining(36.5 * 60))
        #expect(fraction.updates.first?.etaResolution == nil)
    }

    @Test("a timestamp sensor is an absolute end; an input_datetime uses its timestamp attribute")
    func absoluteSources() throws {
        var dishwasher = HomeAssistantEntityMapping(entity: "input_boolean.dishwasher", slug: "dishwasher")
        dishwasher.remaining = HomeAssistantValueSource(entity: "sensor.dishwasher_end")
        var datetime = HomeAssistantEntityMapping(entity: "input_boolean.oven", slug: "oven")
        datetime.remaining = HomeAssistantValueSource(entity: "input_datetime.dishwasher_end")
        var mapper = HomeAssistantActivityMapper(mappings: [dishwasher, datetime])
        let output = mapper.receive(
            try changes([
                "a": [
                    "input_boolean.dishwasher": ["s": "on"], "input_boolean.oven": ["s": "on"],
                    "sensor.dishwasher_end": ["s": "2026-11-30T02:12:41+00:00", "a": ["device_class": "timestamp"]],
                    "input_datetime.dishwasher_end": [
                        "s": "2026-11-30 02:12:41",
                        "a": ["has_date": true, "has_time": true, "timestamp": 1_796_004_761.0],
                    ],
                ]
            ]), at: 1_796_000_000)
        #expect(output.updates.count == 2)
        #expect(output.updates.allSatisfy { $0.eta == .finishesAt(1_796_004_761) })
    }

    @Test("bad values are reported once, and the activity keeps going")
    func problemsReportedOnce() throws {
        var mapping = HomeAssistantEntityMapping(entity: "input_boolean.run", slug: "run")
        mapping.remaining = HomeAssistantValueSource(entity: "sensor.minutes_left")
        var mapper = HomeAssistantActivityMapper(mappings: [mapping])
        let first = mapper.receive(
            try changes(["a": ["input_boolean.run": ["s": "on"], "sensor.minutes_left": ["s": "25"]]]), at: 1)
        #expect(first.updates.count == 1 && first.problems.count == 1)
        #expect(first.problems.first?.contains("set remaining.unit") == true)
        let again = mapper.receive(try changes(["c": ["sensor.minutes_left": ["+": ["s": "24"]]]]), at: 2)
        #expect(again.updates.count == 1 && again.problems.isEmpty)
    }

    @Test("custom events go through ActivityCommand: same result as the activities API")
    func customEvent() throws {
        var mapper = HomeAssistantActivityMapper(mappings: [], eventType: "livebridge")
        let data: JSONValue = [
            "slug": "oven", "name": "Oven", "progress": 40, "state": "Preheating", "remaining": "0:12:00",
            "icon": "mdi:stove", "color": "orange",
        ]
        let viaEvent = mapper.receive(.event(id: 3, .fired(type: "livebridge", data: data, timeFired: nil)), at: 500)
        let viaAPI = try ActivityCommand.update(from: data, slug: nil, now: 500)
        #expect(viaEvent.updates == [viaAPI])
        #expect(viaAPI.progress == 0.4 && viaAPI.eta == .remaining(720))
        let end = mapper.receive(
            .event(id: 3, .fired(type: "livebridge", data: ["slug": "oven", "end": true], timeFired: nil)), at: 501)
        #expect(end.updates.first?.phase == .ended(.success))
        let other = mapper.receive(.event(id: 3, .fired(type: "something_else", data: data, timeFired: nil)), at: 502)
        #expect(other.updates.isEmpty)
        let bad = mapper.receive(
            .event(id: 3, .fired(type: "livebridge", data: ["slug": "oven", "progres": 1], timeFired: nil)), at: 503)
        #expect(bad.updates.isEmpty && bad.problems.first?.contains("progres: unknown key") == true)
    }

    @Test("a resync snapshot after a reconnect ends an activity whose entity went idle meanwhile")
    func resyncEndsStaleActivity() throws {
        var mapper = timerMapper()
        let active: JSONValue = [
            "timer.washer": ["s": "active", "a": ["duration": "0:30:00", "finishes_at": "2026-11-30T01:00:00+00:00"]]
        ]
        #expect(mapper.receive(try changes(["a": active]), at: 1_796_000_000).updates.map(\.phase) == [.active])
        mapper.expectSnapshot()
        // Home Assistant restarted: the (non-restored) timer is idle, 5 minutes before its end.
        let snapshot = mapper.receive(
            try changes(["a": ["timer.washer": ["s": "idle", "a": ["duration": "0:30:00"]]]]), at: 1_796_000_100)
        #expect(snapshot.updates.map(\.phase) == [.ended(.cancelled)])
        // An entity missing from the snapshot is dropped from the table (no stale state kept) and
        // reported once.
        mapper.expectSnapshot()
        let empty = mapper.receive(try changes(["a": [:]]), at: 1_796_000_200)
        #expect(mapper.table["timer.washer"] == nil)
        #expect(
            empty.problems == [
                "timer.washer is not (yet) known to Home Assistant; check the entity id in the source's entities"
            ])
        mapper.expectSnapshot()
        #expect(mapper.receive(try changes(["a": [:]]), at: 1_796_000_300).problems.isEmpty)
    }
}
