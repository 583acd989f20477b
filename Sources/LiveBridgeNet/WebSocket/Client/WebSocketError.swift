import LiveBridgeFoundation

/// Why a WebSocket connection could not be opened or ended abnormally.
///
/// `description` is a complete sentence for users: what happened at which endpoint, and what
/// to do. Secrets never appear: the URL's query and the request headers are left out and the
/// text passes through `Redactor`. Compare `kind` against the static members to react.
public struct WebSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of failure; compare against the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidConfiguration, dnsFailure, connectionRefused, connectionFailed, timeout, tlsFailure
            case pinMismatch, handshakeRejected, notAWebSocketEndpoint, handshakeFailed, protocolError
            case pingTimeout, closedByPeer, connectionLost, notOpen
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The URL or a header is unusable (wrong scheme, CR/LF in a header, reserved header).
        public static let invalidConfiguration = Kind(.invalidConfiguration)
        /// The host name could not be resolved.
        public static let dnsFailure = Kind(.dnsFailure)
        /// Nothing listens on the port (TCP RST).
        public static let connectionRefused = Kind(.connectionRefused)
        /// TCP could not be established for another reason (unreachable network…).
        public static let connectionFailed = Kind(.connectionFailed)
        /// Connecting or the upgrade exchange took longer than configured.
        public static let timeout = Kind(.timeout)
        /// TLS failed: certificate not trusted, wrong host name, handshake failure.
        public static let tlsFailure = Kind(.tlsFailure)
        /// The server's public key does not match the configured pin.
        public static let pinMismatch = Kind(.pinMismatch)
        /// The server answered the upgrade with an HTTP error or redirect (`httpStatus`).
        public static let handshakeRejected = Kind(.handshakeRejected)
        /// The URL points at an ordinary web resource, not a WebSocket endpoint.
        public static let notAWebSocketEndpoint = Kind(.notAWebSocketEndpoint)
        /// The server answered 101 but broke the handshake rules, or did not speak HTTP.
        public static let handshakeFailed = Kind(.handshakeFailed)
        /// The server broke RFC 6455 (`closeCode` is what we sent it).
        public static let protocolError = Kind(.protocolError)
        /// The server stopped answering pings: the link is presumed dead.
        public static let pingTimeout = Kind(.pingTimeout)
        /// The server closed the connection (`closeCode`, `closeReason`).
        public static let closedByPeer = Kind(.closedByPeer)
        /// The TCP connection ended or failed without a WebSocket close.
        public static let connectionLost = Kind(.connectionLost)
        /// `send` was called after the connection had ended.
        public static let notOpen = Kind(.notOpen)

        /// A short human-readable form for logs and messages.
        public var description: String {
            switch base {
            case .invalidConfiguration: "invalid configuration"
            case .dnsFailure: "DNS failure"
            case .connectionRefused: "connection refused"
            case .connectionFailed: "connection failed"
            case .timeout: "timeout"
            case .tlsFailure: "TLS failure"
            case .pinMismatch: "pin mismatch"
            case .handshakeRejected: "handshake rejected"
            case .notAWebSocketEndpoint: "not a WebSocket endpoint"
            case .handshakeFailed: "handshake failed"
            case .protocolError: "protocol error"
            case .pingTimeout: "ping timeout"
            case .closedByPeer: "closed by peer"
            case .connectionLost: "connection lost"
            case .notOpen: "not open"
            }
        }
    }

    /// The category.
    public let kind: Kind
    /// The endpoint without query or credentials, e.g. `wss://ha.local:8123/api/websocket`.
    public let endpoint: String
    /// What happened and what to do, without the endpoint.
    public let detail: String
    /// The HTTP status of a rejected handshake.
    public let httpStatus: Int?
    /// The close code the server sent (`closedByPeer`) or we sent (`protocolError`).
    public let closeCode: WebSocketCloseCode?
    /// The reason the server gave with its close frame.
    public let closeReason: String?

    /// Creates an error; the client builds these, applications read them.
    public init(
        _ kind: Kind, endpoint: String, detail: String, httpStatus: Int? = nil, closeCode: WebSocketCloseCode? = nil,
        closeReason: String? = nil
    ) {
        self.kind = kind
        self.endpoint = endpoint
        self.detail = detail
        self.httpStatus = httpStatus
        self.closeCode = closeCode
        self.closeReason = closeReason
    }

    /// `WebSocket wss://ha.local:8123/api/websocket: <detail>`, redacted.
    public var description: String {
        Redactor.shared.redact("WebSocket \(endpoint): \(detail)")
    }
}
