import LiveBridgeCore

/// Why a Home Assistant session ended or could not start.
///
/// The description is a sentence for users: what happened, what was expected, what to do.
/// Tokens never appear (the text also passes through `Redactor`).
public struct HomeAssistantConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category; compare against the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Home Assistant refused the token (`auth_invalid`, HTTP 401): a configuration error.
        public static let authenticationFailed = Kind("authenticationFailed")
        /// No `auth_ok` or subscription result within the setup timeout.
        public static let setupTimeout = Kind("setupTimeout")
        /// No `pong` came back: the link is presumed dead.
        public static let keepaliveTimeout = Kind("keepaliveTimeout")
        /// A command LiveBridge needs was refused (`subscribe_entities` and its fallback).
        public static let commandRejected = Kind("commandRejected")
        /// Home Assistant spoke out of turn (no `auth_required` first, …).
        public static let protocolViolation = Kind("protocolViolation")
        /// The connection ended (Home Assistant restarted, network loss).
        public static let connectionEnded = Kind("connectionEnded")
        /// The REST API answered with an unexpected status.
        public static let httpStatus = Kind("httpStatus")

        /// The category's name.
        public var description: String { name }
    }

    /// The category.
    public var kind: Kind
    /// The full sentence.
    public var message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message, redacted.
    public var description: String { Redactor.shared.redact(message) }
}
