public import LiveBridgeCore
public import LiveBridgeNet

extension TLSOptions {
    /// Reads the TLS keys of an HTTPS connection (PushWard, state-object, SABnzbd, Home
    /// Assistant): `caFile`, `publicKeySHA256` (the server's SPKI pin, `sha256//<base64>`;
    /// formerly `fingerprint`), `insecure`.
    public static func read(_ reader: ConfigReader) -> TLSOptions {
        var options = TLSOptions()
        options.caFile = reader.string("caFile")
        let key = reader.renamed("publicKeySHA256", formerly: "fingerprint")
        if let pin = reader.string(key) {
            if pin.hasPrefix("sha256//") && pin.count > 8 {
                options.pinnedPublicKey = pin
            } else {
                reader.problem(
                    key,
                    "expected the SPKI pin as sha256//<base64>; get it with: openssl x509 -in cert.pem -pubkey -noout | "
                        + "openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64")
            }
        }
        if reader.has("certificateSHA256") {
            reader.problem(
                "certificateSHA256",
                "an HTTPS connection pins the server's public key: give publicKeySHA256 (sha256//<base64>) instead")
        }
        options.insecure = reader.bool("insecure", default: false)
        return options
    }
}

extension CertificateFingerprint {
    /// Reads the certificate pin of an MQTT connection (a Bambu printer, the MQTT sink):
    /// `certificateSHA256`, the SHA-256 of the certificate as hex (colons optional; formerly
    /// `fingerprint`). `hint` says how to get it. Nil when absent or invalid (a problem then).
    public static func read(_ reader: ConfigReader, hint: String) -> CertificateFingerprint? {
        if reader.has("publicKeySHA256") {
            reader.problem(
                "publicKeySHA256",
                "an MQTT connection pins the certificate itself: give certificateSHA256 (its SHA-256 as hex) instead")
        }
        let key = reader.renamed("certificateSHA256", formerly: "fingerprint")
        guard let text = reader.string(key) else { return nil }
        do {
            return try CertificateFingerprint(hex: text)
        } catch {
            reader.problem(key, "\(error.message); \(hint)")
            return nil
        }
    }

    /// True when the entry gives a certificate pin under either name.
    public static func given(_ reader: ConfigReader) -> Bool {
        reader.has("certificateSHA256") || reader.has("fingerprint")
    }
}
