/// How an HTTPS server's identity is checked.
///
/// The default verifies the certificate chain against the system CA store and the host name
/// against the certificate. A private CA is added with `caFile`. A self-signed server (Home
/// Assistant on a LAN) is trusted by pinning its public key: with a pin and no `caFile`, chain
/// and host checks are skipped but the pin is enforced, which is stronger than a CA for one
/// known server.
public struct TLSOptions: Sendable, Equatable {
    /// PEM file of CA certificates to trust instead of the system store.
    public var caFile: String?
    /// Expected server public key in libcurl's form, `sha256//<base64 SHA-256 of the DER SPKI>`
    /// (several may be joined with `;`).
    public var pinnedPublicKey: String?
    /// Turns every certificate check off except an explicit pin. Only for tests and for users
    /// who opted out knowingly.
    public var insecure: Bool

    /// Verified TLS with the system CA store.
    public init(caFile: String? = nil, pinnedPublicKey: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.pinnedPublicKey = pinnedPublicKey
        self.insecure = insecure
    }

    /// Whether the chain and host name are verified for these options.
    public var verifiesChain: Bool {
        if insecure { return false }
        if pinnedPublicKey != nil && caFile == nil { return false }
        return true
    }
}
