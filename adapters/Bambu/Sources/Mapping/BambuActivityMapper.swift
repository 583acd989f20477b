public import LiveBridgeCore

/// Turns a printer's reports and connection changes into activity updates: one activity per
/// printer, following one job from PREPARE to its end.
///
/// A pure value with no I/O and no clock — every method takes the time — so the adapter, the
/// replay command and the tests share it, and it can be fuzzed. Rules (see docs/bambu.md):
/// - tracking starts on PREPARE/RUNNING/PAUSE once a full report has arrived; a FINISH or FAILED
///   seen without a job in progress is an old job and starts nothing;
/// - FINISH ends with success; FAILED ends cancelled for the cancel codes, else failed with the
///   first error code seen (waiting `failureSettle` for one); IDLE while tracking ends cancelled;
/// - a printer unreachable for `offlineGrace` is shown as "Printer offline" (paused, bar held), and
///   the activity ends only after `offlineTimeout` without a connection.
public struct BambuActivityMapper: Sendable {
    /// Timing rules.
    public struct Settings: Sendable, Hashable {
        /// Seconds without a connection before the card says "Printer offline".
        public var offlineGrace: Double
        /// Seconds without a connection before the activity is ended.
        public var offlineTimeout: Double
        /// Seconds to wait after FAILED for an error code that explains it.
        public var failureSettle: Double
        /// Where `Layer N/M` goes while printing.
        public var layerText: BambuLayerText

        /// The defaults: offline after 60 s, ended after 1 h, 3 s for the failure code, layers as details.
        public init(
            offlineGrace: Double = 60, offlineTimeout: Double = 3600, failureSettle: Double = 3,
            layerText: BambuLayerText = .details
        ) {
            self.offlineGrace = offlineGrace
            self.offlineTimeout = offlineTimeout
            self.failureSettle = failureSettle
            self.layerText = layerText
        }
    }

    /// The activity's slug (`bambu-01p00a000000001`).
    public let slug: String
    /// The activity's display name (the configured printer name).
    public let printerName: String
    /// Timing rules.
    public var settings: Settings
    /// Every report merged so far.
    public private(set) var printer = BambuPrinterState()
    /// The job being followed, nil when no activity is running.
    public private(set) var job: BambuJob?
    /// True while the card says "Printer offline".
    public private(set) var isShowingOffline = false
    private var disconnectedSince: Double?
    private var failedSince: Double?

    /// A mapper for one printer; `job` resumes a job remembered from before a restart.
    public init(slug: String, printerName: String, settings: Settings = Settings(), resuming job: BambuJob? = nil) {
        self.slug = slug
        self.printerName = printerName
        self.settings = settings
        self.job = job
    }

    /// Merges one report and returns the updates it causes (one while a job runs or ends, else none).
    public mutating func observe(_ report: BambuReport, at time: Double) -> [ActivityUpdate] {
        printer.merge(report)
        disconnectedSince = nil
        isShowingOffline = false
        guard printer.hasFullReport, let state = printer.fields.gcodeState else { return [] }
        if state.isJobInProgress {
            failedSince = nil
            followJob(at: time)
            return [progressUpdate(at: time)]
        }
        guard job != nil else { return [] }
        switch state {
        case .finish:
            return [ending(.success, code: nil, at: time)]
        case .idle:
            // Older firmware goes straight to IDLE when a job is cancelled.
            return [ending(.cancelled, code: nil, at: time)]
        case .failed:
            if let code = failureCode(in: report) {
                return [ending(BambuErrorCatalog.isCancel(code) ? .cancelled : .failure, code: code, at: time)]
            }
            let since = failedSince ?? time
            failedSince = since
            return time - since >= settings.failureSettle ? [ending(.failure, code: nil, at: time)] : []
        default:
            // An unknown state (a new firmware's, OFFLINE): keep the card as it is.
            return []
        }
    }

    /// Records whether the printer is connected; returns what that changes now (see `tick`).
    public mutating func connectionChanged(isConnected: Bool, at time: Double) -> [ActivityUpdate] {
        if isConnected {
            disconnectedSince = nil
        } else if disconnectedSince == nil {
            disconnectedSince = time
        }
        return tick(at: time)
    }

    /// Performs what is due by `time`: a failure that waited for its code, "Printer offline" after
    /// the grace period, the end after the offline timeout.
    public mutating func tick(at time: Double) -> [ActivityUpdate] {
        guard job != nil else { return [] }
        if let since = failedSince, time - since >= settings.failureSettle {
            return [ending(.failure, code: nil, at: time)]
        }
        guard let since = disconnectedSince else { return [] }
        if time - since >= settings.offlineTimeout {
            return [offlineEnd(at: time)]
        }
        if time - since >= settings.offlineGrace, !isShowingOffline {
            isShowingOffline = true
            return [offlineUpdate(at: time)]
        }
        return []
    }

    // MARK: - Job bookkeeping

    private mutating func followJob(at time: Double) {
        let fields = printer.fields
        let taskID = fields.taskID.flatMap { $0 == "0" || $0.isEmpty ? nil : $0 }
        if var current = job {
            if let taskID, let previous = current.taskID, previous != taskID {
                // A new job started while we missed the previous one's end: follow the new one.
                current = BambuJob(name: printer.jobName, taskID: taskID, startedAt: time)
            }
            if current.name == nil { current.name = printer.jobName }
            if current.taskID == nil { current.taskID = taskID }
            job = current
        } else {
            job = BambuJob(name: printer.jobName, taskID: taskID, startedAt: time)
        }
        if let percent = fields.percent, fields.gcodeState == .running || fields.gcodeState == .pause {
            job?.lastProgress = Self.fraction(percent)
        }
    }

    /// The code that explains a FAILED state: a non-zero `print_error`/`fail_reason` in this
    /// report, else a stored one that is a cancel or a task-stopping code (a stored pause code is
    /// stale: it explained the pause, not the failure).
    private func failureCode(in report: BambuReport) -> Int? {
        let fresh = [report.printError, report.failReason].compactMap { $0 }.filter { $0 != 0 }
        if let cancel = fresh.first(where: BambuErrorCatalog.isCancel) { return cancel }
        if let first = fresh.first { return first }
        let stored = [printer.fields.printError, printer.fields.failReason].compactMap { $0 }
            .filter { $0 != 0 && (BambuErrorCatalog.isCancel($0) || BambuErrorCatalog.isFatal($0)) }
        return stored.first(where: BambuErrorCatalog.isCancel) ?? stored.first
    }

    static func fraction(_ percent: Int) -> Double {
        Double(min(100, max(0, percent))) / 100
    }

    // MARK: - Updates

    private func update(
        phase: ActivityPhase, card: BambuCard, details: GenericContent = GenericContent(), progress: Double?,
        eta: ActivityETA?, at time: Double
    ) -> ActivityUpdate {
        let content = GenericContent(
            state: card.state, icon: card.icon, subtitle: job?.name, accentColor: card.accentColor)
        // `mc_percent` is whole percent and `mc_remaining_time` whole minutes, both floored.
        var update = ActivityUpdate(
            slug: slug, name: printerName, phase: phase, content: content, details: details, progress: progress,
            eta: eta, observedAt: time, progressResolution: 0.01, etaResolution: 60)
        // The printer states its minutes left (`mc_remaining_time`) once the print has started.
        update.statesFinish = true
        return update
    }

    private func progressUpdate(at time: Double) -> ActivityUpdate {
        let view = BambuCard.describe(printer.fields, jobName: job?.name)
        var card = view.card
        var details = GenericContent()
        details.subtitle = Field(view.detailSubtitle)
        if let layer = view.detailState {
            switch settings.layerText {
            case .details:
                // A number that goes stale between pushes never stands in the state text: the
                // layer leads the volatile subtitle, refreshed on every push that goes out.
                details.subtitle = .value([layer, view.detailSubtitle].compactMap { $0 }.joined(separator: " · "))
            case .state: card.state = layer
            case .off: break
            }
        }
        return update(
            phase: view.paused ? .paused : .active, card: card, details: details, progress: view.progress,
            eta: view.eta, at: time)
    }

    private mutating func ending(_ outcome: ActivityOutcome, code: Int?, at time: Double) -> ActivityUpdate {
        let card: BambuCard
        var details = GenericContent()
        switch outcome {
        case .success:
            card = .complete
        case .cancelled:
            card = .cancelled
        case .failure:
            let hms = printer.fields.hms ?? []
            let reason = code.map(BambuErrorCatalog.text) ?? hms.first.map(\.text).map { "HMS \($0)" }
            card = .failed(reason: reason)
            var codes: [String] = []
            if let code { codes.append("error \(BambuErrorCatalog.code(code))") }
            codes += hms.prefix(2).map { "HMS \($0.text)" }
            if !codes.isEmpty {
                details.subtitle = .value(([job?.name].compactMap { $0 } + codes).joined(separator: " · "))
            }
        }
        let progress = outcome == .success ? 1 : (job?.lastProgress ?? 0)
        let result = update(
            phase: .ended(outcome), card: card, details: details, progress: progress, eta: nil, at: time)
        job = nil
        failedSince = nil
        isShowingOffline = false
        return result
    }

    private func offlineUpdate(at time: Double) -> ActivityUpdate {
        update(phase: .paused, card: .offline, progress: job?.lastProgress, eta: nil, at: time)
    }

    private mutating func offlineEnd(at time: Double) -> ActivityUpdate {
        let result = update(
            phase: .ended(.failure), card: .offline, progress: job?.lastProgress, eta: nil, at: time)
        job = nil
        failedSince = nil
        isShowingOffline = false
        return result
    }
}
