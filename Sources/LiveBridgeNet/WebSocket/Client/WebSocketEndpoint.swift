import FoundationEssentials

/// A parsed `ws://` / `wss://` URL and the forms the client needs of it.
struct WebSocketEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// True for `wss://`.
    let isSecure: Bool
    /// Host name or address, IPv6 without brackets.
    let host: String
    /// Explicit or default (80 / 443) port.
    let port: Int
    /// Path and query for the request line.
    let target: String
    /// Path only, for messages.
    let path: String

    /// Parses `text`; only ws and wss are accepted (http/https are suggested as the fix).
    init(_ text: String) throws(WebSocketError) {
        let shown = WebSocketHandshake.printable(text.split(separator: "?").first.map(String.init) ?? text)
        func invalid(_ detail: String) -> WebSocketError {
            WebSocketError(.invalidConfiguration, endpoint: shown, detail: detail)
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("not a valid URL; expected ws://host:port/path or wss://host:port/path")
        }
        switch scheme {
        case "ws": isSecure = false
        case "wss": isSecure = true
        case "http", "https":
            throw invalid("scheme \(scheme):// is not a WebSocket URL; use \(scheme == "https" ? "wss" : "ws")://")
        default:
            throw invalid("unsupported scheme \"\(scheme)\"; expected ws:// or wss://")
        }
        guard var host = components.host, !host.isEmpty else {
            throw invalid("the URL has no host; expected ws://host:port/path")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard components.user == nil, components.password == nil else {
            throw invalid("credentials in the URL are not supported; send them as a header instead")
        }
        guard WebSocketHandshake.isSafeHeaderText(host), !host.contains(" ") else {
            throw invalid("the host contains characters that cannot be sent")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw invalid("port \(port) is out of range 1–65535")
        }
        self.host = host
        port = components.port ?? (isSecure ? 443 : 80)
        let percentPath = components.percentEncodedPath
        path = percentPath.isEmpty ? "/" : percentPath
        target = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        guard WebSocketHandshake.isSafeHeaderText(target), !target.contains(" ") else {
            throw invalid("the path contains characters that cannot be sent")
        }
    }

    /// `host` as it appears in URLs and the Host header (brackets around IPv6).
    private var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    /// What libcurl connects to: http/https, never ws/wss (libcurl 7.88 has no WebSocket).
    var curlURL: String { "\(isSecure ? "https" : "http")://\(urlHost):\(port)/" }

    /// The Host header: the port only when it is not the scheme's default.
    var hostHeader: String {
        port == (isSecure ? 443 : 80) ? urlHost : "\(urlHost):\(port)"
    }

    /// `wss://host:port/path` without query or credentials, for logs and errors.
    var description: String { "\(isSecure ? "wss" : "ws")://\(urlHost):\(port)\(path)" }
}
