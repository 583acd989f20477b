import LiveBridgeCore

/// The stable part of a printer's card: state text, icon and colour. A change of any of these is
/// something a person notices, so it is worth a push; layer counts, temperatures and speed are
/// volatile details that ride along with pushes that happen anyway.
struct BambuCard: Sendable, Hashable {
    var state: String
    var icon: String
    var accentColor: String

    static let preparingColor = "teal"
    static let printingColor = "blue"
    static let pausedColor = "yellow"
    static let offlineColor = "#8E8E93"

    static let complete = BambuCard(state: "Complete", icon: "checkmark.circle.fill", accentColor: "green")
    static let cancelled = BambuCard(state: "Cancelled", icon: "xmark.circle.fill", accentColor: "orange")
    static let offline = BambuCard(state: "Printer offline", icon: "wifi.slash", accentColor: offlineColor)

    static func failed(reason: String?) -> BambuCard {
        BambuCard(
            state: reason.map { "Failed: \($0)" } ?? "Failed", icon: "exclamationmark.triangle.fill",
            accentColor: "red")
    }

    /// Everything the card shows for a job in progress.
    struct View: Sendable, Hashable {
        var card: BambuCard
        var paused: Bool
        /// Volatile state text (`Layer 17/40`, `Downloading 61 %`), nil to show `card.state`.
        var detailState: String?
        /// Volatile subtitle: the job name with temperatures and speed.
        var detailSubtitle: String?
        var progress: Double
        var eta: ActivityETA?
    }

    /// The card for a printer preparing, printing or paused.
    static func describe(_ fields: BambuReport, jobName: String?) -> View {
        let progress = BambuActivityMapper.fraction(fields.percent ?? 0)
        let subtitle = detailSubtitle(fields, jobName: jobName)
        let stage = fields.currentStage.map(BambuPrintStage.init(id:)) ?? .printing
        switch fields.gcodeState {
        case .pause?:
            return View(
                card: BambuCard(state: pauseReason(fields), icon: "pause.circle.fill", accentColor: pausedColor),
                paused: true, detailState: nil, detailSubtitle: subtitle, progress: progress, eta: nil)
        case .running?:
            let calibrating = (fields.layer ?? 0) == 0 && stage.text != nil
            if calibrating, let text = stage.text {
                return View(
                    card: BambuCard(state: text, icon: "gearshape.2.fill", accentColor: preparingColor), paused: false,
                    detailState: nil, detailSubtitle: subtitle, progress: progress, eta: nil)
            }
            let minutes = fields.remainingMinutes ?? 0
            return View(
                card: BambuCard(state: "Printing", icon: "printer.fill", accentColor: printingColor), paused: false,
                detailState: layerText(fields), detailSubtitle: subtitle, progress: progress,
                eta: minutes > 0 ? .remaining(Double(minutes) * 60) : nil)
        default:
            // PREPARE, SLICING, INIT: a named stage when the printer says one, else "Preparing".
            let text = stage.text ?? "Preparing"
            var detail: String?
            if text == "Preparing", let percent = fields.preparePercent, (1...99).contains(percent) {
                detail = "Downloading \(percent) %"
            }
            return View(
                card: BambuCard(state: text, icon: "gearshape.2.fill", accentColor: preparingColor), paused: false,
                detailState: detail, detailSubtitle: subtitle, progress: progress, eta: nil)
        }
    }

    /// `Layer 17/40`; `Layer 17` without a total; `42 %` without layers; nil before layer 1.
    static func layerText(_ fields: BambuReport) -> String? {
        if let layer = fields.layer, layer > 0 {
            if let total = fields.totalLayers, total > 0 { return "Layer \(layer)/\(total)" }
            return "Layer \(layer)"
        }
        if (fields.totalLayers ?? 0) == 0, let percent = fields.percent, percent > 0 { return "\(percent) %" }
        return nil
    }

    /// Why the print is paused: the error code's meaning, else the pause stage, else "Paused".
    static func pauseReason(_ fields: BambuReport) -> String {
        let code = fields.printError ?? 0
        if code != 0, let text = pauseTexts[code] { return text }
        let stage = fields.currentStage.map(BambuPrintStage.init(id:))
        if let stage, stage.isPause, let text = stage.text { return text }
        if code != 0 {
            if let text = BambuErrorCatalog.texts[code] { return "Paused: \(text)" }
            return "Paused: error \(BambuErrorCatalog.code(code))"
        }
        if let alert = fields.hms?.first { return "Paused: HMS \(alert.text)" }
        return "Paused"
    }

    static let pauseTexts: [Int: String] = [
        0x0300_8000: "Paused",
        0x0300_8001: "Paused by the user",
        0x0300_800F: "Paused: door open",
        0x0300_8013: "Paused by G-code",
        0x0300_8015: "Paused: filament runout",
        0x0700_8004: "Paused: AMS failed to pull back filament",
        0x0700_8006: "Paused: cannot feed filament",
    ]

    /// `Benchy · 220 °C / 60 °C · Standard`: the volatile subtitle.
    static func detailSubtitle(_ fields: BambuReport, jobName: String?) -> String? {
        var parts: [String] = []
        if let jobName { parts.append(jobName) }
        if let nozzle = fields.nozzleTemperature {
            var text = "\(Int(nozzle.rounded())) °C"
            if let bed = fields.bedTemperature { text += " / \(Int(bed.rounded())) °C" }
            parts.append(text)
        }
        if let level = fields.speedLevel, let name = speedNames[level] { parts.append(name) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    static let speedNames = [1: "Silent", 2: "Standard", 3: "Sport", 4: "Ludicrous"]
}
