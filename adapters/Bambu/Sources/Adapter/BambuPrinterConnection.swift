import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// The adapter's single consumer: every message, status change and timer tick passes through
/// here in order, so the mapper (a value) needs no lock and updates are emitted in order.
struct BambuPrinterConnection: Sendable {
    /// Something that happened to the printer's session.
    typealias Input = MQTTSourceInput

    let configuration: BambuPrinterConfiguration
    let context: AdapterContext
    let observer: (@Sendable (BambuAdapterEvent) -> Void)?
    private var mapper: BambuActivityMapper
    private var persistedJob: BambuJob?
    private var connectedAt: Double?
    private var reportsSinceConnect = 0
    private var warnedSilent = false
    private var lastFailure: MQTTSessionError.Code?
    private var loggedFirstConnection = false
    private var printerDetail: String?

    init(
        configuration: BambuPrinterConfiguration, context: AdapterContext,
        observer: (@Sendable (BambuAdapterEvent) -> Void)?
    ) {
        self.configuration = configuration
        self.context = context
        self.observer = observer
        let remembered = Self.loadJob(configuration: configuration, context: context)
        persistedJob = remembered
        mapper = BambuActivityMapper(
            slug: configuration.slug, printerName: configuration.name, settings: configuration.mapper,
            resuming: remembered)
    }

    var jobKey: String { configuration.slug + ".job.json" }

    /// Starts the offline clock: until the first connection the printer counts as unreachable.
    mutating func begin() async {
        if let job = persistedJob {
            context.logger.info(
                "resuming the print job followed before the restart", ["job": job.name ?? "unnamed"])
        }
        await emit(mapper.connectionChanged(isConnected: false, at: context.clock.now))
    }

    mutating func handle(_ input: Input) async {
        switch input {
        case .message(let message): await received(message)
        case .status(let status): await statusChanged(status)
        case .tick: await tick()
        }
    }

    // MARK: - Reports

    private mutating func received(_ message: MQTTMessage) async {
        guard message.topic == configuration.reportTopic else { return }
        let decoded: BambuMessage
        do {
            decoded = try BambuReport.decode(message.payload)
        } catch {
            context.reportParseError(
                "printer \(configuration.serial) sent a message that is not a report, ignored: \(error.message)")
            observer?(.malformed(error))
            return
        }
        switch decoded {
        case .other(let kind):
            context.logger.trace("ignored a message that is not a status report", ["kind": kind])
            observer?(.ignored(kind))
        case .status(let report):
            let now = context.clock.now
            reportsSinceConnect += 1
            context.health.noteEvent()
            if warnedSilent {
                warnedSilent = false
                context.health.set(.ok)
            }
            if !report.droppedFields.isEmpty {
                context.metrics.increment(
                    "livebridge_bambu_dropped_fields_total", ["source": context.name],
                    by: Double(report.droppedFields.count))
                context.logger.debug(
                    "report fields with unexpected types ignored",
                    ["fields": report.droppedFields.joined(separator: ",")])
            }
            let updates = mapper.observe(report, at: now)
            await emit(updates)
            updatePrinterDetail()
            persistJobIfChanged()
            observer?(.report(report, state: mapper.printer, updates: updates))
        }
    }

    // MARK: - Connection

    private mutating func statusChanged(_ status: MQTTSessionStatus) async {
        let now = context.clock.now
        let health = context.health
        switch status.state {
        case .idle, .connecting:
            if connectedAt == nil && lastFailure == nil { health.setDetail("connection", "connecting") }
        case .connected:
            connectedAt = now
            reportsSinceConnect = 0
            warnedSilent = false
            lastFailure = nil
            health.set(.ok)
            health.setDetail("connection", "connected")
            health.setDetail("certificate", status.peerCertificate.map { "sha256 \($0.colonHex)" })
            if !loggedFirstConnection {
                loggedFirstConnection = true
                logConnected(status)
            }
            await emit(mapper.connectionChanged(isConnected: true, at: now))
        case .disconnected(let error), .failed(let error):
            let wasConnected = connectedAt != nil
            connectedAt = nil
            let message = BambuConnectionProblem.message(for: error, configuration: configuration)
            if error.isConfigurationProblem {
                health.set(.error, message)
            } else {
                health.set(.degraded, message)
            }
            let retry = status.retryDelay.map { " (retrying in \(Int($0.rounded())) s)" } ?? ""
            health.setDetail("connection", (wasConnected ? "disconnected" : "unreachable") + retry)
            if lastFailure != error.code {
                lastFailure = error.code
                BambuConnectionProblem.log(error, configuration: configuration, logger: context.logger)
            }
            await emit(mapper.connectionChanged(isConnected: false, at: now))
        case .closed:
            health.setDetail("connection", "stopped")
        }
        updatePrinterDetail()
        observer?(.connection(status))
    }

    private func logConnected(_ status: MQTTSessionStatus) {
        let fingerprint = status.peerCertificate?.colonHex ?? "unknown"
        switch configuration.security {
        case .trustOnFirstUse:
            context.logger.notice(
                "connected to the printer; its certificate is trusted on first use and pinned from now on",
                [
                    "sha256": fingerprint,
                    "pin_explicitly": "\(configuration.configPath).certificateSHA256: \"\(fingerprint)\"",
                ])
        case .insecure:
            context.logger.warning(
                "connected to the printer WITHOUT checking its certificate (insecure: true); pin it instead",
                ["sha256": fingerprint, "pin": "\(configuration.configPath).certificateSHA256: \"\(fingerprint)\""])
        default:
            context.logger.info("connected to the printer", ["sha256": fingerprint])
        }
    }

    // MARK: - Timers

    private mutating func tick() async {
        let now = context.clock.now
        let updates = mapper.tick(at: now)
        await emit(updates)
        if !updates.isEmpty { updatePrinterDetail() }
        persistJobIfChanged()
        if let connectedAt, reportsSinceConnect == 0, !warnedSilent,
            now - connectedAt >= configuration.silenceWarning
        {
            warnedSilent = true
            context.health.set(
                .degraded,
                "connected to \(configuration.host):\(configuration.port), but no report arrived within "
                    + "\(Int(configuration.silenceWarning)) s of asking for the printer's state — check that "
                    + "\(configuration.configPath).serial (\"\(configuration.serial)\") is this printer's serial")
        }
        observer?(.tick(updates: updates))
    }

    // MARK: - Helpers

    private func emit(_ updates: [ActivityUpdate]) async {
        for update in updates { await context.emit(update) }
    }

    private mutating func updatePrinterDetail() {
        let fields = mapper.printer.fields
        var text = fields.gcodeState.map(\.description) ?? "unknown"
        if let percent = fields.percent, fields.gcodeState?.isJobInProgress == true { text += " \(percent) %" }
        if mapper.isShowingOffline { text = "offline (last seen \(text))" }
        guard text != printerDetail else { return }
        printerDetail = text
        context.health.setDetail("printer", text)
    }

    private mutating func persistJobIfChanged() {
        let job = mapper.job
        let identity = { (job: BambuJob?) in job.map { [$0.name ?? "", $0.taskID ?? "", "\($0.startedAt)"] } }
        guard identity(job) != identity(persistedJob) else { return }
        do {
            if let job {
                try context.store.writeJSON(jobKey, job.json)
            } else {
                try context.store.remove(jobKey)
            }
            persistedJob = job
        } catch {
            context.logger.warning(
                "cannot remember the print job in the data directory; a restart will not end it",
                ["error": error.description])
        }
    }

    private static func loadJob(configuration: BambuPrinterConfiguration, context: AdapterContext) -> BambuJob? {
        do {
            return try context.store.readJSON(configuration.slug + ".job.json").flatMap(BambuJob.init(json:))
        } catch {
            context.logger.warning("ignoring an unreadable remembered print job", ["error": error.description])
            return nil
        }
    }
}
