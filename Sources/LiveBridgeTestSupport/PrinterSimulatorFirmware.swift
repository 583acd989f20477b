public import LiveBridgeCore

/// The printer family a simulated printer plays.
public enum SimulatedPrinterModel: String, Sendable, CaseIterable {
    /// X1/X1C/X1E: the full object on every report, no `msg`, idle `stg_cur` -1, has `fail_reason`.
    case x1
    /// P1P/P1S: only changed keys plus `command`/`msg: 1`/`sequence_id`; full `msg: 0` on pushall;
    /// idle `stg_cur` 255; `chamber_temper` a constant 5.
    case p1
    /// A1/A1 mini: like P1, but `stg_cur` is 0 even when idle and there is no chamber sensor.
    case a1

    /// What `stg_cur` says when the printer is idle.
    public var idleStage: Int {
        switch self {
        case .x1: -1
        case .p1: 255
        case .a1: 0
        }
    }

    /// True for the families that send deltas.
    public var sendsDeltas: Bool { self != .x1 }
}

/// A Bambu Lab printer's firmware as a value: the full `print` object, and what the printer
/// publishes next — the whole object (X1) or the keys that changed since the last report (P1/A1),
/// with temperature and Wi-Fi noise like the real thing.
///
/// Deterministic for a given seed, so recordings made from it can be regenerated exactly. The
/// object's shape follows the public descriptions of the protocol (field names, wire types:
/// numbers sent as strings, floats for temperatures); its content is made up.
public struct SimulatedPrinterFirmware: Sendable {
    /// The family played.
    public let model: SimulatedPrinterModel
    /// The serial (upper case), for topics.
    public let serial: String
    /// The full `print` object as the printer holds it.
    public private(set) var state: [String: JSONValue]
    /// What the client was last sent (deltas are computed against it).
    private var sent: [String: JSONValue]
    private var sequence: Int
    private var random: SimulatedRandom

    /// A printer that has just booted: idle, cold, an AMS with four PLA spools.
    public init(model: SimulatedPrinterModel, serial: String = "01P00A000000001", seed: UInt64 = 1) {
        self.model = model
        self.serial = serial.uppercased()
        random = SimulatedRandom(seed: seed)
        sequence = 1000 + Int(random.next() % 30000)
        state = Self.bootState(model)
        sent = state
    }

    /// `device/<serial>/report`.
    public var reportTopic: String { "device/\(serial)/report" }
    /// `device/<serial>/request`.
    public var requestTopic: String { "device/\(serial)/request" }

    /// Changes the printer's state (what the next report will carry).
    public mutating func apply(_ changes: [String: JSONValue]) {
        for (key, value) in changes { state[key] = value }
    }

    /// The next periodic report: the whole object on X1, the changed keys on P1/A1 (the Wi-Fi
    /// signal when nothing else changed). With `noise`, temperatures move toward their targets and
    /// the Wi-Fi signal wobbles first, as on a real printer.
    public mutating func nextReport(noise: Bool = true) -> JSONValue {
        if noise { addNoise() }
        guard model.sendsDeltas else { return fullReport() }
        var delta: [String: JSONValue] = [:]
        for (key, value) in state where sent[key] != value { delta[key] = value }
        if delta.isEmpty { delta["wifi_signal"] = state["wifi_signal"] }
        delta["command"] = "push_status"
        delta["msg"] = 1
        delta["sequence_id"] = .string(nextSequence())
        sent = state
        return ["print": .object(delta)]
    }

    /// The whole object: the answer to `pushall` (with `msg: 0` on P1/A1, none on X1).
    public mutating func fullReport() -> JSONValue {
        var object = state
        if model.sendsDeltas { object["msg"] = 0 }
        object["sequence_id"] = .string(nextSequence())
        sent = state
        return ["print": .object(object)]
    }

    private mutating func nextSequence() -> String {
        sequence += 1
        return String(sequence)
    }

    private mutating func addNoise() {
        state["wifi_signal"] = .string("-\(44 + Int(random.next() % 9))dBm")
        for (current, target) in [("nozzle_temper", "nozzle_target_temper"), ("bed_temper", "bed_target_temper")] {
            let goal = state[target]?.doubleValue.flatMap { $0 > 0 ? $0 : nil } ?? 24
            let now = state[current]?.doubleValue ?? 24
            let jitter = [-0.0625, 0, 0.03125][Int(random.next() % 3)]
            state[current] = .double(((now + (goal - now) * 0.5 + jitter) * 32).rounded() / 32)
        }
    }

    static func bootState(_ model: SimulatedPrinterModel) -> [String: JSONValue] {
        var trays: [JSONValue] = []
        for (index, color) in ["5E43B7FF", "0A2989FF", "C12E1FFF", "000000FF"].enumerated() {
            trays.append([
                "id": .string(String(index)), "remain": 100, "tray_type": "PLA", "tray_sub_brands": "PLA Basic",
                "tray_color": .string(color), "tray_info_idx": "GFA00", "nozzle_temp_max": "230",
                "nozzle_temp_min": "190", "tray_weight": "1000", "tray_diameter": "1.75", "cols": [.string(color)],
            ])
        }
        var state: [String: JSONValue] = [
            "command": "push_status",
            "upgrade_state": ["status": "IDLE", "progress": "", "message": "0%, 0B/s", "new_version_state": 2],
            "ipcam": ["ipcam_dev": "1", "ipcam_record": "enable", "timelapse": "disable", "resolution": ""],
            "upload": ["status": "idle", "progress": 0, "message": ""],
            "nozzle_temper": 24.0, "nozzle_target_temper": 0, "bed_temper": 22.0, "bed_target_temper": 0,
            "chamber_temper": 5, "mc_print_stage": "1", "heatbreak_fan_speed": "0", "cooling_fan_speed": "0",
            "big_fan1_speed": "0", "big_fan2_speed": "0", "mc_percent": 0, "mc_remaining_time": 0,
            "ams_status": 0, "hw_switch_state": 1, "spd_mag": 100, "spd_lvl": 2, "print_error": 0,
            "lifecycle": "product", "wifi_signal": "-48dBm", "gcode_state": "IDLE", "gcode_file_prepare_percent": "0",
            "queue_number": 0, "project_id": "0", "profile_id": "0", "task_id": "0", "subtask_id": "0",
            "subtask_name": "", "gcode_file": "", "stg": [], "stg_cur": .int(Int64(model.idleStage)),
            "print_type": "idle", "mc_print_line_number": "0", "mc_print_sub_stage": 0, "sdcard": true,
            "layer_num": 0, "total_layer_num": 0, "s_obj": [], "fan_gear": 0, "nozzle_diameter": "0.4",
            "nozzle_type": "hardened_steel", "hms": [], "online": ["ahb": false, "rfid": false],
            "ams": [
                "ams": [["id": "0", "humidity": "5", "temp": "0.0", "tray": .array(trays)]], "ams_exist_bits": "1",
                "tray_exist_bits": "f", "tray_now": "255", "tray_tar": "255", "version": 103,
            ],
            "vt_tray": ["id": "254", "tray_type": "", "tray_color": "00000000", "remain": 0],
            "lights_report": [["node": "chamber_light", "mode": "on"]],
        ]
        switch model {
        case .x1:
            state["chamber_temper"] = 27.0
            state["fail_reason"] = "0"
            state["print_type"] = ""
            state["ipcam"] = [
                "ipcam_dev": "1", "ipcam_record": "enable", "timelapse": "disable", "resolution": "1080p",
            ]
            state["xcam"] = ["first_layer_inspector": true, "spaghetti_detector": true, "print_halt": true]
        case .p1:
            break
        case .a1:
            state["chamber_temper"] = nil
        }
        return state
    }
}

/// A tiny deterministic generator (SplitMix64) so simulated reports are reproducible.
struct SimulatedRandom: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
