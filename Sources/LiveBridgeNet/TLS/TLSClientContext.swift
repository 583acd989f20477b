import CLiveBridgeShims
import COpenSSL
import Glibc
import Synchronization

/// An OpenSSL client context whose certificate policy is entirely ours.
///
/// TLS 1.2 at least (optionally at most), `SSL_VERIFY_PEER`, and `TLSPeerVerifier` as the
/// certificate-verify callback, so pins and trust-on-first-use are enforced inside the handshake.
/// Handed to libmosquitto with `MOSQ_OPT_SSL_CTX` (which takes its own reference); the owner
/// calls `release()` after the library object using it is destroyed. The verifier is kept alive
/// by this object for as long as the context exists.
final class TLSClientContext: Sendable {
    /// The `SSL_CTX *`. Valid until `release()`.
    nonisolated(unsafe) let context: OpaquePointer
    /// The certificate judge registered as the verify callback's argument.
    let verifier: TLSPeerVerifier
    private let released = Mutex(false)

    /// Builds the context.
    ///
    /// - Parameters:
    ///   - policy: how the peer certificate is judged.
    ///   - caFile: PEM bundle for `.chain` (nil: the system store).
    ///   - verifiedHost: host name or IP the certificate must name (`.chain` only; nil: no name check).
    ///   - versions: offered TLS versions.
    init(
        policy: TLSPeerVerifier.Policy, caFile: String?, verifiedHost: String?, versions: TLSVersionRange
    ) throws(TLSContextError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSContextError(message: "OpenSSL could not create a TLS client context: \(Self.openSSLErrors())")
        }
        var ok = false
        defer { if !ok { SSL_CTX_free(context) } }
        guard lb_ssl_ctx_set_min_tls12(context) == 1 else {
            throw TLSContextError(message: "OpenSSL refused to set TLS 1.2 as the minimum version")
        }
        // SSL_CTX_set_max_proto_version is a macro over SSL_CTX_ctrl.
        if versions == .tls12Only,
            SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) != 1
        {
            throw TLSContextError(message: "OpenSSL refused to cap the TLS version at 1.2")
        }
        if case .chain = policy {
            if let caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw TLSContextError(
                        message: "cannot load CA certificates from \(caFile): \(Self.openSSLErrors()) "
                            + "(expected a readable PEM file with one or more certificates)")
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw TLSContextError(message: "cannot load the system CA store: \(Self.openSSLErrors())")
            }
            if let verifiedHost {
                let parameters = SSL_CTX_get0_param(context)
                let status =
                    Self.isIPAddress(verifiedHost)
                    ? X509_VERIFY_PARAM_set1_ip_asc(parameters, verifiedHost)
                    : X509_VERIFY_PARAM_set1_host(parameters, verifiedHost, 0)
                guard status == 1 else {
                    throw TLSContextError(message: "cannot check certificates against the name \"\(verifiedHost)\"")
                }
            }
        }
        let verifier = TLSPeerVerifier(policy: policy)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        SSL_CTX_set_cert_verify_callback(
            context, TLSPeerVerifier.callback, Unmanaged.passUnretained(verifier).toOpaque())
        self.context = context
        self.verifier = verifier
        ok = true
    }

    /// Drops this object's reference to the context (once). Call only after every user of the
    /// context (the mosquitto object) is destroyed.
    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { SSL_CTX_free(context) }
    }

    /// True for an IPv4 or IPv6 literal.
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Drains OpenSSL's thread-local error queue into one line.
    static func openSSLErrors() -> String {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines.isEmpty ? "no details" : lines.joined(separator: "; ")
    }
}

/// A TLS context could not be built (unreadable CA file, OpenSSL refused a setting).
struct TLSContextError: Error, Sendable {
    var message: String
}
