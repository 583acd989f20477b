import LiveBridgeCore

/// Everything known about one printer: every report merged, key by key.
///
/// P1/A1 printers send only what changed, so a field is never reset because a report lacks it;
/// `0` is a real value. A delta-only printer has said nothing reliable until its first full
/// report (the answer to `pushall`), which `hasFullReport` records. A pure value: merging is
/// deterministic, so the same reports in the same order always give the same state.
public struct BambuPrinterState: Sendable, Hashable {
    /// The latest value of every field any report carried (`droppedFields` is not kept).
    public private(set) var fields = BambuReport()
    /// True once a full report (msg 0, or an X1 report with state and progress) was merged.
    public private(set) var hasFullReport = false
    /// Reports merged so far.
    public private(set) var reportCount = 0

    /// An empty state.
    public init() {}

    /// Merges one report: every field it carries replaces the stored one; arrays are replaced whole.
    public mutating func merge(_ report: BambuReport) {
        reportCount += 1
        if report.isFull { hasFullReport = true }
        func take<T>(_ path: WritableKeyPath<BambuReport, T?>) {
            if let value = report[keyPath: path] { fields[keyPath: path] = value }
        }
        take(\.messageKind)
        take(\.sequenceID)
        take(\.gcodeState)
        take(\.percent)
        take(\.remainingMinutes)
        take(\.layer)
        take(\.totalLayers)
        take(\.subtaskName)
        take(\.gcodeFile)
        take(\.preparePercent)
        take(\.stages)
        take(\.currentStage)
        take(\.printStage)
        take(\.printError)
        take(\.failReason)
        take(\.hms)
        take(\.speedLevel)
        take(\.speedMagnitude)
        take(\.nozzleTemperature)
        take(\.nozzleTargetTemperature)
        take(\.bedTemperature)
        take(\.bedTargetTemperature)
        take(\.chamberTemperature)
        take(\.printType)
        take(\.taskID)
    }

    /// The state after merging `report`.
    public func merging(_ report: BambuReport) -> BambuPrinterState {
        var copy = self
        copy.merge(report)
        return copy
    }

    /// The job's title: the file name without `.gcode`/`.3mf` (P1), else `subtask_name` (X1 files
    /// are all called `plate_N.gcode`); nil when neither says anything. At most 100 characters.
    public var jobName: String? {
        var title: String?
        if let file = fields.gcodeFile, let name = Self.title(fromFile: file) {
            title = name
        } else if let name = fields.subtaskName?.trimmingWhitespace(), !name.isEmpty {
            title = name
        }
        guard let title else { return nil }
        return title.count <= Self.maximumTitleLength ? title : String(title.prefix(Self.maximumTitleLength - 1)) + "…"
    }

    /// Longest job title kept (the card's subtitle also carries temperatures and speed).
    public static let maximumTitleLength = 100

    /// `Benchy.gcode.3mf` → `Benchy`; nil for `plate_1.gcode`, `/data/Metadata/plate_2.gcode` or `""`.
    static func title(fromFile path: String) -> String? {
        var name = Substring(path.split(separator: "/").last ?? "")
        for suffix in [".gcode.3mf", ".3mf", ".gcode"] where name.lowercased().hasSuffix(suffix) {
            name = name.dropLast(suffix.count)
            break
        }
        let title = String(name).trimmingWhitespace()
        if title.isEmpty { return nil }
        let lower = title.lowercased()
        if lower.hasPrefix("plate_"), lower.dropFirst(6).allSatisfy(\.isNumber) { return nil }
        return title
    }
}
