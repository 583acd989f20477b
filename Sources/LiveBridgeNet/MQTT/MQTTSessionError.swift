import LiveBridgeFoundation

/// Why an MQTT session could not connect, lost its connection, or could not publish.
///
/// Adapters show `message` as-is in logs and `/health` (it says what happened, what was expected
/// and what to do) and switch on `code` to word configuration hints of their own ("check
/// sources[0].accessCode"). Messages never contain the password: they are built without it and
/// pass through the shared redactor.
public struct MQTTSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. A struct with static members, so new kinds do not break `switch`es.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case invalidConfiguration, hostNotFound, connectionRefused, networkUnreachable, networkError
            case timedOut, tlsHandshakeFailed, certificateUntrusted, certificatePinMismatch, certificateChanged
            case pinStoreFailed, notAuthorized, badCredentials, identifierRejected, brokerRefused
            case connectionLost, protocolError, notConnected, publishFailed, cancelled, shutDown
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The configuration is unusable (bad port, unreadable CA file, malformed pin).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// DNS could not resolve the host.
        public static let hostNotFound = Code(.hostNotFound)
        /// TCP connection refused: nothing listens on that port (broker down, printer booting).
        public static let connectionRefused = Code(.connectionRefused)
        /// No route to the host (device powered off or on another network).
        public static let networkUnreachable = Code(.networkUnreachable)
        /// Another socket-level failure (reset, broken pipe).
        public static let networkError = Code(.networkError)
        /// TCP, TLS or CONNACK did not complete in time, or the keepalive expired.
        public static let timedOut = Code(.timedOut)
        /// The TLS handshake failed for a reason other than the certificate check (OpenSSL's reason attached).
        public static let tlsHandshakeFailed = Code(.tlsHandshakeFailed)
        /// The certificate failed chain or host-name verification against the configured CA.
        public static let certificateUntrusted = Code(.certificateUntrusted)
        /// The certificate does not match the configured fingerprint pin.
        public static let certificatePinMismatch = Code(.certificatePinMismatch)
        /// The certificate differs from the one trusted on first use.
        public static let certificateChanged = Code(.certificateChanged)
        /// The trust-on-first-use pin could not be read or written.
        public static let pinStoreFailed = Code(.pinStoreFailed)
        /// CONNACK 5 "not authorised": the broker refused the credentials (wrong access code).
        public static let notAuthorized = Code(.notAuthorized)
        /// CONNACK 4 "bad user name or password".
        public static let badCredentials = Code(.badCredentials)
        /// CONNACK 2 "identifier rejected": the client id is not acceptable to the broker.
        public static let identifierRejected = Code(.identifierRejected)
        /// CONNACK 1 or 3 (protocol version, server unavailable) or another refusal.
        public static let brokerRefused = Code(.brokerRefused)
        /// An established connection ended (broker restart, link loss).
        public static let connectionLost = Code(.connectionLost)
        /// The broker sent something libmosquitto could not accept.
        public static let protocolError = Code(.protocolError)
        /// `publish` was called while the session is not connected.
        public static let notConnected = Code(.notConnected)
        /// The library refused a publish (invalid topic, payload too large, out of memory).
        public static let publishFailed = Code(.publishFailed)
        /// The waiting task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The session was shut down.
        public static let shutDown = Code(.shutDown)

        /// The code's name (`notAuthorized`).
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, what was expected, what to do. Never contains secrets.
    public let message: String
    /// The certificate fingerprint the peer presented, for certificate failures (to pin or compare).
    public let presentedFingerprint: CertificateFingerprint?
    /// The CONNACK return code for broker refusals (1–5).
    public let connackCode: Int?

    /// An error; `message` is redacted with the shared redactor as a last line of defence.
    public init(
        code: Code, message: String, presentedFingerprint: CertificateFingerprint? = nil, connackCode: Int? = nil
    ) {
        self.code = code
        self.message = Redactor.shared.redact(message)
        self.presentedFingerprint = presentedFingerprint
        self.connackCode = connackCode
    }

    /// True for refusals that retrying cannot fix without a configuration change (credentials,
    /// certificate); the session then waits the maximum reconnect delay instead of hammering.
    public var isConfigurationProblem: Bool {
        [
            .invalidConfiguration, .notAuthorized, .badCredentials, .identifierRejected, .certificateUntrusted,
            .certificatePinMismatch, .certificateChanged, .pinStoreFailed,
        ].contains(code)
    }

    /// The message.
    public var description: String { message }
}
