/// A complete HTTP response: status, header fields and the body.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code of the final response (interim `1xx` responses are skipped).
    public var status: Int
    /// Header fields of the final response in wire order.
    public var headers: HTTPHeaders
    /// The body as received (no content decoding is requested).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body decoded as UTF-8 (invalid sequences become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// True for `2xx`.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
