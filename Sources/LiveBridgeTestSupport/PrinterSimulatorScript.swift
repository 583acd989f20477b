import Foundation
public import LiveBridgeCore

/// One report's worth of change in a simulated print.
public struct SimulatedPrintStep: Sendable {
    /// Simulated seconds since the script started.
    public var time: Double
    /// The printer state keys that change before this report.
    public var changes: [String: JSONValue]
    /// What is happening (`prepare 22 %`, `stage 2`, `printing 41 %`, `pause`), for test messages.
    public var label: String

    /// A step.
    public init(time: Double, changes: [String: JSONValue], label: String) {
        self.time = time
        self.changes = changes
        self.label = label
    }
}

/// A scripted print, the way a Bambu printer's firmware goes through it: idle reports, PREPARE
/// (file download 0 → 100 %), RUNNING with `layer_num` 0 while `stg_cur` walks the calibration
/// stages, printing layers (percent, layer, minutes left), then an ending; afterwards the targets
/// drop to 0 and a few more reports follow.
///
/// Progress can run unevenly (`speedVariation`) and the printer's minutes-left estimate can be
/// biased (`remainingBias`), to exercise the push economy like a real print does.
public struct SimulatedPrintScript: Sendable {
    /// How the job ends.
    public enum Ending: Sendable, Hashable {
        /// FINISH at 100 %.
        case finish
        /// PAUSE by the user at `percent` (`stg_cur` 16, `print_error` 0300_8001) for `reports`
        /// reports, then resume and finish.
        case pause(atPercent: Int, reports: Int)
        /// PAUSE for a filament runout (`stg_cur` 6, `print_error` 0300_8015), resume, finish.
        case runout(atPercent: Int, reports: Int)
        /// FAILED with 0300_4057 (Z-axis step loss) and an HMS alert (`fail_reason` on X1).
        case fail(atPercent: Int)
        /// FAILED with 0300_400C (user cancel) for two reports, then `print_error` back to 0.
        case cancel(atPercent: Int)
        /// Straight to IDLE (older firmware's cancel).
        case cancelToIdle(atPercent: Int)
    }

    /// The printer family (decides X1 full reports or P1/A1 deltas, idle `stg_cur`, `fail_reason`).
    public var model: SimulatedPrinterModel
    /// The job name (`subtask_name`; P1 `gcode_file` is `<name>.gcode.3mf`).
    public var name: String
    /// `total_layer_num`.
    public var layers: Int
    /// Printing time in minutes (calibration comes on top).
    public var printMinutes: Double
    /// Simulated seconds between two reports.
    public var reportInterval: Double
    /// How the job ends.
    public var ending: Ending
    /// Idle reports before the job starts.
    public var idleReports: Int = 2
    /// Reports after the job ended.
    public var tailReports: Int = 3
    /// 0 = progress linear in time; up to 0.9 = the speed swings by that fraction (three cycles).
    public var speedVariation: Double = 0
    /// The minutes-left estimate is this fraction too long (negative: too short).
    public var remainingBias: Double = 0
    /// Planned calibration stages (`stg`).
    public var stages: [Int] = [2, 13, 1, 7, 14]

    /// A script; defaults give a short 20-minute print with a report per simulated minute.
    public init(
        model: SimulatedPrinterModel, name: String = "Benchy", layers: Int = 40, printMinutes: Double = 20,
        reportInterval: Double = 60, ending: Ending = .finish
    ) {
        self.model = model
        self.name = name
        self.layers = layers
        self.printMinutes = printMinutes
        self.reportInterval = reportInterval
        self.ending = ending
    }

    /// The true progress fraction after `elapsed` of `total` printing seconds.
    func progress(_ elapsed: Double, total: Double) -> Double {
        let x = min(1, max(0, elapsed / total))
        let cycles = 3.0
        let swing = min(0.9, max(0, speedVariation)) / (2 * .pi * cycles) * sin(2 * .pi * cycles * x)
        return min(1, max(0, x + swing))
    }

    /// Every step of the print, in order.
    public func steps() -> [SimulatedPrintStep] {
        var steps: [SimulatedPrintStep] = []
        var time = 0.0
        func add(_ changes: [String: JSONValue], _ label: String) {
            steps.append(SimulatedPrintStep(time: time, changes: changes, label: label))
            time += reportInterval
        }
        for index in 0..<idleReports { add([:], "idle \(index + 1)") }
        let file: JSONValue = .string(model == .x1 ? "/data/Metadata/plate_1.gcode" : "\(name).gcode.3mf")
        let totalSeconds = printMinutes * 60
        add(
            [
                "gcode_state": "PREPARE", "subtask_name": .string(name), "gcode_file": file, "print_type": "local",
                "mc_print_stage": "1", "gcode_file_prepare_percent": "0", "total_layer_num": .int(Int64(layers)),
                "layer_num": 0, "mc_percent": 0, "mc_remaining_time": .int(Int64(remaining(totalSeconds))),
                "task_id": "400123456", "subtask_id": "400123457", "stg": .array(stages.map { .int(Int64($0)) }),
            ], "prepare 0 %")
        for percent in [22, 61, 100] {
            add(["gcode_file_prepare_percent": .string(String(percent))], "prepare \(percent) %")
        }
        add(
            [
                "gcode_state": "RUNNING", "mc_print_stage": "2", "bed_target_temper": 60, "nozzle_target_temper": 220,
                "stg_cur": .int(Int64(stages.first ?? 2)),
            ], "stage \(stages.first ?? 2)")
        for (index, stage) in stages.enumerated() {
            if index > 0 { add(["stg_cur": .int(Int64(stage))], "stage \(stage)") }
            add([:], "stage \(stage)")
        }
        var elapsed = 0.0
        var first = true
        var paused = false
        while elapsed < totalSeconds {
            let fraction = progress(elapsed, total: totalSeconds)
            let percent = Int(100 * fraction)
            var changes: [String: JSONValue] = [
                "mc_percent": .int(Int64(percent)), "layer_num": .int(Int64(max(1, Int(Double(layers) * fraction)))),
                "mc_remaining_time": .int(Int64(remaining(totalSeconds - elapsed))),
                "mc_print_line_number": .string(String(Int(elapsed * 7))),
            ]
            if first {
                changes["stg_cur"] = 0
                first = false
            }
            switch ending {
            case .pause(let at, let reports) where !paused && percent >= at,
                .runout(let at, let reports) where !paused && percent >= at:
                paused = true
                let runout: Bool
                if case .runout = ending { runout = true } else { runout = false }
                changes.merge(
                    [
                        "gcode_state": "PAUSE", "stg_cur": .int(runout ? 6 : 16), "mc_print_stage": "3",
                        "print_error": .int(runout ? 0x0300_8015 : 0x0300_8001),
                    ], uniquingKeysWith: { $1 })
                if runout { changes["hw_switch_state"] = 0 }
                add(changes, runout ? "runout" : "pause")
                for index in 1..<max(1, reports) { add([:], "paused \(index)") }
                var resume: [String: JSONValue] = [
                    "gcode_state": "RUNNING", "stg_cur": 0, "print_error": 0, "mc_print_stage": "2",
                ]
                if runout { resume["hw_switch_state"] = 1 }
                add(resume, "resume")
                continue
            case .fail(let at) where percent >= at:
                add(changes, "printing \(percent) %")
                var failure: [String: JSONValue] = [
                    "gcode_state": "FAILED", "print_error": .int(0x0300_4057), "mc_print_stage": "1",
                    "stg_cur": .int(Int64(model.idleStage)), "hms": [["attr": 0x0300_4000, "code": 0x0002_0001]],
                ]
                if model == .x1 { failure["fail_reason"] = .string(String(0x0300_4057)) }
                add(failure, "failed")
                return coolDown(steps, time: time)
            case .cancel(let at) where percent >= at:
                add(changes, "printing \(percent) %")
                var cancel: [String: JSONValue] = [
                    "gcode_state": "FAILED", "print_error": .int(0x0300_400C), "mc_print_stage": "1",
                    "stg_cur": .int(Int64(model.idleStage)),
                ]
                if model == .x1 { cancel["fail_reason"] = .string(String(0x0300_400C)) }
                add(cancel, "cancelled")
                add([:], "cancelled")
                add(["print_error": 0], "error cleared")
                return coolDown(steps, time: time)
            case .cancelToIdle(let at) where percent >= at:
                add(changes, "printing \(percent) %")
                add(
                    [
                        "gcode_state": "IDLE", "stg_cur": .int(Int64(model.idleStage)), "mc_print_stage": "1",
                        "print_type": "idle", "mc_percent": 0, "mc_remaining_time": 0,
                    ], "idle after cancel")
                return coolDown(steps, time: time)
            default:
                break
            }
            add(changes, "printing \(percent) %")
            elapsed += reportInterval
        }
        var finish: [String: JSONValue] = [
            "gcode_state": "FINISH", "mc_percent": 100, "mc_remaining_time": 0, "layer_num": .int(Int64(layers)),
            "stg_cur": .int(Int64(model.idleStage)), "mc_print_stage": "1", "print_type": "idle",
        ]
        if model != .x1 { finish["gcode_file"] = "" }
        add(finish, "finish")
        return coolDown(steps, time: time)
    }

    private func coolDown(_ done: [SimulatedPrintStep], time start: Double) -> [SimulatedPrintStep] {
        var steps = done
        var time = start
        for index in 0..<tailReports {
            let changes: [String: JSONValue] =
                index == 0 ? ["nozzle_target_temper": 0, "bed_target_temper": 0] : [:]
            steps.append(SimulatedPrintStep(time: time, changes: changes, label: "cool down \(index + 1)"))
            time += reportInterval
        }
        return steps
    }

    /// Whole minutes the printer says are left (rounded down, as the firmware does).
    private func remaining(_ seconds: Double) -> Int {
        max(0, Int((seconds * (1 + remainingBias)) / 60))
    }

    /// The print as a replay recording: `{"t": s, "topic": …, "payload": {"print": {…}}}` per line,
    /// starting with the full report a bridge gets for its `pushall`.
    public func recording(serial: String = "01P00A000000001", seed: UInt64 = 1) -> [String] {
        var firmware = SimulatedPrinterFirmware(model: model, serial: serial, seed: seed)
        var lines: [String] = []
        func line(_ time: Double, _ payload: JSONValue) -> String {
            JSONWriter.string([
                "t": .number((time * 1000).rounded() / 1000), "topic": .string(firmware.reportTopic),
                "payload": payload,
            ])
        }
        lines.append(line(0, firmware.fullReport()))
        for step in steps() {
            firmware.apply(step.changes)
            lines.append(line(step.time + 0.5, firmware.nextReport()))
        }
        return lines
    }
}
