import LiveBridgeCore

/// The card a session stage shows: the stable part (a change is worth a push) and a volatile
/// detail line (speed, `action_line`) that only rides along with pushes made anyway.
struct SABnzbdCard: Sendable, Hashable {
    var state: String
    var icon: String
    var accent: String
    var subtitle: String
    /// The subtitle with the volatile detail appended, or nil when there is none.
    var detailedSubtitle: String?

    func content(tapURL: String?) -> GenericContent {
        var content = GenericContent(
            state: SABnzbdText.truncated(state), icon: icon, subtitle: SABnzbdText.truncated(subtitle),
            accentColor: accent)
        if let tapURL { content.tapAction = .value(ActionObject(url: tapURL)) }
        return content
    }

    var details: GenericContent {
        var details = GenericContent()
        if let detailedSubtitle { details.subtitle = .value(SABnzbdText.truncated(detailedSubtitle)) }
        return details
    }

    /// Appends a volatile detail to the subtitle.
    func detailed(_ detail: String?) -> SABnzbdCard {
        var copy = self
        if let detail, !detail.isEmpty {
            copy.detailedSubtitle = subtitle.isEmpty ? detail : subtitle + " · " + detail
        }
        return copy
    }

    init(state: String, icon: String, accent: String, subtitle: String, detailedSubtitle: String? = nil) {
        self.state = state
        self.icon = icon
        self.accent = accent
        self.subtitle = subtitle
        self.detailedSubtitle = detailedSubtitle
    }
}

/// Texts, icons and colours of each stage (SF Symbols; the card's named colours).
enum SABnzbdStageText {
    static func postProcessing(_ status: String) -> (state: String, icon: String) {
        switch status {
        case "Queued": ("Queued for processing", "hourglass")
        case "QuickCheck": ("Quick check", "checkmark.shield")
        case "Verifying": ("Verifying", "checkmark.shield")
        case "Repairing": ("Repairing", "wrench.and.screwdriver")
        case "Fetching": ("Fetching repair blocks", "arrow.down.doc")
        case "Extracting": ("Extracting", "archivebox")
        case "Moving": ("Moving", "folder")
        case "Running": ("Running script", "terminal")
        default: (status, "gearshape.2")
        }
    }
}
