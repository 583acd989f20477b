/// What a printer is doing according to `stg_cur`: printing, idle, or one of ~80 named stages
/// (heating the bed, levelling, cleaning the nozzle, paused for a reason…).
///
/// Read it only while a job is in progress: idle is -1 on X1/H2 and 255 on P1, but an A1 says 0
/// ("printing") even when idle.
public enum BambuPrintStage: Sendable, Hashable {
    /// 0: printing layers.
    case printing
    /// -1 or 255: nothing.
    case idle
    /// A named stage; `isPause` for the stages that mean the print is paused.
    case named(id: Int, text: String, isPause: Bool)
    /// An id this table does not know (shown as "Preparing").
    case unknown(Int)

    /// The stage for a `stg_cur` value.
    public init(id: Int) {
        switch id {
        case 0: self = .printing
        case -1, 255: self = .idle
        default:
            if let text = Self.names[id] {
                self = .named(id: id, text: text, isPause: text.hasPrefix("Paused"))
            } else {
                self = .unknown(id)
            }
        }
    }

    /// The card text: the stage's name, "Preparing" for unknown stages, nil for printing/idle.
    public var text: String? {
        switch self {
        case .printing, .idle: nil
        case .named(_, let text, _): text
        case .unknown: "Preparing"
        }
    }

    /// True for the stages that mean the print is paused (`Paused: filament runout`).
    public var isPause: Bool {
        if case .named(_, _, let isPause) = self { return isPause }
        return false
    }

    /// Stage names by id (public protocol descriptions; capitalised for display).
    public static let names: [Int: String] = [
        1: "Auto bed leveling", 2: "Heatbed preheating", 3: "Vibration compensation", 4: "Changing filament",
        5: "Paused (M400)", 6: "Paused: filament runout", 7: "Heating hotend", 8: "Calibrating extrusion",
        9: "Scanning bed surface", 10: "Inspecting first layer", 11: "Identifying build plate type",
        12: "Calibrating micro lidar", 13: "Homing toolhead", 14: "Cleaning nozzle tip",
        15: "Checking extruder temperature", 16: "Paused by the user", 17: "Paused: front cover falling",
        18: "Calibrating micro lidar", 19: "Calibrating extrusion flow", 20: "Paused: nozzle temperature malfunction",
        21: "Paused: heatbed temperature malfunction", 22: "Unloading filament", 23: "Paused: skipped step",
        24: "Loading filament", 25: "Calibrating motor noise", 26: "Paused: AMS lost",
        27: "Paused: low heat-break fan speed", 28: "Paused: chamber temperature control error",
        29: "Cooling chamber", 30: "Paused by G-code", 31: "Motor noise showoff",
        32: "Paused: nozzle filament covered", 33: "Paused: cutter error", 34: "Paused: first layer error",
        35: "Paused: nozzle clog", 36: "Checking absolute accuracy", 37: "Absolute accuracy calibration",
        38: "Checking absolute accuracy", 39: "Calibrating nozzle offset", 40: "Bed leveling (high temperature)",
        41: "Checking quick release", 42: "Checking door and cover", 43: "Laser calibration",
        44: "Checking platform", 45: "Checking birdeye camera position", 46: "Calibrating birdeye camera",
        47: "Bed leveling phase 1", 48: "Bed leveling phase 2", 49: "Heating chamber", 50: "Cooling heatbed",
        51: "Printing calibration lines", 52: "Checking material", 53: "Calibrating live view camera",
        54: "Waiting for heatbed temperature", 55: "Checking material position", 56: "Calibrating cutter offset",
        57: "Measuring surface", 58: "Thermal preconditioning", 59: "Homing blade holder",
        60: "Calibrating camera offset", 61: "Calibrating blade holder position", 62: "Hotend pick-and-place test",
        63: "Waiting for chamber temperature", 64: "Preparing hotend", 65: "Calibrating clumping detection",
        66: "Purifying chamber air", 67: "Measuring rotary attachment", 68: "Moving toolhead to purge chute",
        69: "Cooling nozzle", 70: "Moving toolhead to bed center", 71: "Active arc fitting",
        72: "Detecting hotend type", 73: "Detecting build plate alignment", 74: "Checking heatbed for objects",
        75: "Checking heatbed underside", 76: "Pre-extrusion", 77: "Preparing AMS",
    ]
}
