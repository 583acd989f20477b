/// The job state a printer reports in `gcode_state`.
///
/// After a job the printer stays in `finish` or `failed` until the next job starts; `idle` is
/// mostly seen after boot. Values this code does not know are kept as `other` so a future
/// firmware's state is logged rather than rejected.
public enum BambuGcodeState: Sendable, Hashable, CustomStringConvertible {
    /// `IDLE`: nothing to do (mostly after boot; after a job the state stays FINISH/FAILED).
    case idle
    /// `PREPARE`: the job's file is being downloaded and prepared.
    case prepare
    /// `RUNNING`: calibrating (layer 0, `stg_cur` a stage) or printing.
    case running
    /// `PAUSE`: paused by the user, the file, or a problem (`stg_cur`/`print_error` say which).
    case pause
    /// `FINISH`: the last job completed.
    case finish
    /// `FAILED`: the last job stopped: cancelled (0300_400C) or failed.
    case failed
    /// `SLICING` (the printer slices a cloud job itself) — treated as preparing.
    case slicing
    /// `INIT` — treated as preparing.
    case initializing
    /// Any other text (`OFFLINE`, `UNKNOWN`, a new firmware's state).
    case other(String)

    /// Parses the wire value (case-insensitive, surrounding spaces ignored).
    public init(wire: String) {
        let text = wire.uppercased().filter { $0 != " " }
        switch text {
        case "IDLE": self = .idle
        case "PREPARE": self = .prepare
        case "RUNNING": self = .running
        case "PAUSE", "PAUSED": self = .pause
        case "FINISH", "FINISHED": self = .finish
        case "FAILED": self = .failed
        case "SLICING": self = .slicing
        case "INIT": self = .initializing
        default: self = .other(wire)
        }
    }

    /// True for the states of a job in progress: preparing, printing, paused.
    public var isJobInProgress: Bool {
        switch self {
        case .prepare, .running, .pause, .slicing, .initializing: true
        default: false
        }
    }

    /// The wire spelling (`RUNNING`).
    public var description: String {
        switch self {
        case .idle: "IDLE"
        case .prepare: "PREPARE"
        case .running: "RUNNING"
        case .pause: "PAUSE"
        case .finish: "FINISH"
        case .failed: "FAILED"
        case .slicing: "SLICING"
        case .initializing: "INIT"
        case .other(let text): text
        }
    }
}
