import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeTestSupport
import Testing

/// Deterministic randomness for the fuzz tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
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

@Suite("Bambu printer state: merging full reports and deltas")
struct BambuPrinterStateTests {
    func report(_ print: JSONValue) -> BambuReport {
        guard case .status(let report)? = try? BambuReport.decode(JSONWriter.bytes(["print": print])) else {
            Issue.record("not a status report: \(print)")
            return BambuReport()
        }
        return report
    }

    @Test("absent keys keep their value; 0 is a real value; arrays are replaced")
    func mergeRules() {
        var state = BambuPrinterState()
        state.merge(
            report([
                "command": "push_status", "msg": 0, "gcode_state": "RUNNING", "mc_percent": 42, "layer_num": 17,
                "stg": [2, 13], "subtask_name": "Benchy", "print_error": 50_364_417,
            ]))
        state.merge(report(["command": "push_status", "msg": 1, "wifi_signal": "-47dBm", "nozzle_temper": 219.5]))
        #expect(state.fields.percent == 42 && state.fields.layer == 17 && state.fields.subtaskName == "Benchy")
        #expect(state.fields.nozzleTemperature == 219.5)
        state.merge(report(["command": "push_status", "msg": 1, "print_error": 0, "stg": [], "mc_percent": 0]))
        #expect(state.fields.printError == 0, "0 replaces a stored error")
        #expect(state.fields.percent == 0)
        #expect(state.fields.stages == [], "arrays are replaced, not merged")
        #expect(state.reportCount == 3)
    }

    @Test("a delta-only printer is not reliable until its first full report")
    func fullReportGate() {
        var state = BambuPrinterState()
        state.merge(report(["command": "push_status", "msg": 1, "gcode_state": "RUNNING", "mc_percent": 10]))
        #expect(!state.hasFullReport)
        state.merge(report(["command": "push_status", "msg": 0, "gcode_state": "RUNNING", "mc_percent": 11]))
        #expect(state.hasFullReport)
        var x1 = BambuPrinterState()
        x1.merge(report(["command": "push_status", "gcode_state": "IDLE", "mc_percent": 0]))
        #expect(x1.hasFullReport, "X1 reports carry no msg and are always full")
    }

    @Test("job titles: P1 file names without extensions, X1 plate files fall back to subtask_name")
    func jobName() {
        var state = BambuPrinterState()
        state.merge(report(["gcode_file": "Benchy v2.gcode.3mf", "subtask_name": "0.2mm layer, 6 walls"]))
        #expect(state.jobName == "Benchy v2")
        state.merge(report(["gcode_file": "/data/Metadata/plate_3.gcode", "subtask_name": "Cable Clip"]))
        #expect(state.jobName == "Cable Clip")
        state.merge(report(["gcode_file": "", "subtask_name": "  "]))
        #expect(state.jobName == nil)
    }

    @Test("P1 deltas merged from the pushall answer converge to the printer's full state", arguments: [1, 2, 3])
    func deltasConverge(seed: UInt64) throws {
        var script = SimulatedPrintScript(model: .p1, ending: .pause(atPercent: 30, reports: 3))
        script.speedVariation = 0.3
        var firmware = SimulatedPrinterFirmware(model: .p1, seed: seed)
        var merged = BambuPrinterState()
        merged.merge(report(try #require(firmware.fullReport()["print"])))
        for step in script.steps() {
            firmware.apply(step.changes)
            merged.merge(report(try #require(firmware.nextReport()["print"])))
            var copy = firmware
            let truth = report(try #require(copy.fullReport()["print"]))
            var mergedFields = merged.fields
            var truthFields = truth
            mergedFields.sequenceID = nil
            truthFields.sequenceID = nil
            mergedFields.messageKind = nil
            truthFields.messageKind = nil
            #expect(mergedFields == truthFields, "after \(step.label)")
        }
    }

    @Test("fuzz: random well-typed deltas merge like a key-by-key merge of the raw objects")
    func fuzzMergeEqualsRawMerge() {
        var random = SeededGenerator(seed: 42)
        let keys: [(String, (inout SeededGenerator) -> JSONValue)] = [
            (
                "gcode_state",
                { g in .string(["IDLE", "PREPARE", "RUNNING", "PAUSE", "FINISH", "FAILED"].randomElement(using: &g)!) }
            ),
            ("mc_percent", { g in .int(Int64.random(in: 0...100, using: &g)) }),
            ("mc_remaining_time", { g in .string(String(Int.random(in: 0...20000, using: &g))) }),
            ("layer_num", { g in .int(Int64.random(in: 0...500, using: &g)) }),
            ("subtask_name", { g in .string(["Benchy", "Clip", "", "Ω-Ständer"].randomElement(using: &g)!) }),
            (
                "stg",
                { g in
                    .array(
                        (0..<Int.random(in: 0...4, using: &g)).map { _ in .int(Int64.random(in: 0...77, using: &g)) })
                }
            ),
            ("stg_cur", { g in .int(Int64([-1, 0, 2, 14, 255].randomElement(using: &g)!)) }),
            ("print_error", { g in .int(Int64([0, 50_348_044, 50_364_417].randomElement(using: &g)!)) }),
            ("nozzle_temper", { g in .double(Double.random(in: 20...300, using: &g)) }),
            ("spd_lvl", { g in .int(Int64.random(in: 1...4, using: &g)) }),
        ]
        for _ in 0..<200 {
            var raw: [String: JSONValue] = [:]
            var merged = BambuPrinterState()
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                var delta: [String: JSONValue] = ["command": "push_status"]
                for (key, make) in keys where Bool.random(using: &random) { delta[key] = make(&random) }
                for (key, value) in delta { raw[key] = value }
                merged.merge(report(.object(delta)))
            }
            #expect(merged.fields == report(.object(raw)))
        }
    }

    @Test("fuzz: garbage never crashes the decoder; wrong types are listed, right ones kept")
    func fuzzGarbage() {
        var random = SeededGenerator(seed: 7)
        let values: [JSONValue] = [
            .null, true, 0, -1, 3.5, "", "12", "x", [], [1, "a"], ["attr": "1"], [["attr": 1, "code": 2]], 1e300,
        ]
        let fields = [
            "gcode_state", "mc_percent", "percent", "layer_num", "total_layer_num", "subtask_name", "stg", "stg_cur",
            "hms", "print_error", "fail_reason", "nozzle_temper", "bed_temper", "msg", "sequence_id", "spd_lvl",
            "task_id", "gcode_file", "device",
        ]
        for _ in 0..<2000 {
            var object: [String: JSONValue] = [:]
            for key in fields where Int.random(in: 0..<3, using: &random) == 0 {
                object[key] = values.randomElement(using: &random)!
            }
            let report = BambuReport(printObject: object)
            #expect(report.droppedFields.allSatisfy { object[$0] != nil && object[$0] != .null })
            var state = BambuPrinterState()
            state.merge(report)
            _ = state.jobName
            // Byte-level garbage: truncations and flips of a valid report.
            var bytes = JSONWriter.bytes(["print": .object(object)])
            if !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = UInt8.random(in: 0...255, using: &random)
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            }
            do {
                _ = try BambuReport.decode(bytes)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }
}
