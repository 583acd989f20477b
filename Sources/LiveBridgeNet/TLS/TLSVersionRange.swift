/// Which TLS versions a client offers. TLS 1.0 and 1.1 are never offered.
///
/// `tls12Only` exists for devices whose firmware never answers a TLS 1.3 ClientHello (reported
/// for some Bambu Lab printers); everything else should allow TLS 1.3.
public enum TLSVersionRange: String, Sendable, Equatable, CaseIterable {
    /// TLS 1.2 or TLS 1.3, whichever the peer prefers.
    case tls12OrNewer
    /// Exactly TLS 1.2.
    case tls12Only
}
