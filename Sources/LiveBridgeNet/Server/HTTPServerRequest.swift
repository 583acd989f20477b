/// One request received by `HTTPServer`, fully read and validated by `HTTPRequestParser`.
public struct HTTPServerRequest: Sendable, Equatable {
    /// The method, one of `HTTPRequestParser.supportedMethods`.
    public var method: String
    /// The request target exactly as sent (still percent-encoded), e.g. `/hook?token=…`.
    public var target: String
    /// The percent-decoded path, e.g. `/a b` for `/a%20b`; `*` for `OPTIONS *`.
    public var path: String
    /// Percent-decoded query parameters (`+` means space); for a repeated name the first wins.
    public var query: [String: String]
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// Header fields in wire order, looked up case-insensitively.
    public var headers: HTTPHeaders
    /// The body, exactly `Content-Length` bytes.
    public var body: [UInt8]
    /// The peer as `address:port`, set by the server (nil when parsed outside a server).
    public var remoteAddress: String?

    /// Creates a request (the parser and tests use this).
    public init(
        method: String, target: String, path: String, query: [String: String] = [:], version: String = "HTTP/1.1",
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The body decoded as UTF-8 (invalid sequences become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
