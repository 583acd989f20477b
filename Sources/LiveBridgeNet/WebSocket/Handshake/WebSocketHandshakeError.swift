/// The opening handshake failed: the server did not switch to the WebSocket protocol, or
/// switched in a way RFC 6455 forbids.
///
/// `detail` says what the server answered in words a user can act on, e.g.
/// `HTTP 404 Not Found — the server has no WebSocket endpoint at this path; check the URL path`.
public struct WebSocketHandshakeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which part of the handshake failed; compare against the static members.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case rejected, notAWebSocketEndpoint, notHTTP, headTooLarge, missingUpgrade
            case missingConnectionUpgrade, acceptMismatch, unexpectedExtension, unexpectedSubprotocol
            case invalidRequest
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server answered with an HTTP error or redirect (`statusCode` says which).
        public static let rejected = Reason(.rejected)
        /// The server answered a normal HTTP response (an HTML page, JSON…): the URL points at
        /// a web server but not at a WebSocket endpoint.
        public static let notAWebSocketEndpoint = Reason(.notAWebSocketEndpoint)
        /// The bytes that came back are not HTTP at all (wrong port, TLS on a ws:// URL…).
        public static let notHTTP = Reason(.notHTTP)
        /// The response (or request) head exceeded the size limit.
        public static let headTooLarge = Reason(.headTooLarge)
        /// 101 without `Upgrade: websocket`.
        public static let missingUpgrade = Reason(.missingUpgrade)
        /// 101 without `Connection: Upgrade`.
        public static let missingConnectionUpgrade = Reason(.missingConnectionUpgrade)
        /// `Sec-WebSocket-Accept` missing or not derived from our key.
        public static let acceptMismatch = Reason(.acceptMismatch)
        /// The server enabled an extension the client never offered.
        public static let unexpectedExtension = Reason(.unexpectedExtension)
        /// The server chose a subprotocol the client never offered.
        public static let unexpectedSubprotocol = Reason(.unexpectedSubprotocol)
        /// (Server side) the client's request is not a valid WebSocket upgrade.
        public static let invalidRequest = Reason(.invalidRequest)

        /// A short human-readable form for logs and messages.
        public var description: String {
            switch base {
            case .rejected: "rejected"
            case .notAWebSocketEndpoint: "not a WebSocket endpoint"
            case .notHTTP: "not HTTP"
            case .headTooLarge: "head too large"
            case .missingUpgrade: "missing Upgrade header"
            case .missingConnectionUpgrade: "missing Connection: Upgrade"
            case .acceptMismatch: "Sec-WebSocket-Accept mismatch"
            case .unexpectedExtension: "unexpected extension"
            case .unexpectedSubprotocol: "unexpected subprotocol"
            case .invalidRequest: "invalid upgrade request"
            }
        }
    }

    /// Which part failed.
    public let reason: Reason
    /// The HTTP status the server answered, when it answered HTTP.
    public let statusCode: Int?
    /// What happened and what to do, without the endpoint (the connection adds it).
    public let detail: String

    /// Creates an error; the handshake code and tests use it, applications only read it.
    public init(_ reason: Reason, statusCode: Int? = nil, detail: String) {
        self.reason = reason
        self.statusCode = statusCode
        self.detail = detail
    }

    /// A short human-readable form for logs and messages.
    public var description: String { "WebSocket handshake failed: \(detail)" }
}
