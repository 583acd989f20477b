/// One HTTP request for an `HTTPTransport`: method, URL, headers, optional body and limits.
///
/// Limits live on the request because each caller knows its own budget: a SABnzbd poll wants a
/// short timeout and a 1 MiB cap, a Home Assistant snapshot may need more.
public struct HTTPRequest: Sendable {
    /// The method token, e.g. `GET`, `POST`, `PATCH`.
    public var method: String
    /// An absolute `http://` or `https://` URL, already percent-escaped.
    public var url: String
    /// Request header fields; never logged and never part of an error message.
    public var headers: HTTPHeaders
    /// The request body; `nil` sends none (`POST`/`PUT`/`PATCH` then send `Content-Length: 0`).
    public var body: [UInt8]?
    /// Seconds allowed for DNS, TCP and TLS setup.
    public var connectTimeout: Double
    /// Seconds allowed for the whole exchange, connection setup included.
    public var timeout: Double
    /// Largest response body accepted; a larger one fails with `HTTPClientError.Code.tooLarge`.
    public var maxResponseBytes: Int
    /// How the server's certificate is checked for `https://` URLs.
    public var tls: TLSOptions

    /// Creates a request; defaults: 10 s connect timeout, 30 s total, 1 MiB response cap,
    /// verified TLS with the system CA store.
    public init(
        method: String = "GET",
        url: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8]? = nil,
        connectTimeout: Double = 10,
        timeout: Double = 30,
        maxResponseBytes: Int = 1 << 20,
        tls: TLSOptions = TLSOptions()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.tls = tls
    }
}
