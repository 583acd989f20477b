import COpenSSL
import FoundationEssentials
import LiveBridgeFoundation

/// The opening handshake of RFC 6455 §4: the client's upgrade request, the server's
/// `101 Switching Protocols`, and the `Sec-WebSocket-Key` / `Sec-WebSocket-Accept` pair that
/// proves the server speaks WebSocket.
///
/// Pure functions over text and bytes; the client and the test servers do the I/O.
public enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A response or request head longer than this is refused (16 KiB).
    public static let maximumHeadSize = 16 * 1024

    /// Header names the handshake sets itself; callers may not supply them.
    public static let reservedHeaderNames: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "content-length", "transfer-encoding",
    ]

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64-encoded (24 characters).
    public static func makeKey<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Data(bytes).base64EncodedString()
    }

    /// A fresh `Sec-WebSocket-Key` from the system's cryptographic random source.
    public static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeKey(using: &generator)
    }

    /// The `Sec-WebSocket-Accept` a server must answer for `key`:
    /// base64(SHA-1(key + GUID)), computed with OpenSSL.
    public static func acceptValue(for key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = input.withUnsafeBytes { source in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(source.baseAddress, source.count, output.baseAddress, &length, EVP_sha1(), nil)
            }
        }
        // EVP_Digest with SHA-1 only fails on allocation failure; an empty accept value then
        // simply never matches, which fails the handshake instead of crashing.
        guard status == 1 else { return "" }
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }

    /// The client's upgrade request.
    ///
    /// - Parameters:
    ///   - hostHeader: `host` or `host:port` (IPv6 in brackets), the port only when not default.
    ///   - target: path and query, e.g. `/api/websocket`.
    ///   - key: from `makeKey()`.
    ///   - headers: extra fields (e.g. `Authorization`, `Origin`); see `reservedHeaderNames`.
    public static func requestText(
        hostHeader: String, target: String, key: String, headers: [WebSocketHTTPHead.Field] = []
    ) -> String {
        var text = "GET \(target.isEmpty ? "/" : target) HTTP/1.1\r\n"
        text += "Host: \(hostHeader)\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        text += "Sec-WebSocket-Version: 13\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return text
    }

    /// The server's `101 Switching Protocols` answer to a request carrying `key`.
    public static func switchingProtocolsResponse(key: String, headers: [WebSocketHTTPHead.Field] = []) -> String {
        var text = "HTTP/1.1 101 Switching Protocols\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: \(acceptValue(for: key))\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return text
    }

    /// True when `text` may appear in a header name or value: no CR, LF or NUL (which would
    /// let a value inject extra header lines).
    public static func isSafeHeaderText(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Checks the server's answer to a request carrying `key`.
    ///
    /// - Parameters:
    ///   - head: the response head.
    ///   - bodyPrefix: whatever body bytes arrived with the head (for error messages only).
    ///   - key: the `Sec-WebSocket-Key` that was sent.
    /// - Throws: `WebSocketHandshakeError` saying what the server answered instead.
    public static func validateResponse(
        _ head: WebSocketHTTPHead, bodyPrefix: [UInt8] = [], key: String
    ) throws(WebSocketHandshakeError) {
        let parts = head.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw WebSocketHandshakeError(
                .notHTTP,
                detail: "the server did not answer with HTTP (first line \"\(printable(head.startLine))\"); "
                    + "check the host and port")
        }
        let reasonPhrase = parts.count > 2 ? printable(String(parts[2])) : ""
        let statusText = "HTTP \(status)\(reasonPhrase.isEmpty ? "" : " " + reasonPhrase)"
        guard status == 101 else {
            throw rejection(status: status, statusText: statusText, head: head, bodyPrefix: bodyPrefix)
        }
        guard head.field("Upgrade", containsToken: "websocket") else {
            throw WebSocketHandshakeError(
                .missingUpgrade, statusCode: status,
                detail: "the server answered 101 but upgraded to \"\(printable(head["Upgrade"] ?? "nothing"))\" "
                    + "instead of \"websocket\"")
        }
        guard head.field("Connection", containsToken: "upgrade") else {
            throw WebSocketHandshakeError(
                .missingConnectionUpgrade, statusCode: status,
                detail: "the server answered 101 without \"Connection: Upgrade\"")
        }
        let expected = acceptValue(for: key)
        guard let accept = head["Sec-WebSocket-Accept"], accept == expected else {
            throw WebSocketHandshakeError(
                .acceptMismatch, statusCode: status,
                detail: "the server's Sec-WebSocket-Accept does not match the key we sent "
                    + "(a proxy or a non-WebSocket server answered); check the URL and any proxy in between")
        }
        if let extensions = head["Sec-WebSocket-Extensions"], !extensions.isEmpty {
            throw WebSocketHandshakeError(
                .unexpectedExtension, statusCode: status,
                detail: "the server enabled extension \"\(printable(extensions))\" that was never offered")
        }
        if let subprotocol = head["Sec-WebSocket-Protocol"], !subprotocol.isEmpty {
            throw WebSocketHandshakeError(
                .unexpectedSubprotocol, statusCode: status,
                detail: "the server chose subprotocol \"\(printable(subprotocol))\" that was never offered")
        }
    }

    private static func rejection(
        status: Int, statusText: String, head: WebSocketHTTPHead, bodyPrefix: [UInt8]
    ) -> WebSocketHandshakeError {
        let contentType = (head["Content-Type"] ?? "").lowercased()
        let looksLikeHTML =
            contentType.contains("html")
            || String(decoding: bodyPrefix.prefix(512), as: UTF8.self).lowercased().contains("<html")
        let snippet = looksLikeHTML ? "" : bodySnippet(bodyPrefix)
        switch status {
        case 200..<300:
            let what =
                looksLikeHTML
                ? "an HTML page" : (contentType.isEmpty ? "a plain HTTP response" : printable(contentType))
            return WebSocketHandshakeError(
                .notAWebSocketEndpoint, statusCode: status,
                detail: "not a WebSocket endpoint: the server answered \(statusText) with \(what) "
                    + "instead of 101 Switching Protocols; check the URL path")
        case 300..<400:
            let location = head["Location"].map { " to \"\(printable($0))\"" } ?? ""
            return WebSocketHandshakeError(
                .rejected, statusCode: status,
                detail: "\(statusText): the server redirects\(location); use the final URL "
                    + "(wss:// when it points at https://)")
        default:
            let hint =
                switch status {
                case 400: "the server refused the upgrade request"
                case 401, 403: "the server wants other credentials; check the token or headers"
                case 404: "the server has no WebSocket endpoint at this path; check the URL path"
                case 426: "the server requires a different protocol version"
                case 500..<600: "the server failed; check its logs and try again later"
                default: "the server refused the WebSocket upgrade"
                }
            let page = looksLikeHTML ? " (HTML page)" : ""
            return WebSocketHandshakeError(
                .rejected, statusCode: status, detail: "\(statusText)\(page)\(snippet) — \(hint)")
        }
    }

    /// `: "first words of the body"` for short text bodies, else empty.
    private static func bodySnippet(_ body: [UInt8]) -> String {
        let text = printable(String(decoding: body.prefix(160), as: UTF8.self))
            .trimmingWhitespace()
        return text.isEmpty ? "" : ": \"\(text)\""
    }

    /// `text` with control characters replaced and cut to 160 characters, for error messages.
    static func printable(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return cleaned.count > 160 ? String(cleaned.prefix(160)) + "…" : cleaned
    }
}
