import LiveBridgeBambu
import LiveBridgeCore
import Testing

@Suite("Bambu report decoding")
struct BambuReportDecodingTests {
    func decode(_ text: String) throws -> BambuMessage {
        try BambuReport.decode(Array(text.utf8))
    }

    func status(_ text: String) throws -> BambuReport {
        guard case .status(let report) = try decode(text) else {
            Issue.record("expected a status report: \(text)")
            return BambuReport()
        }
        return report
    }

    @Test("an X1-style full report: every field typed, numbers sent as strings read as numbers")
    func fullReport() throws {
        let report = try status(
            """
            {"print": {"command": "push_status", "sequence_id": "20517", "gcode_state": "RUNNING",
              "mc_print_stage": "2", "mc_percent": 42, "mc_remaining_time": 11, "layer_num": 17,
              "total_layer_num": 40, "subtask_name": "Benchy", "gcode_file": "/data/Metadata/plate_1.gcode",
              "gcode_file_prepare_percent": "100", "stg": [2, 13, 1, 7, 14], "stg_cur": 0,
              "nozzle_temper": 220.03125, "nozzle_target_temper": 220, "bed_temper": 59.96875,
              "bed_target_temper": 60, "chamber_temper": 34.0, "print_error": 0, "fail_reason": "0",
              "hms": [{"attr": 201327360, "code": 196615, "ts_unix": "20260426002648"}], "spd_lvl": 2, "spd_mag": 100,
              "print_type": "local", "wifi_signal": "-50dBm", "task_id": "400123456",
              "ams": {"ams": [{"id": "0", "tray": [{"id": "0", "tray_type": "PLA"}]}]}}}
            """)
        #expect(report.isFull, "an X1 report without msg but with state and progress is full")
        #expect(report.messageKind == nil)
        #expect(report.sequenceID == "20517")
        #expect(report.gcodeState == .running)
        #expect(report.printStage == 2)
        #expect(report.percent == 42 && report.remainingMinutes == 11)
        #expect(report.layer == 17 && report.totalLayers == 40)
        #expect(report.preparePercent == 100)
        #expect(report.stages == [2, 13, 1, 7, 14] && report.currentStage == 0)
        #expect(report.nozzleTemperature == 220.03125 && report.nozzleTargetTemperature == 220)
        #expect(report.bedTemperature == 59.96875 && report.chamberTemperature == 34)
        #expect(report.printError == 0 && report.failReason == 0)
        #expect(report.hms == [BambuHMSCode(attribute: 201_327_360, code: 196_615)])
        #expect(report.hms?.first?.text == "0C00_0300_0003_0007")
        #expect(report.hms?.first?.severity == 3 && report.hms?.first?.moduleName == "camera")
        #expect(report.speedLevel == 2 && report.speedMagnitude == 100)
        #expect(report.taskID == "400123456")
        #expect(report.droppedFields.isEmpty)
    }

    @Test("a P1 delta carries only what changed; msg 1 marks it as not full")
    func delta() throws {
        let report = try status(
            #"{"print":{"mc_percent":37,"layer_num":22,"mc_remaining_time":12,"command":"push_status","msg":1,"sequence_id":"1131"}}"#
        )
        #expect(!report.isFull)
        #expect(report.percent == 37 && report.layer == 22 && report.remainingMinutes == 12)
        #expect(report.gcodeState == nil && report.subtaskName == nil && report.printError == nil)
    }

    @Test("a field of unexpected type drops that field, not the report")
    func typeSurprises() throws {
        let report = try status(
            """
            {"print": {"command": "push_status", "msg": 0, "gcode_state": "RUNNING", "mc_percent": "fifty",
              "layer_num": {"n": 3}, "total_layer_num": 40, "subtask_name": 12, "stg": "2,13", "hms": "none",
              "nozzle_temper": true, "bed_temper": "60.5", "mc_remaining_time": 7.0, "print_error": "50348044",
              "fail_reason": " 0 ", "spd_lvl": null}}
            """)
        #expect(report.gcodeState == .running)
        #expect(report.percent == nil && report.layer == nil && report.subtaskName == nil)
        #expect(report.stages == nil && report.hms == nil && report.nozzleTemperature == nil)
        #expect(report.totalLayers == 40)
        #expect(report.bedTemperature == 60.5, "a number sent as a string is read")
        #expect(report.remainingMinutes == 7, "an integral float is an integer")
        #expect(report.printError == 50_348_044 && report.failReason == 0)
        #expect(report.speedLevel == nil, "null is absent, not a type surprise")
        #expect(
            Set(report.droppedFields)
                == ["mc_percent", "layer_num", "subtask_name", "stg", "hms", "nozzle_temper"])
    }

    @Test("a temperature no sensor reads (past 1000 °C, below absolute zero) is dropped like a type surprise")
    func absurdTemperatures() throws {
        let report = try status(
            """
            {"print": {"command": "push_status", "msg": 0, "nozzle_temper": 1e300, "bed_temper": "-300",
              "chamber_temper": 35, "nozzle_target_temper": 1000, "bed_target_temper": -273.15}}
            """)
        #expect(report.nozzleTemperature == nil && report.bedTemperature == nil)
        #expect(report.chamberTemperature == 35 && report.nozzleTargetTemperature == 1000)
        #expect(report.bedTargetTemperature == -273.15)
        #expect(Set(report.droppedFields) == ["nozzle_temper", "bed_temper"])
    }

    @Test("newer firmware's aliases are read when the mc_ keys are missing")
    func aliases() throws {
        let report = try status(
            #"{"print":{"command":"push_status","msg":0,"gcode_state":"RUNNING","percent":58,"remain_time":1620,"prepare_per":100,"mc_stage":2}}"#
        )
        #expect(report.percent == 58 && report.remainingMinutes == 1620)
        #expect(report.preparePercent == 100 && report.printStage == 2)
    }

    @Test("H2 packed extruder temperature: low 16 bits current, high 16 bits target")
    func packedTemperature() throws {
        let packed = 220 << 16 | 215
        let report = try status(
            #"{"print":{"command":"push_status","msg":1,"device":{"extruder":{"info":[{"id":0,"temp":\#(packed)}]}}}}"#)
        #expect(report.nozzleTemperature == 215 && report.nozzleTargetTemperature == 220)
    }

    @Test("invalid UTF-8 in a job name is read as Latin-1 instead of rejecting the report")
    func invalidUTF8() throws {
        var bytes = Array(#"{"print":{"command":"push_status","msg":1,"subtask_name":"Halter f"#.utf8)
        bytes += [0xFC, 0x72]  // "für" in Latin-1
        bytes += Array(#" Br"#.utf8) + [0xC3, 0xBC] + Array(#"cke","mc_percent":3}}"#.utf8)  // valid "ü"
        guard case .status(let report) = try BambuReport.decode(bytes) else {
            Issue.record("expected a status report")
            return
        }
        #expect(report.subtaskName == "Halter für Brücke")
        #expect(report.percent == 3)
    }

    @Test("command acks, info replies and log lines are not status reports")
    func otherMessages() throws {
        #expect(
            try decode(#"{"print":{"command":"project_file","sequence_id":"1","result":"success"}}"#)
                == .other(#"print.command "project_file""#))
        #expect(try decode(#"{"info":{"command":"get_version","module":[]}}"#) == .other("message with info"))
        #expect(try decode(#"{"mc_print":{"command":"push_info","param":"…"}}"#) == .other("message with mc_print"))
        // A print object without a command counts as status (replay files write bare objects).
        guard case .status(let report) = try decode(#"{"print":{"gcode_state":"IDLE","msg":0}}"#) else {
            Issue.record("a print object without command is a status report")
            return
        }
        #expect(report.gcodeState == .idle)
    }

    @Test("malformed payloads are typed errors", arguments: ["{\"print\":", "<html>", "", "[1,2]", "{\"print\":[]}"])
    func malformed(text: String) {
        #expect(throws: BambuReportError.self) { try BambuReport.decode(Array(text.utf8)) }
    }

    @Test("gcode_state spellings")
    func states() {
        #expect(BambuGcodeState(wire: "running") == .running)
        #expect(BambuGcodeState(wire: "PAUSE") == .pause)
        #expect(BambuGcodeState(wire: "SLICING").isJobInProgress)
        #expect(!BambuGcodeState(wire: "FINISH").isJobInProgress)
        #expect(BambuGcodeState(wire: "OFFLINE") == .other("OFFLINE"))
    }
}
