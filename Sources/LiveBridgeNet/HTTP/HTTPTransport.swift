/// Something that performs HTTP requests: `HTTPClient` in the program, a fake in tests.
///
/// One `async` requirement with typed throws keeps adapters and sinks independent of libcurl
/// and lets them switch on `HTTPClientError.code` without casting.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the final response, whatever its status.
    ///
    /// Non-2xx statuses are responses, not errors; errors mean no usable response arrived.
    func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse
}
