/// Where an MQTT session is in its life, as `/health` shows it.
public enum MQTTConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Created, `start()` not called yet.
    case idle
    /// A connection attempt (TCP, TLS, CONNECT/CONNACK) is in progress.
    case connecting
    /// CONNACK accepted; subscriptions are (being) renewed.
    case connected
    /// An established connection ended; a reconnect is scheduled.
    case disconnected(MQTTSessionError)
    /// A connection attempt failed; another is scheduled (after the maximum delay for
    /// configuration problems).
    case failed(MQTTSessionError)
    /// `shutdown()` completed; the session will not connect again.
    case closed

    /// The error behind `disconnected`/`failed`, nil otherwise.
    public var error: MQTTSessionError? {
        switch self {
        case .disconnected(let error), .failed(let error): error
        default: nil
        }
    }

    /// True only in `connected`.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// `connected`, `failed: <message>`, …
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let error): "disconnected: \(error.message)"
        case .failed(let error): "failed: \(error.message)"
        case .closed: "closed"
        }
    }
}
