/// A snapshot of an MQTT session for `/health`, metrics and tests.
public struct MQTTSessionStatus: Sendable, Equatable, CustomStringConvertible {
    /// The current state.
    public var state: MQTTConnectionState
    /// The most recent failure, kept after a later success so `/health` can show what happened last.
    public var lastError: MQTTSessionError?
    /// Seconds the session waits before its next attempt (set in `failed`/`disconnected`).
    public var retryDelay: Double?
    /// Connection attempts started so far.
    public var connectAttempts: Int
    /// Connections accepted by the broker (CONNACK 0) so far; 2 or more means it reconnected.
    public var connections: Int
    /// Unix time of the current connection's CONNACK, while connected.
    public var connectedSince: Double?
    /// Fingerprint of the certificate the broker presented most recently (TLS modes).
    public var peerCertificate: CertificateFingerprint?
    /// Inbound messages dropped because the consumer fell behind `inboundBufferLimit`.
    public var droppedMessages: Int

    /// The state before `start()`.
    public static let initial = MQTTSessionStatus(
        state: .idle, lastError: nil, retryDelay: nil, connectAttempts: 0, connections: 0, connectedSince: nil,
        peerCertificate: nil, droppedMessages: 0)

    /// The last error as a user-facing string, nil when nothing failed yet.
    public var lastErrorDescription: String? { lastError?.message }

    /// One line: state, retry delay, counters.
    public var description: String {
        var text = state.description
        if let retryDelay, state.error != nil {
            text += " (retry in \(MQTTFailureClassifier.seconds(retryDelay)) s)"
        }
        text += " attempts=\(connectAttempts) connections=\(connections)"
        if droppedMessages > 0 { text += " dropped=\(droppedMessages)" }
        return text
    }
}
