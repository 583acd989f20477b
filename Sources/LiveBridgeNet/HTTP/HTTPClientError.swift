import LiveBridgeFoundation

/// Why an HTTP request produced no usable response.
///
/// A struct wrapping an extensible code (async-http-client style) so codes can be added without
/// breaking `switch`es. The message says what happened, to which (redacted) URL, and what to
/// do; it never contains request headers, and secrets in the URL are masked.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable for programmatic decisions (retry, back off, give up).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// The host name did not resolve.
        public static let dns = Code("dns")
        /// Nothing accepted the TCP connection (refused or unreachable).
        public static let connectionRefused = Code("connectionRefused")
        /// TLS failed: untrusted or invalid certificate, host mismatch, handshake failure.
        public static let tls = Code("tls")
        /// The server's public key did not match the configured pin.
        public static let pinMismatch = Code("pinMismatch")
        /// The connect timeout or the overall timeout expired.
        public static let timeout = Code("timeout")
        /// The response body exceeded `HTTPRequest.maxResponseBytes`.
        public static let tooLarge = Code("tooLarge")
        /// The calling task was cancelled; the transfer was abandoned.
        public static let cancelled = Code("cancelled")
        /// The URL is not an absolute `http://` or `https://` URL.
        public static let invalidURL = Code("invalidURL")
        /// The request itself is invalid (a header with a line break, an empty method).
        public static let invalidRequest = Code("invalidRequest")
        /// The client was shut down before the request finished.
        public static let clientShutdown = Code("clientShutdown")
        /// Any other transport failure: reset, empty reply, malformed response.
        public static let network = Code("network")

        /// The code's name, e.g. `dns`.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A user-facing explanation with secrets masked.
    public let message: String
    /// The libcurl result code when libcurl reported the failure (for diagnostics).
    public let curlCode: Int?

    /// Creates an error; `message` passes through `Redactor.shared` so no registered secret or
    /// `apikey=` value survives.
    public init(_ code: Code, message: String, curlCode: Int? = nil) {
        self.init(code, redactedMessage: Redactor.shared.redact(message), curlCode: curlCode)
    }

    private init(_ code: Code, redactedMessage: String, curlCode: Int?) {
        self.code = code
        self.message = redactedMessage
        self.curlCode = curlCode
    }

    /// The message.
    public var description: String { message }

    /// An error about `request` whose text names the method and the redacted URL.
    ///
    /// Each part is redacted exactly once (`what` and `hint` are fixed texts): a second pass of
    /// `Redactor` over an already masked `apikey=[redacted]` would garble it.
    static func about(
        _ request: HTTPRequest, _ code: Code, _ what: String, hint: String, detail: String? = nil, curlCode: Int? = nil
    ) -> HTTPClientError {
        let method = request.method.utf8.allSatisfy(CurlTransfer.isTokenByte) ? request.method : "request"
        var text = "\(method) \(HTTPURLRedactor.redact(request.url)): \(what)"
        if let detail, !detail.isEmpty {
            text += " (\(Redactor.shared.redact(detail)))"
        }
        text += " — \(hint)"
        return HTTPClientError(code, redactedMessage: text, curlCode: curlCode)
    }
}
