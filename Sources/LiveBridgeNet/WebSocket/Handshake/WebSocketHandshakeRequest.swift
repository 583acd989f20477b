/// A client's upgrade request as a server sees it (used by test servers and fakes).
public struct WebSocketHandshakeRequest: Sendable, Hashable {
    /// The full head, for checks on any header (`Authorization`, `Origin`, …).
    public let head: WebSocketHTTPHead
    /// `GET`.
    public let method: String
    /// Path and query, e.g. `/api/websocket`.
    public let target: String
    /// The client's `Sec-WebSocket-Key`.
    public let key: String

    /// Checks that `head` is a WebSocket upgrade (GET, HTTP/1.1, Upgrade, Connection, version
    /// 13, a 24-character key) and extracts its parts.
    public init(head: WebSocketHTTPHead) throws(WebSocketHandshakeError) {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw WebSocketHandshakeError(
                .invalidRequest,
                detail: "request line \"\(WebSocketHandshake.printable(head.startLine))\" is not HTTP/1.x")
        }
        guard parts[0] == "GET" else {
            throw WebSocketHandshakeError(.invalidRequest, detail: "upgrade requests must use GET, not \(parts[0])")
        }
        guard head.field("Upgrade", containsToken: "websocket"), head.field("Connection", containsToken: "upgrade")
        else {
            throw WebSocketHandshakeError(
                .invalidRequest, detail: "request lacks Upgrade: websocket / Connection: Upgrade")
        }
        guard head["Sec-WebSocket-Version"] == "13" else {
            throw WebSocketHandshakeError(.invalidRequest, detail: "request lacks Sec-WebSocket-Version: 13")
        }
        guard let key = head["Sec-WebSocket-Key"], key.utf8.count == 24, key.hasSuffix("==") else {
            throw WebSocketHandshakeError(.invalidRequest, detail: "request lacks a valid Sec-WebSocket-Key")
        }
        self.head = head
        method = parts[0]
        target = parts[1]
        self.key = key
    }
}
