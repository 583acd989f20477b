import COpenSSL
import Synchronization

/// Decides inside the TLS handshake whether the peer's certificate is acceptable.
///
/// Installed with `SSL_CTX_set_cert_verify_callback` on a context that also sets
/// `SSL_VERIFY_PEER`, so a refusal aborts the handshake before the client sends any application
/// data — in MQTT that is the CONNECT packet carrying the password. Without `SSL_VERIFY_PEER`
/// OpenSSL clients ignore the callback's verdict, which is why `TLSClientContext` sets both.
final class TLSPeerVerifier: Sendable {
    /// How certificates are judged.
    enum Policy: Sendable {
        /// Normal chain verification (CA file or system store; host name if set on the context).
        case chain
        /// The leaf certificate must have exactly this fingerprint; chain and names are not checked.
        case pinned(CertificateFingerprint)
        /// The leaf must match the stored pin; with no pin yet, it is accepted and reported as first use.
        case trustOnFirstUse(TrustOnFirstUsePinStore)
        /// Anything is accepted (explicit opt-in only); the fingerprint is still reported.
        case acceptAnything
    }

    let policy: Policy
    private let latest = Mutex<TLSPeerVerification?>(nil)

    init(policy: Policy) {
        self.policy = policy
    }

    /// The C callback for `SSL_CTX_set_cert_verify_callback`; `argument` is an unretained verifier.
    static let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, argument in
        guard let store, let argument else { return 0 }
        let verifier = Unmanaged<TLSPeerVerifier>.fromOpaque(argument).takeUnretainedValue()
        return verifier.verify(store) ? 1 : 0
    }

    /// Forgets the previous handshake's result (call before each connection attempt).
    func reset() {
        latest.withLock { $0 = nil }
    }

    /// The result of the most recent check, if a certificate was checked since `reset()`.
    var lastVerification: TLSPeerVerification? {
        latest.withLock { $0 }
    }

    /// Judges the certificate in `store` (an `X509_STORE_CTX`); true accepts it.
    func verify(_ store: OpaquePointer) -> Bool {
        let verification = judge(store)
        latest.withLock { $0 = verification }
        if verification.rejection != nil {
            // Make OpenSSL send a "bad certificate" alert instead of reporting success.
            if X509_STORE_CTX_get_error(store) == X509_V_OK {
                X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
            }
            return false
        }
        return true
    }

    private func judge(_ store: OpaquePointer) -> TLSPeerVerification {
        guard let certificate = X509_STORE_CTX_get0_cert(store),
            let presented = CertificateFingerprint.sha256(ofX509: certificate)
        else {
            return TLSPeerVerification(presented: nil, rejection: .noCertificate)
        }
        switch policy {
        case .chain:
            if X509_verify_cert(store) == 1 {
                return TLSPeerVerification(presented: presented)
            }
            let code = X509_STORE_CTX_get_error(store)
            let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            return TLSPeerVerification(presented: presented, rejection: .untrusted(reason: reason))
        case .pinned(let expected):
            if expected.matches(presented) {
                return TLSPeerVerification(presented: presented)
            }
            return TLSPeerVerification(
                presented: presented, rejection: .pinMismatch(expected: expected, presented: presented))
        case .trustOnFirstUse(let pins):
            let pinned: CertificateFingerprint?
            do {
                pinned = try pins.pinned()
            } catch {
                return TLSPeerVerification(presented: presented, rejection: .pinStoreUnreadable(error.message))
            }
            guard let pinned else {
                return TLSPeerVerification(presented: presented, acceptedOnFirstUse: true)
            }
            if pinned.matches(presented) {
                return TLSPeerVerification(presented: presented)
            }
            return TLSPeerVerification(
                presented: presented,
                rejection: .changedSinceFirstUse(pinned: pinned, presented: presented, location: pins.location))
        case .acceptAnything:
            return TLSPeerVerification(presented: presented)
        }
    }
}
