/// Where an `HTTPServer` listens and the limits it enforces.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// IPv4 or IPv6 literal to bind, or `localhost`; `0.0.0.0` listens on every interface.
    public var host: String
    /// TCP port; 0 lets the system choose (read it back from `HTTPServer.port`).
    public var port: UInt16
    /// Most connections served at once; more are answered 503 and closed.
    public var maxConnections: Int
    /// Seconds from accept until the whole request must have arrived (slowloris guard → 408).
    public var requestDeadline: Double
    /// Seconds any single socket send or receive may block (`SO_SNDTIMEO`/`SO_RCVTIMEO`).
    public var socketTimeout: Double
    /// Header and body size limits.
    public var limits: HTTPRequestParser.Limits
    /// Pending-connection queue length passed to `listen`.
    public var backlog: Int32

    /// Defaults: 127.0.0.1, a system-chosen port, 32 connections, 10 s deadlines, 16 KiB of
    /// head and 1 MiB of body.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, maxConnections: Int = 32, requestDeadline: Double = 10,
        socketTimeout: Double = 10, limits: HTTPRequestParser.Limits = HTTPRequestParser.Limits(), backlog: Int32 = 128
    ) {
        self.host = host
        self.port = port
        self.maxConnections = maxConnections
        self.requestDeadline = requestDeadline
        self.socketTimeout = socketTimeout
        self.limits = limits
        self.backlog = backlog
    }

    /// A configuration listening on `address`: `127.0.0.1:8080`, `[::1]:0`, `localhost:9000`.
    public init(address: String) throws(HTTPServerError) {
        let invalid = HTTPServerError(
            .invalidAddress,
            message: "listen address \"\(address)\" is not host:port — use e.g. 127.0.0.1:8080 or [::1]:8080")
        var host: Substring
        var portText: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { throw invalid }
            host = address[address.index(after: address.startIndex)..<close]
            let rest = address[address.index(after: close)...]
            guard rest.hasPrefix(":") else { throw invalid }
            portText = rest.dropFirst()
        } else {
            guard let colon = address.lastIndex(of: ":") else { throw invalid }
            host = address[..<colon]
            portText = address[address.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText) else { throw invalid }
        self.init(host: String(host), port: port)
    }
}
