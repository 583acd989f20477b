public import LiveBridgeCore
public import LiveBridgeNet

extension TLSOptions {
    /// Reads the TLS keys shared by HTTP-based sinks and sources: `fingerprint` (SPKI pin),
    /// `caFile`, `insecure`.
    public static func read(_ reader: ConfigReader) -> TLSOptions {
        var options = TLSOptions()
        options.caFile = reader.string("caFile")
        if let pin = reader.string("fingerprint") {
            if pin.hasPrefix("sha256//") {
                options.pinnedPublicKey = pin
            } else {
                reader.problem(
                    "fingerprint",
                    "expected the SPKI pin as sha256//<base64>; get it with: openssl x509 -in cert.pem -pubkey -noout | "
                        + "openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64")
            }
        }
        options.insecure = reader.bool("insecure", default: false)
        return options
    }
}
