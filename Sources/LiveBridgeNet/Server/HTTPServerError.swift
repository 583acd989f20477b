/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The address is not `host:port` with an IP literal (or `localhost`) and a port.
        public static let invalidAddress = Code("invalidAddress")
        /// Another process already listens on the port.
        public static let addressInUse = Code("addressInUse")
        /// The socket could not be created, bound or put into listening state.
        public static let listenFailed = Code("listenFailed")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// What happened and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
