import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// `livebridge check` for an MQTT source: one connection with the configured account and TLS,
/// the subscriptions, and what the broker hands back at once (its retained messages).
struct MQTTSourceProbe {
    let configuration: MQTTSourceConfiguration
    let context: AdapterContext
    /// Seconds allowed for connecting.
    var timeout: Double = 15
    /// Seconds the retained messages are counted for after the connection.
    var retainedWindow: Double = 2

    private enum Outcome: Sendable {
        case connected
        case refused(MQTTSessionError)
        case timedOut
    }

    func run() async -> ProbeResult {
        let session: MQTTSession
        do {
            session = try MQTTSession(
                configuration: configuration.session, pinStore: context.store, logger: context.logger)
            try session.start()
        } catch {
            return ProbeResult(ok: false, detail: "\(error)")
        }
        let statuses = session.statusUpdates()
        let clock = context.clock
        let timeout = self.timeout
        let outcome = await firstAnswer(
            of: [
                { @Sendable in
                    for await status in statuses {
                        if status.state.isConnected { return Outcome.connected }
                        if let error = status.state.error, error.isConfigurationProblem { return .refused(error) }
                    }
                    return nil
                }
            ], within: timeout, on: clock, else: .timedOut)
        let endpoint = configuration.session.endpoint
        switch outcome {
        case .connected:
            // What the broker retained for these topics arrives right after the subscriptions.
            let window = retainedWindow
            let topics = await withTaskGroup(of: Set<String>?.self) { group -> Set<String> in
                group.addTask {
                    var seen: Set<String> = []
                    for await message in session.messages where message.retained { seen.insert(message.topic) }
                    return seen
                }
                group.addTask {
                    try? await clock.sleep(for: window)
                    return nil
                }
                _ = await group.next()
                group.cancelAll()
                var seen: Set<String> = []
                for await result in group { if let result { seen.formUnion(result) } }
                return seen
            }
            await session.shutdown()
            let jobs = configuration.jobs.map(\.slug).joined(separator: ", ")
            let retained =
                topics.isEmpty ? "no retained messages yet" : "retained on \(topics.sorted().joined(separator: ", "))"
            return ProbeResult(
                ok: true,
                detail: "connected to \(endpoint), subscribed to \(configuration.topicFilters.joined(separator: " ")) "
                    + "for \(jobs); \(retained)")
        case .refused(let error):
            await session.shutdown()
            return ProbeResult(ok: false, detail: "\(endpoint) refused the connection: \(error.message)")
        case .timedOut:
            let reason = session.status.lastError?.message
            await session.shutdown()
            return ProbeResult(
                ok: false,
                detail: "could not connect to \(endpoint) within \(Int(timeout)) s" + (reason.map { ": \($0)" } ?? ""))
        }
    }
}
