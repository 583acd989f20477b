/// What a handler answers: status, header fields and body — or "drop the connection".
///
/// The server adds the framing itself (`Content-Length`, `Connection: close`), so handlers
/// cannot produce a response that desynchronises a client.
public struct HTTPServerResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields; `Content-Length`, `Connection` and `Transfer-Encoding` are set by the server.
    public var headers: HTTPHeaders
    /// The body (not sent for `HEAD` requests and for 1xx, 204 and 304 statuses).
    public var body: [UInt8]
    /// True when the server closes the connection without writing anything (fault injection).
    public private(set) var dropsConnection: Bool

    /// A response with `status`, `headers` and `body`.
    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        dropsConnection = false
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response from already-encoded bytes.
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// Close the connection without answering, as a crashed or hostile server would.
    public static var dropConnection: HTTPServerResponse {
        var response = HTTPServerResponse(status: 0)
        response.dropsConnection = true
        return response
    }

    /// The standard reason phrase for `status`, or a generic one for its class.
    public static func reasonPhrase(for status: Int) -> String {
        if let phrase = reasonPhrases[status] { return phrase }
        switch status {
        case 100..<200: return "Informational"
        case 200..<300: return "Success"
        case 300..<400: return "Redirection"
        case 400..<500: return "Client Error"
        default: return "Server Error"
        }
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
        301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]

    /// The plain-text answer to a rejected request (405 also lists the allowed methods).
    static func rejection(_ rejection: HTTPRequestRejection) -> HTTPServerResponse {
        var response = text(
            "\(rejection.status) \(reasonPhrase(for: rejection.status)): \(rejection.reason)\n",
            status: rejection.status)
        if rejection.status == 405 {
            response.headers.add(name: "Allow", value: HTTPRequestParser.supportedMethods.joined(separator: ", "))
        }
        if rejection.status == 503 {
            response.headers.add(name: "Retry-After", value: "1")
        }
        return response
    }

    /// The response as bytes on the wire; `headOnly` omits the body (answer to `HEAD`).
    func serialized(headOnly: Bool) -> [UInt8] {
        let status = (100...999).contains(status) ? status : 500
        let bodyForbidden = (100..<200).contains(status) || status == 204 || status == 304
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(for: status))\r\n"
        for field in headers.fields {
            let name = field.name.lowercased()
            guard name != "content-length", name != "connection", name != "transfer-encoding",
                !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPRequestParser.isTokenByte),
                field.value.utf8.allSatisfy({ $0 != 0x0D && $0 != 0x0A && $0 != 0 })
            else { continue }
            head += "\(field.name): \(field.value)\r\n"
        }
        if !bodyForbidden {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if !headOnly && !bodyForbidden {
            bytes += body
        }
        return bytes
    }
}
