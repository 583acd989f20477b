import COpenSSL
import LiveBridgeFoundation

/// The SHA-256 fingerprint of a certificate's DER encoding: what a user pins for a device with a
/// self-signed certificate.
///
/// Printers and LAN servers present self-signed certificates whose names never match the address
/// they are reached at, so the strongest practical check is the exact certificate. Parsing accepts
/// what people copy from `openssl x509 -fingerprint -sha256` (`AB:CD:…`, optionally with its
/// `sha256 Fingerprint=` prefix) as well as bare hex, in any letter case. The MQTT session, the
/// HTTP client and the Home Assistant code share this type so one pin format works everywhere.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Number of bytes in a SHA-256 digest.
    public static let byteCount = 32

    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// Wraps 32 digest bytes.
    public init(bytes: [UInt8]) throws(CertificateFingerprintError) {
        guard bytes.count == Self.byteCount else {
            throw CertificateFingerprintError(
                code: .wrongLength,
                message: "a SHA-256 fingerprint has 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 64 hex digits, with or without `:` (or space) separators, case-insensitive.
    ///
    /// A leading `sha256 Fingerprint=` or `sha256:` (what tools print) is ignored.
    public init(hex text: String) throws(CertificateFingerprintError) {
        var body = Substring(text.trimmingWhitespace())
        for prefix in ["sha256 fingerprint=", "sha256fingerprint=", "sha256:", "sha256="] {
            if body.lowercased().hasPrefix(prefix) {
                body = body.dropFirst(prefix.count)
                break
            }
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(64)
        for scalar in body.unicodeScalars {
            switch scalar {
            case ":", " ", "-": continue
            case "0"..."9": digits.append(UInt8(scalar.value - 48))
            case "a"..."f": digits.append(UInt8(scalar.value - 87))
            case "A"..."F": digits.append(UInt8(scalar.value - 55))
            default:
                throw CertificateFingerprintError(
                    code: .notHex,
                    message: "a SHA-256 fingerprint is 64 hex digits (colons allowed), found \"\(scalar)\"")
            }
        }
        guard digits.count == Self.byteCount * 2 else {
            throw CertificateFingerprintError(
                code: .wrongLength,
                message: "a SHA-256 fingerprint is 64 hex digits (colons allowed), got \(digits.count) digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        var index = 0
        while index < digits.count {
            bytes.append(digits[index] << 4 | digits[index + 1])
            index += 2
        }
        self.bytes = bytes
    }

    /// The fingerprint of a DER-encoded certificate (SHA-256 over the DER bytes, via OpenSSL EVP).
    public static func sha256(ofDER der: [UInt8]) -> CertificateFingerprint {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = der.withUnsafeBytes { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(status == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
        return CertificateFingerprint(unchecked: Array(digest.prefix(byteCount)))
    }

    /// The fingerprint of the first certificate in a PEM file (the leaf in a chain file).
    public init(pemCertificateFile path: String) throws(CertificateFingerprintError) {
        guard let bio = BIO_new_file(path, "r") else {
            throw CertificateFingerprintError(
                code: .unreadableCertificate,
                message: "cannot open certificate file \(path) (check the path and its permissions)")
        }
        defer { _ = BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            ERR_clear_error()
            throw CertificateFingerprintError(
                code: .unreadableCertificate,
                message: "\(path) does not contain a PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        defer { X509_free(certificate) }
        guard let fingerprint = Self.sha256(ofX509: certificate) else {
            throw CertificateFingerprintError(
                code: .unreadableCertificate, message: "cannot compute the SHA-256 fingerprint of \(path)")
        }
        self = fingerprint
    }

    /// The fingerprint of an OpenSSL `X509` (the DER encoding is hashed by `X509_digest`).
    static func sha256(ofX509 certificate: OpaquePointer) -> CertificateFingerprint? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == UInt32(byteCount) else {
            return nil
        }
        return CertificateFingerprint(unchecked: Array(digest.prefix(byteCount)))
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lower-case hex without separators (64 characters), the form state files and logs use.
    public var hex: String {
        var text = ""
        text.reserveCapacity(64)
        for byte in bytes {
            text += Self.hexDigit(byte >> 4, upper: false)
            text += Self.hexDigit(byte & 0x0F, upper: false)
        }
        return text
    }

    /// Upper-case hex pairs joined by `:`, exactly what `openssl x509 -fingerprint -sha256` prints.
    public var colonHex: String {
        bytes.map { Self.hexDigit($0 >> 4, upper: true) + Self.hexDigit($0 & 0x0F, upper: true) }
            .joined(separator: ":")
    }

    /// The `openssl`-style form (`AB:CD:…`), so messages can be compared with the tool's output.
    public var description: String { colonHex }

    /// Compares in constant time (no early exit), as a pin check should.
    public func matches(_ other: CertificateFingerprint) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var difference: UInt8 = 0
        for index in bytes.indices {
            difference |= bytes[index] ^ other.bytes[index]
        }
        return difference == 0
    }

    private static func hexDigit(_ nibble: UInt8, upper: Bool) -> String {
        let digits: [Character] =
            upper
            ? ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
            : ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        return String(digits[Int(nibble)])
    }
}
