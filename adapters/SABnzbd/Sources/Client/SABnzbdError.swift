import LiveBridgeCore

/// A poll that produced no usable answer: what happened, what was expected and what to fix.
///
/// The message never contains the API key: URLs are masked by `HTTPURLRedactor` and the text
/// passes through `Redactor` (the key is registered there when the config is read).
public struct SABnzbdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, for backoff and `/health` decisions.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// The API key is wrong or missing (403 `API Key Incorrect`/`Required`, 401 from a proxy).
        public static let authentication = Code("authentication")
        /// SABnzbd refuses this client (`External internet access denied`, host-name check).
        public static let accessDenied = Code("accessDenied")
        /// Nothing answers at the URL's path (404): the URL is not SABnzbd's.
        public static let notFound = Code("notFound")
        /// SABnzbd or a proxy in front of it failed (5xx).
        public static let server = Code("server")
        /// The body is not JSON (an HTML page, a text message).
        public static let notJSON = Code("notJSON")
        /// JSON, but not a queue or history answer.
        public static let badAnswer = Code("badAnswer")
        /// No connection: refused, unresolvable, reset, TLS failure.
        public static let unreachable = Code("unreachable")
        /// No answer in time.
        public static let timeout = Code("timeout")
        /// The poll was cancelled (the bridge is stopping): not a problem to report.
        public static let cancelled = Code("cancelled")

        /// The code's name, e.g. `authentication`.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// HTTP status when SABnzbd (or a proxy) answered.
    public let status: Int?
    /// User-facing text, secrets masked.
    public let message: String

    /// An error; `message` passes through `Redactor.shared`.
    public init(_ code: Code, status: Int? = nil, message: String) {
        self.code = code
        self.status = status
        self.message = Redactor.shared.redact(message)
    }

    /// True for problems only a configuration change fixes (polling harder will not help).
    public var needsConfigurationChange: Bool {
        code == .authentication || code == .accessDenied || code == .notFound
    }

    /// The message.
    public var description: String { message }
}
