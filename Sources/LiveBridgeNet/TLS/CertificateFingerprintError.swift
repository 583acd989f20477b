/// A certificate fingerprint could not be parsed or computed.
///
/// Users meet it when a configured pin is mistyped, so the message says what a valid pin looks like.
public struct CertificateFingerprintError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for code that reacts to the kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case wrongLength, notHex, unreadableCertificate
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// Not 32 bytes / 64 hex digits.
        public static let wrongLength = Code(.wrongLength)
        /// A character that is neither a hex digit nor a separator.
        public static let notHex = Code(.notHex)
        /// A certificate file that cannot be read or parsed.
        public static let unreadableCertificate = Code(.unreadableCertificate)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What happened and what a valid value looks like.
    public var message: String

    /// Creates an error; `message` is shown to users as is.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
