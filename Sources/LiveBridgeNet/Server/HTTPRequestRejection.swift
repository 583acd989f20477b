/// Why a request was refused before reaching the handler, with the status to answer.
public struct HTTPRequestRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status code to send: 400, 405, 408, 411, 413, 431, 501 or 505.
    public var status: Int
    /// What was wrong, for the log and the plain-text response body (never echoes the request).
    public var reason: String

    /// Creates a rejection.
    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// `431 request line and headers exceed 16384 bytes`.
    public var description: String { "\(status) \(reason)" }
}
