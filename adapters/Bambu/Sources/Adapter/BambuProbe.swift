import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// `livebridge check` for a printer: one connection, one `pushall`, one answer.
struct BambuProbe {
    let configuration: BambuPrinterConfiguration
    let context: AdapterContext
    /// Seconds allowed for connecting and the first report.
    var timeout: Double = 15

    private enum Outcome: Sendable {
        case report(BambuPrinterState)
        case refused(MQTTSessionError)
        case timedOut
    }

    func run() async -> ProbeResult {
        let session: MQTTSession
        do {
            session = try MQTTSession(
                configuration: configuration.session, pinStore: context.store, logger: context.logger,
                onConnect: { session in
                    try? await session.publish(topic: configuration.requestTopic, text: BambuPushallGate.request)
                })
            try session.start()
        } catch {
            return ProbeResult(
                ok: false, detail: BambuConnectionProblem.message(for: error, configuration: configuration))
        }
        let statuses = session.statusUpdates()
        let clock = context.clock
        let timeout = self.timeout
        let outcome = await firstAnswer(
            of: [
                { @Sendable in
                    var state = BambuPrinterState()
                    for await message in session.messages {
                        guard case .status(let report)? = try? BambuReport.decode(message.payload) else { continue }
                        state.merge(report)
                        if state.hasFullReport { return Outcome.report(state) }
                    }
                    return nil
                },
                { @Sendable in
                    for await status in statuses {
                        if let error = status.state.error, error.isConfigurationProblem { return .refused(error) }
                    }
                    return nil
                },
            ], within: timeout, on: clock, else: .timedOut)
        let status = session.status
        await session.shutdown()
        let certificate = status.peerCertificate.map { "certificate sha256 \($0.colonHex)" } ?? "no certificate seen"
        let endpoint = "\(configuration.host):\(configuration.port)"
        switch outcome {
        case .report(let state):
            let fields = state.fields
            var printer = fields.gcodeState.map(\.description) ?? "unknown state"
            if let percent = fields.percent, fields.gcodeState?.isJobInProgress == true { printer += " \(percent) %" }
            if let name = state.jobName { printer += " (\(name))" }
            return ProbeResult(
                ok: true,
                detail: "connected to \(endpoint) as bblp, \(certificate) [\(configuration.security)]; "
                    + "printer \(configuration.serial) reports \(printer)")
        case .refused(let error):
            return ProbeResult(
                ok: false, detail: BambuConnectionProblem.message(for: error, configuration: configuration))
        case .timedOut:
            if status.state.isConnected {
                return ProbeResult(
                    ok: false,
                    detail: "connected to \(endpoint) (\(certificate)) but no report arrived within \(Int(timeout)) s "
                        + "— check \(configuration.configPath).serial")
            }
            let reason = status.lastError.map { BambuConnectionProblem.message(for: $0, configuration: configuration) }
            return ProbeResult(
                ok: false, detail: reason ?? "could not connect to \(endpoint) within \(Int(timeout)) s")
        }
    }
}
