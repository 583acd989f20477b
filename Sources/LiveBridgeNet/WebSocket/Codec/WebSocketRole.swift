/// Which end of a WebSocket connection the local code plays.
///
/// The role decides masking (RFC 6455 §5.1): a client masks every frame it sends and rejects
/// masked frames it receives; a server does the opposite. Test servers use `.server`.
public enum WebSocketRole: Sendable, Hashable {
    /// The side that opened the connection (LiveBridge talking to Home Assistant).
    case client
    /// The side that accepted the connection (test servers, fakes).
    case server
}
