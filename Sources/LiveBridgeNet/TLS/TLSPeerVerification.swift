/// What happened in the latest certificate check of a TLS handshake.
struct TLSPeerVerification: Sendable, Equatable {
    /// SHA-256 of the peer's leaf certificate, when it sent one.
    var presented: CertificateFingerprint?
    /// Why the certificate was refused; nil when it was accepted.
    var rejection: TLSPeerRejection?
    /// Accepted only because no pin was stored yet (trust on first use); the owner records the
    /// fingerprint once the connection proves useful.
    var acceptedOnFirstUse: Bool = false
}
