import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// Sends `pushall` after each (re)connect, at most once per `pushallMinimumInterval`.
final class BambuPushallGate: Sendable {
    static let request = #"{"pushing":{"sequence_id":"0","command":"pushall"}}"#

    let configuration: BambuPrinterConfiguration
    let clock: any TimeSource
    let logger: Logger
    let observer: (@Sendable (BambuAdapterEvent) -> Void)?
    private let lastSent = Mutex<Double?>(nil)

    init(
        configuration: BambuPrinterConfiguration, clock: any TimeSource, logger: Logger,
        observer: (@Sendable (BambuAdapterEvent) -> Void)?
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.observer = observer
    }

    /// The on-connect hook.
    func send(on session: MQTTSession) async {
        let now = clock.now
        let interval = configuration.pushallMinimumInterval
        let previous = lastSent.withLock { last -> Double?? in
            if let last, now - last < interval { return .some(last) }
            last = now
            return .none
        }
        if case .some(let last?) = previous {
            logger.info(
                "reconnected; pushall skipped (sent \(Int(now - last)) s ago — a flapping link must not make the "
                    + "printer lag)")
            observer?(.pushall(sent: false))
            return
        }
        do {
            try await session.publish(topic: configuration.requestTopic, text: Self.request)
            logger.debug("asked the printer for its full state (pushall)")
            observer?(.pushall(sent: true))
        } catch {
            lastSent.withLock { $0 = nil }
            logger.warning("cannot ask the printer for its full state (pushall)", ["error": error.message])
        }
    }
}
