import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeKit
import Testing

@Suite("Home Assistant replay and push economy")
struct HomeAssistantReplayTests {
    static let base = 1_781_517_600.0

    @Test("a recorded transcript replays without a header: default mappings, times moved to the base")
    func transcriptWithoutHeader() throws {
        let lines = try Fixture.lines("subscribe_entities.jsonl")
        #expect(try HomeAssistantReplay.detects(JSONParser.parse(lines[0])))
        let updates = try HomeAssistantReplay.updates(lines: lines, base: Self.base)
        let washer = updates.filter { $0.slug == "ha-timer-washer" }
        #expect(washer.map(\.phase) == [.ended(.success), .active, .paused, .active, .active, .ended(.success)])
        // finishes_at moved with the recording: the timer started at t = 0.508 and runs 30 s (truncated start).
        let start = try #require(washer.first { $0.phase == .active })
        guard case .finishesAt(let finish) = start.eta else {
            Issue.record("expected an absolute finish")
            return
        }
        #expect(start.observedAt == Self.base + 0.508)
        #expect(finish - start.observedAt! > 28 && finish - start.observedAt! <= 30)
        // input_boolean.printer_running has default on/off states: started at t = 2.319.
        let printer = updates.filter { $0.slug == "ha-input_boolean-printer_running" }
        #expect(printer.contains { $0.phase == .active && $0.observedAt == Self.base + 2.319 })
    }

    @Test("header: mapping, start time; the coalesced transcript gives one update per progress change")
    func headerAndCoalescedFrames() throws {
        let header = #"""
            {"homeassistant": {"entities": [{"entity": "input_boolean.printer_running", "slug": "printer", "progress": "input_number.print_progress"}]}, "start": 1795999405.0}
            """#
        var lines = try Fixture.lines("coalesce_messages.jsonl")
        // The printer was switched on before this recording.
        lines.insert(
            #"{"t": 0.2, "dir": "in", "msg": {"id": 2, "type": "event", "event": {"c": {"input_boolean.printer_running": {"+": {"s": "on"}}}}}}"#,
            at: 7)
        let updates = try HomeAssistantReplay.updates(lines: [header] + lines, base: Self.base)
        let running = updates.filter { $0.phase == .active }
        #expect(running.map(\.progress) == [0, 0.1, 0.2, 0.3, 0.4, 0.5])
        #expect(updates.allSatisfy { $0.slug == "printer" })
    }

    @Test("bad lines are errors with their line number")
    func badLines() {
        #expect(
            throws: ReplayError(
                line: 2, message: "expected {\"t\": seconds, \"dir\": \"in\", \"msg\": {…}}")
        ) {
            try HomeAssistantReplay.updates(lines: [#"{"t": 1, "msg": {"type": "auth_ok"}}"#, #"{"x": 1}"#], base: 0)
        }
        #expect(throws: ReplayError.self) {
            try HomeAssistantReplay.updates(
                lines: [#"{"homeassistant": {"entities": [{"entity": "sensor.x"}]}}"#], base: 0)
        }
    }

    /// The two washer setups the benchmark reports: the program state with its labels, and a
    /// timer with a progress sensor only.
    static func washerLines(timerOnly: Bool) throws -> [String] {
        var lines = try Fixture.lines("washer_cycle_30min.jsonl")
        if timerOnly {
            lines[0] = #"""
                {"homeassistant": {"entities": [{"entity": "timer.washer", "slug": "washer", "progress": "sensor.washer_progress"}]}, "start": 1796000000.0}
                """#
        }
        return lines
    }

    @Test("a 30-minute washer cycle costs a handful of pushes and stays within ε", arguments: [false, true])
    func washerCycleEconomy(timerOnly: Bool) throws {
        let updates = try HomeAssistantReplay.updates(
            lines: try Self.washerLines(timerOnly: timerOnly), base: Self.base)
        #expect(updates.contains { $0.phase == .active && $0.eta == .finishesAt(Self.base + 5 + 1800) })
        let result = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates)
        let washer = try #require(result.activities.first { $0.slug == "washer" })
        let reasons = result.pushes.map(\.frame.reason.rawValue)
        print(
            "washer cycle (\(timerOnly ? "timer + progress" : "program state + timer + progress")): "
                + "\(washer.pushes) pushes \(reasons), max error \(washer.maxError), mean \(washer.meanError)")
        // Timer + progress: seed, a few corrections of the glide (the program is not linear in
        // time, and the countdown is the timer's own, so the bar is what gets corrected — before
        // it drifts past ε, two sensor reports ahead), final and end. With the program state: also
        // its label changes, each followed by the progress report that comes 0.3 s later, and a
        // burst at the end (timer idle, 100 %, finished within a second).
        #expect(washer.pushes <= (timerOnly ? 7 : 12))
        #expect(washer.meanError <= 0.02)
        if timerOnly {
            #expect(washer.maxError <= EconomySettings().maxDisplayError)
        }
        #expect(result.pushes.last?.frame.kind == .end)
        #expect(
            result.pushes.contains {
                $0.frame.content["end_date"]
                    == .int(Int64(Self.base + 5 + 1800) + Int64(EconomySettings().fixedFinishPad))
            })
    }
}

@Suite("Home Assistant: a real washer's minute sensor")
struct HomeAssistantRealWasherTests {
    static let base = 1_781_517_600.0

    /// The real Home Assistant 2024.3 recording of `bench/recordings/homeassistant` (an 8-minute
    /// program, whole percent every 30 s, remaining in whole minutes every 60 s, `ceil`): the
    /// program starts at t = 5.0 and ends at t = 485.3.
    static func updates() throws -> [ActivityUpdate] {
        try HomeAssistantReplay.updates(lines: Fixture.lines("washer-8m.jsonl"), base: base)
    }

    @Test("the remaining minutes count down from their own report: every finish stated is the true one")
    func finishFromItsOwnReport() throws {
        // From the sensor's first report of this program (t = 5.018; until then it still says the
        // 0 left at the end of the previous one).
        let running = try Self.updates().filter { $0.phase == .active && $0.observedAt! >= Self.base + 5.018 }
        #expect(running.count > 20)
        let end = Self.base + 485.3
        for update in running {
            guard case .remaining(let left) = update.eta, let at = update.observedAt else {
                Issue.record("no remaining time at \((update.observedAt ?? 0) - Self.base)")
                continue
            }
            // A `ceil`ed minute reported at r says the end lies in (r + 60(N−1), r + 60N]; here every
            // report falls on a whole minute of the program, so r + 60N is the end. A program change
            // between reports (t = 245.1, 389.1) restamping the last value would say 60 s later.
            #expect(
                at + left >= end - 1 && at + left <= end + 2, "at \(at - Self.base): finish \(at + left - Self.base)")
            #expect(update.etaResolution == 60)
        }
    }

    @Test("a correction made a moment before the program changes leaves with the new program's text, as one request")
    func correctionJoinsProgramChange() throws {
        let settings = EconomySettings()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(try Self.updates())
        let pushes = result.pushes.filter { $0.frame.slug == "washer" }
        let times = pushes.map { $0.time - Self.base }
        // The progress sensor reports the rinse's first percent at t = 240.0, the program sensor
        // "Rinsing" 0.1 s later: the bar's correction due then and the new text are one request.
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier > 2 * settings.coalesceWindow, "pushes at \(times)")
        }
        let rinse = try #require(pushes.first { $0.frame.content["state"]?.stringValue == "Rinsing" })
        let progress = try #require(rinse.frame.content["progress"]?.doubleValue)
        #expect(abs(progress - 0.45) <= settings.maxDisplayError, "re-anchored on the truth: \(progress)")
        // The seed, one correction in the wash (leaning toward the slower truth from its first
        // three readings), the two program changes, the final frame and the end.
        #expect(pushes.count <= 6, "pushes at \(times)")
    }

    @Test("the 8-minute washer costs at most 1.5 × the oracle's pushes + 1, within ε")
    func washerEconomy() throws {
        let result = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(try Self.updates())
        let washer = try #require(result.activities.first { $0.slug == "washer" })
        // The oracle needs 4 (the start, two program changes, the end): a person sees the card
        // change twice, and the bar is kept within ε on a non-linear program.
        #expect(washer.pushes <= 7, "\(result.pushes.map { ($0.time - Self.base, $0.frame.reason.rawValue) })")
        #expect(washer.maxError <= EconomySettings().maxDisplayError)
    }
}
