import LiveBridgeFoundation

/// The start line and header fields of an HTTP/1.1 message, as exchanged in the WebSocket
/// opening handshake.
///
/// Only the head matters for the handshake: after a 101 the next byte is already a frame.
public struct WebSocketHTTPHead: Sendable, Hashable {
    /// `GET /api/websocket HTTP/1.1` or `HTTP/1.1 101 Switching Protocols`.
    public var startLine: String
    /// Header fields in arrival order; names keep their original case.
    public var fields: [Field]

    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name as sent.
        public var name: String
        /// The field value without surrounding whitespace.
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A head from its parts.
    public init(startLine: String, fields: [Field]) {
        self.startLine = startLine
        self.fields = fields
    }

    /// The value of `name` (case-insensitive); repeated fields are joined with ", ".
    public subscript(name: String) -> String? {
        let values = fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// True when the comma-separated field `name` lists `token` (case-insensitive), as in
    /// `Connection: keep-alive, Upgrade`.
    public func field(_ name: String, containsToken token: String) -> Bool {
        guard let value = self[name] else { return false }
        return value.split(separator: ",").contains {
            String($0).trimmingHTTPWhitespace().lowercased() == token.lowercased()
        }
    }

    /// Finds a complete head at the start of `bytes`.
    ///
    /// Returns the head and the number of bytes it occupied (including the blank line), or nil
    /// when the blank line has not arrived yet. Throws when the head grows past `limit` bytes
    /// or is not text.
    public static func parse(
        _ bytes: some Collection<UInt8>, limit: Int = WebSocketHandshake.maximumHeadSize
    ) throws(WebSocketHandshakeError) -> (head: WebSocketHTTPHead, count: Int)? {
        let window = Array(bytes.prefix(limit + 4))
        guard let end = Self.blankLineEnd(in: window) else {
            if window.count > limit {
                throw WebSocketHandshakeError(
                    .headTooLarge, detail: "the HTTP head is longer than \(limit) bytes without ending")
            }
            return nil
        }
        let text = String(decoding: window[..<(end - 4)], as: UTF8.self)
        let lineBreak: Character = "\r\n"
        var lines = text.split(separator: lineBreak, omittingEmptySubsequences: false).map(String.init)
        let startLine = lines.isEmpty ? "" : lines.removeFirst()
        var fields: [Field] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]).trimmingHTTPWhitespace()
            let value = String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()
            fields.append(Field(name: name, value: value))
        }
        return (WebSocketHTTPHead(startLine: startLine, fields: fields), end)
    }

    /// Index just past the first `\r\n\r\n`, if any.
    private static func blankLineEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }
}
