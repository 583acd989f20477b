/// Why the peer's certificate was refused during the TLS handshake.
///
/// Recorded by `TLSPeerVerifier` inside OpenSSL's verify callback, because OpenSSL itself only
/// reports a generic "certificate verify failed"; the owner turns it into a user-facing error
/// with the host it was connecting to.
enum TLSPeerRejection: Sendable, Equatable {
    /// Chain or host-name verification against the configured CA failed (OpenSSL's reason).
    case untrusted(reason: String)
    /// The certificate does not match the configured pin.
    case pinMismatch(expected: CertificateFingerprint, presented: CertificateFingerprint)
    /// The certificate differs from the one trusted on first use.
    case changedSinceFirstUse(pinned: CertificateFingerprint, presented: CertificateFingerprint, location: String)
    /// The stored trust-on-first-use pin cannot be read.
    case pinStoreUnreadable(String)
    /// The peer sent no certificate, or it could not be hashed.
    case noCertificate
}
