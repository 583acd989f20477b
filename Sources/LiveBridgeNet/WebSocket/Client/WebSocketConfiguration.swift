/// Everything needed to open one WebSocket connection.
///
/// Defaults fit a Home Assistant session: 16 MiB messages (snapshots reach several MiB), a ping
/// every 30 s and a dead link declared when no pong came back within 30 s.
public struct WebSocketConfiguration: Sendable {
    /// `ws://host[:port]/path` or `wss://…`. The query is sent but never logged.
    public var url: String
    /// Extra request header fields (`Authorization`, `Origin`, …). Values are never logged.
    /// Handshake fields (`Host`, `Upgrade`, `Connection`, `Sec-WebSocket-*`) are not allowed.
    public var headers: [WebSocketHTTPHead.Field]
    /// libcurl public-key pin, `sha256//<base64 SHA-256 of the DER SubjectPublicKeyInfo>` (several
    /// joined with `;`). With a pin the CA chain and host name are not checked — the pin is.
    /// For self-signed Home Assistant certificates.
    public var pinnedPublicKey: String?
    /// PEM file of the CA(s) to trust for wss:// instead of the system store.
    public var caFile: String?
    /// Limit for DNS + TCP + TLS.
    public var connectTimeout: Duration
    /// Limit for the HTTP upgrade exchange once connected.
    public var handshakeTimeout: Duration
    /// How often to ping the server; nil disables pinging (and dead-link detection).
    public var pingInterval: Duration?
    /// How long to wait for the pong before declaring the link dead; nil means `pingInterval`.
    public var pongTimeout: Duration?
    /// How long `close()` waits for the server's close frame before dropping the link.
    public var closeTimeout: Duration
    /// Inbound messages longer than this close the connection with 1009.
    public var maximumMessageSize: Int

    /// A configuration for `url` with the defaults above.
    public init(
        url: String,
        headers: [WebSocketHTTPHead.Field] = [],
        pinnedPublicKey: String? = nil,
        caFile: String? = nil,
        connectTimeout: Duration = .seconds(10),
        handshakeTimeout: Duration = .seconds(10),
        pingInterval: Duration? = .seconds(30),
        pongTimeout: Duration? = nil,
        closeTimeout: Duration = .seconds(5),
        maximumMessageSize: Int = WebSocketDecoder.defaultMaximumMessageSize
    ) {
        self.url = url
        self.headers = headers
        self.pinnedPublicKey = pinnedPublicKey
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
        self.maximumMessageSize = maximumMessageSize
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var webSocketSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
