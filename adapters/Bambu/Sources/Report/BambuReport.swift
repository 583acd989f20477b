/// One `push_status` report as a Bambu Lab printer sent it: every field it carried, typed.
///
/// X1-family printers send the whole object every time; P1/A1 printers send only the keys that
/// changed. So every field is optional — absent means "not in this report", never "zero" — and
/// `BambuPrinterState` merges reports into the printer's current state. Decoding is tolerant: a
/// field with a value of an unexpected type is left out (and named in `droppedFields`), the rest
/// of the report still counts.
public struct BambuReport: Sendable, Hashable {
    /// `msg`: 0 for a full report (pushall answer, newer firmware), 1 for a delta; often absent.
    public var messageKind: Int?
    /// `sequence_id`, as sent (a string that counts up per report).
    public var sequenceID: String?
    /// `gcode_state`: `IDLE`, `PREPARE`, `RUNNING`, `PAUSE`, `FINISH`, `FAILED`, …
    public var gcodeState: BambuGcodeState?
    /// `mc_percent` (or the newer alias `percent`): progress in whole percent.
    public var percent: Int?
    /// `mc_remaining_time` (or `remain_time`): the printer's estimate of the time left, in minutes.
    public var remainingMinutes: Int?
    /// `layer_num`: the current layer, 0 while calibrating.
    public var layer: Int?
    /// `total_layer_num`.
    public var totalLayers: Int?
    /// `subtask_name`: usually the model name, sometimes a slicer preset.
    public var subtaskName: String?
    /// `gcode_file`: `/data/Metadata/plate_1.gcode` (X1), `Benchy.gcode.3mf` (P1), `""` after a P1S finish.
    public var gcodeFile: String?
    /// `gcode_file_prepare_percent` (or `prepare_per`): file download/preparation progress in PREPARE.
    public var preparePercent: Int?
    /// `stg`: the calibration stages planned for this job.
    public var stages: [Int]?
    /// `stg_cur`: the current stage (0 printing; -1 or 255 idle; A1 says 0 even when idle).
    public var currentStage: Int?
    /// `mc_print_stage` (or `mc_stage`): 1 idle/prepare, 2 printing, 3 paused.
    public var printStage: Int?
    /// `print_error`: 0 or an error code (`0x0300400C` = user cancel).
    public var printError: Int?
    /// `fail_reason` (X1/H2 only): 0 or the code that ended the job, sent as a decimal string.
    public var failReason: Int?
    /// `hms`: health-management alerts.
    public var hms: [BambuHMSCode]?
    /// `spd_lvl`: 1 silent, 2 standard, 3 sport, 4 ludicrous.
    public var speedLevel: Int?
    /// `spd_mag`: the speed magnitude in percent.
    public var speedMagnitude: Int?
    /// `nozzle_temper` in °C.
    public var nozzleTemperature: Double?
    /// `nozzle_target_temper` in °C.
    public var nozzleTargetTemperature: Double?
    /// `bed_temper` in °C.
    public var bedTemperature: Double?
    /// `bed_target_temper` in °C.
    public var bedTargetTemperature: Double?
    /// `chamber_temper` in °C (a constant 5 on P1 printers).
    public var chamberTemperature: Double?
    /// `print_type`: `local`, `cloud`, `idle`, `system`, `""`.
    public var printType: String?
    /// `task_id`: the job's id (`"0"` when idle or printed from the SD card on some models).
    public var taskID: String?
    /// Keys that were present with a value of an unexpected type, or a temperature no sensor reads,
    /// and were therefore left out.
    public var droppedFields: [String] = []

    /// The hottest temperature a report is believed at, in °C: Bambu's hotends reach 300–350 °C, and
    /// a thermistor's reading past 1000 °C is a garbled field, not a temperature.
    public static let hottestReading: Double = 1000

    /// The coldest, in °C: absolute zero (a P1's constant chamber 5 °C and a cold bed are well above).
    public static let coldestReading: Double = -273.15

    /// An empty report (nothing known).
    public init() {}

    /// True when the report describes the whole printer, not just what changed: `msg` 0, or an X1
    /// report (no `msg`) that carries the job state and the progress.
    public var isFull: Bool {
        if let messageKind { return messageKind == 0 }
        return gcodeState != nil && percent != nil
    }
}

/// What arrived on a printer's report topic.
public enum BambuMessage: Sendable, Hashable {
    /// A `print.push_status` report: the printer's state (whole or changes).
    case status(BambuReport)
    /// Anything else (command acknowledgements, `info` replies, `mc_print` log lines, upgrade
    /// messages): ignored by the adapter; the text says what it was.
    case other(String)
}

/// A report that cannot be read at all (as opposed to a field of an unexpected type, which only
/// drops that field).
public struct BambuReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: String, Sendable, Hashable {
        /// The payload is not JSON.
        case notJSON
        /// The payload is JSON but not an object.
        case notAnObject
        /// `print` is present but is not an object.
        case printNotAnObject
    }

    /// The kind of problem.
    public var code: Code
    /// What was wrong, for logs (never contains payload secrets: reports carry none).
    public var message: String

    /// An error of `code` saying `message`.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
