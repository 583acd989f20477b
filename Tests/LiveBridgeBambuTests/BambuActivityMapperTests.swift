import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeTestSupport
import Testing

/// Feeds reports to a mapper and keeps every update.
struct MapperRun {
    var mapper: BambuActivityMapper
    var updates: [ActivityUpdate] = []
    var time: Double = 1_781_517_600

    init(settings: BambuActivityMapper.Settings = .init(), resuming job: BambuJob? = nil) {
        mapper = BambuActivityMapper(
            slug: "bambu-01p00a000000001", printerName: "Workshop X1C", settings: settings, resuming: job)
    }

    /// Feeds one `print` object `after` seconds; returns what it produced.
    @discardableResult
    mutating func feed(_ print: [String: JSONValue], after seconds: Double = 1) -> [ActivityUpdate] {
        time += seconds
        var object = print
        if object["command"] == nil { object["command"] = "push_status" }
        let report = BambuReport(printObject: object)
        let produced = mapper.observe(report, at: time)
        updates += produced
        return produced
    }

    @discardableResult
    mutating func tick(after seconds: Double) -> [ActivityUpdate] {
        time += seconds
        let produced = mapper.tick(at: time)
        updates += produced
        return produced
    }

    @discardableResult
    mutating func connection(_ connected: Bool, after seconds: Double = 0) -> [ActivityUpdate] {
        time += seconds
        let produced = mapper.connectionChanged(isConnected: connected, at: time)
        updates += produced
        return produced
    }

    /// Plays a whole simulated print (full report first, as after a pushall).
    mutating func play(_ script: SimulatedPrintScript, seed: UInt64 = 1) {
        var firmware = SimulatedPrinterFirmware(model: script.model, seed: seed)
        feed(firmware.fullReport()["print"]?.objectValue ?? [:], after: 0)
        for step in script.steps() {
            firmware.apply(step.changes)
            feed(firmware.nextReport()["print"]?.objectValue ?? [:], after: script.reportInterval)
        }
    }

    /// The distinct card texts in order (content state, with a detail state shown as `state | detail`).
    var stateTexts: [String] {
        var texts: [String] = []
        for update in updates {
            let text = update.content.state.value ?? "-"
            if texts.last != text { texts.append(text) }
        }
        return texts
    }
}

let idleX1: [String: JSONValue] = [
    "gcode_state": "IDLE", "mc_percent": 0, "mc_remaining_time": 0, "layer_num": 0, "total_layer_num": 0,
    "stg_cur": -1, "print_error": 0, "fail_reason": "0", "subtask_name": "", "gcode_file": "",
]

@Suite("Bambu mapping: what the activity shows at each stage")
struct BambuActivityMapperTests {
    @Test("an X1 print: preparing and every calibration stage by name (never Layer 0/N), printing, complete")
    func stagesByName() {
        var run = MapperRun()
        run.play(SimulatedPrintScript(model: .x1, name: "Benchy", layers: 40))
        #expect(
            run.stateTexts == [
                "Preparing", "Heatbed preheating", "Homing toolhead", "Auto bed leveling", "Heating hotend",
                "Cleaning nozzle tip", "Printing", "Complete",
            ])
        for update in run.updates {
            let texts = [update.content.state.value, update.details.state.value].compactMap { $0 }
            #expect(!texts.contains { $0.contains("Layer 0") }, "\(texts)")
            if update.content.state.value != "Printing" && !update.phase.isEnded {
                #expect(update.progress == 0 && update.eta == nil, "no ETA while preparing/calibrating")
            }
        }
        #expect(run.updates.allSatisfy { $0.slug == "bambu-01p00a000000001" && $0.name == "Workshop X1C" })
        #expect(run.updates.allSatisfy { $0.content.subtitle.value == "Benchy" }, "subtitle = the job name")
    }

    @Test("RUNNING: 'Printing' with Layer N/M leading the volatile subtitle, mc_percent progress, minutes left")
    func printing() {
        var run = MapperRun()
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "mc_percent": 42, "mc_remaining_time": 11, "layer_num": 17,
                "total_layer_num": 40, "stg_cur": 0, "subtask_name": "Benchy", "nozzle_temper": 220.03125,
                "bed_temper": 59.96875, "spd_lvl": 3,
            ]) { $1 })
        let update = try! #require(run.updates.last)
        #expect(update.phase == .active)
        #expect(update.content.state.value == "Printing")
        #expect(update.content.accentColor.value == "blue")
        #expect(update.details.state.value == nil, "no number in the state text")
        #expect(update.progress == 0.42)
        #expect(update.eta == .remaining(660))
        #expect(update.statesFinish, "the printer states its minutes left: a first frame without them waits")
        #expect(update.content.subtitle.value == "Benchy")
        #expect(
            update.details.subtitle.value == "Layer 17/40 · Benchy · 220 °C / 60 °C · Sport",
            "the layer, temperatures and speed are volatile")
        #expect(update.content.subtitle.value?.contains("°C") == false)
    }

    @Test("minutes left reaching 0 before 100 % is no ETA; a job without layers shows percent")
    func edgeOfPrinting() {
        var run = MapperRun()
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "mc_percent": 98, "mc_remaining_time": 0, "layer_num": 0,
                "total_layer_num": 0, "stg_cur": 0,
            ]) { $1 })
        #expect(run.updates.last?.eta == nil)
        #expect(run.updates.last?.details.subtitle.value?.hasPrefix("98 %") == true)
    }

    @Test(
        "PAUSE shows its reason and holds the bar",
        arguments: [
            (50_364_417, 16, "Paused by the user"), (50_364_437, 6, "Paused: filament runout"),
            (0, 6, "Paused: filament runout"), (0x0300_800F, 16, "Paused: door open"),
            (0x0700_8006, 0, "Paused: cannot feed filament"), (0x0300_8099, 0, "Paused: error 0300_8099"),
            (0, 35, "Paused: nozzle clog"), (0, 0, "Paused"),
        ])
    func pauseReasons(code: Int, stage: Int, text: String) {
        var run = MapperRun()
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "mc_percent": 40, "mc_remaining_time": 30, "layer_num": 20,
                "total_layer_num": 50, "stg_cur": 0, "subtask_name": "Hook",
            ]) { $1 })
        run.feed(
            idleX1.merging([
                "gcode_state": "PAUSE", "mc_percent": 40, "mc_remaining_time": 30, "layer_num": 20,
                "total_layer_num": 50, "stg_cur": .int(Int64(stage)), "print_error": .int(Int64(code)),
                "subtask_name": "Hook",
            ]) { $1 })
        let update = run.updates.last!
        #expect(update.phase == .paused)
        #expect(update.content.state.value == text)
        #expect(update.content.accentColor.value == "yellow")
        #expect(update.progress == 0.4 && update.eta == nil)
        #expect(update.details.state.value == nil, "no layer text over the pause reason")
    }

    @Test("FINISH: green 'Complete' at 100 %; the FINISH reports after it change nothing")
    func finish() {
        var run = MapperRun()
        run.play(SimulatedPrintScript(model: .p1, name: "Gridfinity Bin", ending: .finish))
        let ends = run.updates.filter(\.phase.isEnded)
        #expect(ends.count == 1, "the cool-down reports after FINISH are not new events")
        let end = ends[0]
        #expect(end.phase == .ended(.success))
        #expect(end.content.state.value == "Complete" && end.content.accentColor.value == "green")
        #expect(end.progress == 1)
        #expect(
            end.content.subtitle.value == "Gridfinity Bin", "the name latched at the start, though gcode_file cleared")
        #expect(run.updates.last?.phase == .ended(.success))
        #expect(run.mapper.job == nil)
    }

    @Test("FAILED with 0300_400C is 'Cancelled' (orange); the error clearing afterwards changes nothing")
    func cancel() {
        for model in SimulatedPrinterModel.allCases {
            var run = MapperRun()
            run.play(SimulatedPrintScript(model: model, name: "Phone Stand", ending: .cancel(atPercent: 30)))
            let ends = run.updates.filter(\.phase.isEnded)
            #expect(ends.count == 1)
            #expect(ends.first?.phase == .ended(.cancelled), "\(model)")
            #expect(ends.first?.content.state.value == "Cancelled" && ends.first?.content.accentColor.value == "orange")
            #expect(ends.first?.progress == 0.3, "the bar stays where the job stopped")
        }
    }

    @Test("FAILED with another code is red with a readable reason and the codes in the details")
    func failure() {
        var run = MapperRun()
        run.play(SimulatedPrintScript(model: .x1, name: "Cable Clip", layers: 30, ending: .fail(atPercent: 55)))
        let end = run.updates.last!
        #expect(end.phase == .ended(.failure))
        #expect(end.content.state.value == "Failed: Z-axis step loss")
        #expect(end.content.accentColor.value == "red")
        #expect(end.details.subtitle.value == "Cable Clip · error 0300_4057 · HMS 0300_4000_0002_0001")
        #expect(end.progress == 0.55)
    }

    @Test("FAILED without a code waits briefly for one, then says 'Failed'")
    func failureSettles() {
        var run = MapperRun(settings: .init(failureSettle: 3))
        run.feed(idleX1.merging(["gcode_state": "RUNNING", "mc_percent": 10, "stg_cur": 0, "layer_num": 3]) { $1 })
        #expect(run.feed(["msg": 1, "gcode_state": "FAILED"]).isEmpty, "waits for the code")
        #expect(
            run.feed(["msg": 1, "print_error": 0x0300_4002], after: 1).first?.content.state.value
                == "Failed: Auto bed leveling failed")

        var silent = MapperRun(settings: .init(failureSettle: 3))
        silent.feed(idleX1.merging(["gcode_state": "RUNNING", "mc_percent": 10, "stg_cur": 0, "layer_num": 3]) { $1 })
        #expect(silent.feed(["msg": 1, "gcode_state": "FAILED"]).isEmpty)
        #expect(silent.tick(after: 2).isEmpty)
        let end = silent.tick(after: 1)
        #expect(end.first?.phase == .ended(.failure) && end.first?.content.state.value == "Failed")
    }

    @Test("an H2C pushall with print_error 0 and fail_reason 50348044 is a cancel")
    func cancelByFailReason() {
        var run = MapperRun()
        run.feed(idleX1.merging(["gcode_state": "RUNNING", "mc_percent": 5, "stg_cur": 0, "layer_num": 1]) { $1 })
        run.feed(idleX1.merging(["gcode_state": "FAILED", "print_error": 0, "fail_reason": "50348044"]) { $1 })
        #expect(run.updates.last?.phase == .ended(.cancelled))
    }

    @Test("a pause code left over in the state is not taken as the failure's reason")
    func stalePauseCode() {
        var run = MapperRun(settings: .init(failureSettle: 3))
        run.feed(
            idleX1.merging(["msg": 0, "gcode_state": "PAUSE", "mc_percent": 20, "print_error": 50_364_417]) { $1 })
        #expect(run.feed(["msg": 1, "gcode_state": "FAILED"]).isEmpty)
        #expect(run.tick(after: 3).first?.content.state.value == "Failed")
    }

    @Test("IDLE while tracking (older firmware's cancel) ends the activity as cancelled")
    func idleEnds() {
        var run = MapperRun()
        run.play(SimulatedPrintScript(model: .p1, ending: .cancelToIdle(atPercent: 25)))
        let end = run.updates.last!
        #expect(end.phase == .ended(.cancelled) && end.content.state.value == "Cancelled")
        #expect(end.progress == 0.25, "the progress before IDLE reset it to 0")
    }

    @Test("a FINISH or FAILED seen at startup is an old job: no activity")
    func oldJobAtStartup() {
        for state in ["FINISH", "FAILED", "IDLE"] {
            var run = MapperRun()
            run.feed(
                idleX1.merging(["gcode_state": .string(state), "mc_percent": 100, "subtask_name": "Old"]) { $1 })
            run.feed(["msg": 1, "nozzle_temper": 30.0])
            #expect(run.updates.isEmpty, "\(state)")
            #expect(run.mapper.job == nil)
        }
    }

    @Test("a job remembered from before a restart is ended by the FINISH the printer reports now")
    func resumedJobFinishes() {
        var run = MapperRun(resuming: BambuJob(name: "Vase", taskID: "9", startedAt: 1_781_510_000, lastProgress: 0.8))
        run.feed(idleX1.merging(["gcode_state": "FINISH", "mc_percent": 100, "subtask_name": "Vase"]) { $1 })
        #expect(run.updates.count == 1)
        #expect(run.updates.first?.phase == .ended(.success) && run.updates.first?.content.subtitle.value == "Vase")
    }

    @Test("deltas before the first full report emit nothing (a P1 has said nothing reliable yet)")
    func deltasBeforeFullReport() {
        var run = MapperRun()
        #expect(run.feed(["msg": 1, "gcode_state": "RUNNING", "mc_percent": 50]).isEmpty)
        #expect(run.feed(["msg": 1, "mc_percent": 51]).isEmpty)
        let after = run.feed(
            ["msg": 0, "gcode_state": "RUNNING", "mc_percent": 51, "stg_cur": 0, "layer_num": 9, "total_layer_num": 20])
        #expect(after.first?.content.state.value == "Printing")
    }

    @Test(
        "offline mid-print: shown after the grace period (bar held), back on the next report, ended after the timeout")
    func offline() {
        var run = MapperRun(settings: .init(offlineGrace: 60, offlineTimeout: 3600))
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "mc_percent": 30, "mc_remaining_time": 90, "stg_cur": 0, "layer_num": 12,
                "total_layer_num": 40, "subtask_name": "Bracket",
            ]) { $1 })
        #expect(run.connection(false, after: 5).isEmpty)
        #expect(run.tick(after: 30).isEmpty, "within the grace period")
        let offline = run.tick(after: 30)
        #expect(offline.count == 1)
        #expect(offline.first?.phase == .paused)
        #expect(offline.first?.content.state.value == "Printer offline")
        #expect(offline.first?.progress == 0.3 && offline.first?.eta == nil)
        #expect(offline.first?.content.subtitle.value == "Bracket")
        #expect(run.tick(after: 60).isEmpty, "shown once")
        #expect(run.mapper.isShowingOffline)
        // Back: the next report restores the printing card.
        run.connection(true, after: 10)
        #expect(
            run.feed(["msg": 0, "gcode_state": "RUNNING", "mc_percent": 33]).first?.content.state.value == "Printing")
        #expect(!run.mapper.isShowingOffline)
        // Gone for good: ended only after the timeout.
        run.connection(false, after: 5)
        #expect(run.tick(after: 3000).first?.content.state.value == "Printer offline")
        #expect(run.mapper.job != nil, "not ended before the timeout")
        let end = run.tick(after: 600)
        #expect(end.first?.phase == .ended(.failure))
        #expect(end.first?.content.state.value == "Printer offline")
        #expect(run.mapper.job == nil)
    }

    @Test("no job, no offline card: an idle printer going away emits nothing")
    func offlineWithoutJob() {
        var run = MapperRun()
        run.feed(idleX1)
        run.connection(false)
        #expect(run.tick(after: 7200).isEmpty)
    }

    @Test("a new task id while following a job (its end was missed) follows the new job")
    func newTask() {
        var run = MapperRun()
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "task_id": "1", "subtask_name": "First", "stg_cur": 0, "layer_num": 3,
            ]) { $1 })
        run.feed(
            idleX1.merging(["gcode_state": "PREPARE", "task_id": "2", "subtask_name": "Second", "stg_cur": 0]) { $1 })
        #expect(run.updates.last?.content.subtitle.value == "Second")
        #expect(run.mapper.job?.taskID == "2")
    }

    @Test("an A1's idle stg_cur 0 is not read while idle; its print maps like the others")
    func a1() {
        var run = MapperRun()
        run.play(SimulatedPrintScript(model: .a1, name: "Clip", ending: .runout(atPercent: 50, reports: 2)))
        #expect(
            run.stateTexts == [
                "Preparing", "Heatbed preheating", "Homing toolhead", "Auto bed leveling", "Heating hotend",
                "Cleaning nozzle tip", "Printing", "Paused: filament runout", "Printing", "Complete",
            ])
    }

    @Test("fuzz: any report sequence gives valid updates, and nothing after an end until a new job")
    func fuzz() throws {
        var random = SeededGenerator(seed: 99)
        let states: [JSONValue] = ["IDLE", "PREPARE", "RUNNING", "PAUSE", "FINISH", "FAILED", "SLICING", "OFFLINE", 3]
        for _ in 0..<300 {
            var run = MapperRun(settings: .init(offlineGrace: 10, offlineTimeout: 100, failureSettle: 3))
            var ended = false
            for _ in 0..<60 {
                var print: [String: JSONValue] = ["msg": .int(Int64.random(in: 0...1, using: &random))]
                if Bool.random(using: &random) { print["gcode_state"] = states.randomElement(using: &random)! }
                if Bool.random(using: &random) {
                    print["mc_percent"] = .int(Int64.random(in: -5...130, using: &random))
                }
                if Bool.random(using: &random) {
                    print["mc_remaining_time"] = .int(Int64.random(in: -1...900, using: &random))
                }
                if Bool.random(using: &random) { print["layer_num"] = .int(Int64.random(in: 0...80, using: &random)) }
                if Bool.random(using: &random) { print["stg_cur"] = .int(Int64.random(in: -1...255, using: &random)) }
                if Bool.random(using: &random) {
                    print["print_error"] = .int(
                        Int64([0, 50_348_044, 50_364_437, 50_348_119].randomElement(using: &random)!))
                }
                if Bool.random(using: &random) {
                    print["subtask_name"] = .string(
                        String(repeating: "x", count: Int.random(in: 0...300, using: &random)))
                }
                var produced = run.feed(print, after: Double.random(in: 0...20, using: &random))
                if Int.random(in: 0..<8, using: &random) == 0 {
                    produced += run.connection(Bool.random(using: &random))
                }
                produced += run.tick(after: Double.random(in: 0...30, using: &random))
                for update in produced {
                    #expect(ContentRules.isValidSlug(update.slug))
                    #expect(update.progress.map { (0...1).contains($0) } ?? true)
                    #expect(throws: Never.self) { try update.content.validateAsCard(progress: update.progress ?? 0) }
                    if ended && update.phase.isEnded {
                        Issue.record("two ends without a job in between")
                    }
                    ended = update.phase.isEnded
                }
            }
        }
    }
}

@Suite("Bambu mapping: where the layer count goes")
struct BambuLayerTextTests {
    func printingUpdate(_ layerText: BambuLayerText) -> ActivityUpdate? {
        var run = MapperRun(settings: .init(layerText: layerText))
        run.feed(
            idleX1.merging([
                "gcode_state": "RUNNING", "mc_percent": 42, "mc_remaining_time": 11, "layer_num": 17,
                "total_layer_num": 40, "stg_cur": 0,
            ]) { $1 })
        return run.updates.last
    }

    @Test("details (default): the stable text is 'Printing' and Layer N/M rides along in the subtitle")
    func details() {
        #expect(BambuActivityMapper.Settings().layerText == .details)
        let update = printingUpdate(.details)
        #expect(update?.content.state.value == "Printing" && update?.details.state.value == nil)
        #expect(update?.details.subtitle.value?.hasPrefix("Layer 17/40") == true)
    }

    @Test("state: Layer N/M is the state text itself (a push per layer)")
    func state() {
        let update = printingUpdate(.state)
        #expect(update?.content.state.value == "Layer 17/40" && update?.details.state.value == nil)
    }

    @Test("off: only 'Printing'")
    func off() {
        let update = printingUpdate(.off)
        #expect(update?.content.state.value == "Printing" && update?.details.state.value == nil)
    }
}
