/// How the session protects the connection and decides whether the broker is the right one.
///
/// Every TLS mode enforces its check inside the TLS handshake, so a refused certificate ends the
/// connection before the MQTT CONNECT packet (which carries the password) is sent.
public enum MQTTTransportSecurity: Sendable, Equatable, CustomStringConvertible {
    /// Plain TCP, no encryption. For brokers on the same host or a trusted network only.
    case plaintext
    /// TLS verified against `caFile` (nil: the system CA store). `verifyHostname: false` keeps
    /// the chain check but skips the name check (a device cert whose CN is a serial number).
    case certificateAuthority(caFile: String?, verifyHostname: Bool)
    /// TLS accepted only when the peer's leaf certificate has this SHA-256 fingerprint; chain
    /// and host name are not checked (self-signed device certificates).
    case pinnedCertificate(CertificateFingerprint)
    /// TLS with the fingerprint recorded at the first successful connection and required from
    /// then on. `identity` names the pin file (e.g. the printer serial); nil uses `host-port`.
    case trustOnFirstUse(identity: String?)
    /// TLS without any certificate check. Explicit opt-in only; logged as a warning on every
    /// connection.
    case insecure

    /// Whether the connection uses TLS.
    public var usesTLS: Bool {
        if case .plaintext = self { return false }
        return true
    }

    /// A short description for logs and `/health` (never contains secrets).
    public var description: String {
        switch self {
        case .plaintext: "plaintext"
        case .certificateAuthority(let caFile, let verifyHostname):
            "tls ca=\(caFile ?? "system")\(verifyHostname ? "" : " (no host-name check)")"
        case .pinnedCertificate(let fingerprint): "tls pinned sha256 \(fingerprint.colonHex)"
        case .trustOnFirstUse(let identity): "tls trust-on-first-use\(identity.map { " (\($0))" } ?? "")"
        case .insecure: "tls insecure (no certificate check)"
        }
    }
}
