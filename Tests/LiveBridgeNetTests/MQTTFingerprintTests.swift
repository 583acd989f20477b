import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

@Suite("Certificate fingerprints and TOFU pin storage")
struct MQTTFingerprintTests {
    static let colonUpper =
        "AD:03:5F:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD"

    @Test("hex with or without colons, any case, openssl prefix: all parse to the same fingerprint")
    func parsesEveryCommonSpelling() throws {
        let reference = try CertificateFingerprint(hex: Self.colonUpper)
        let spellings = [
            Self.colonUpper.lowercased(),
            Self.colonUpper.replacingOccurrences(of: ":", with: ""),
            Self.colonUpper.replacingOccurrences(of: ":", with: "").lowercased(),
            "sha256 Fingerprint=" + Self.colonUpper,
            "  " + Self.colonUpper + "\n",
        ]
        for spelling in spellings {
            #expect(try CertificateFingerprint(hex: spelling) == reference, "\(spelling)")
        }
        #expect(reference.colonHex == Self.colonUpper)
        #expect(reference.hex == Self.colonUpper.replacingOccurrences(of: ":", with: "").lowercased())
        #expect(reference.bytes.count == 32)
        #expect(try CertificateFingerprint(hex: reference.hex).matches(reference))
    }

    @Test("a wrong length or a non-hex character is a clear error")
    func rejectsMalformedPins() {
        #expect(throws: CertificateFingerprintError.self) { try CertificateFingerprint(hex: "AD:03") }
        #expect(throws: CertificateFingerprintError.self) { try CertificateFingerprint(hex: Self.colonUpper + ":00") }
        do {
            _ = try CertificateFingerprint(hex: Self.colonUpper.replacingOccurrences(of: "AD", with: "XZ"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notHex)
            #expect(error.message.contains("64 hex digits"))
        }
        #expect(throws: CertificateFingerprintError.self) { try CertificateFingerprint(bytes: [1, 2, 3]) }
    }

    @Test("matches() is byte equality")
    func matchesComparesEveryByte() throws {
        let a = try CertificateFingerprint(hex: Self.colonUpper)
        var bytes = a.bytes
        bytes[31] ^= 1
        let b = try CertificateFingerprint(bytes: bytes)
        #expect(a.matches(a))
        #expect(!a.matches(b))
    }

    @Test("SHA-256 of the DER and of the PEM file equal what the openssl CLI computes")
    func digestsMatchOpenSSLTool() throws {
        let authority = try TestCertificateAuthority(commonName: "01S00C000000042", prefix: "fp")
        defer { authority.remove() }
        let fromPEM = try CertificateFingerprint(pemCertificateFile: authority.serverCertificatePath)
        #expect(fromPEM.hex == authority.serverCertificateSHA256)
        let derPath = authority.directory.file("leaf.der")
        try ChildProcess.run(
            "openssl", ["x509", "-in", authority.serverCertificatePath, "-outform", "der", "-out", derPath])
        let derBytes = try #require(FileManager.default.contents(atPath: derPath).map { Array($0) })
        #expect(CertificateFingerprint.sha256(ofDER: derBytes) == fromPEM)
        // The CA file's first certificate is the CA, not the leaf: a different fingerprint.
        #expect(try CertificateFingerprint(pemCertificateFile: authority.caCertificatePath) != fromPEM)
    }

    @Test("a missing or non-PEM certificate file is a clear error")
    func unreadableCertificateFile() throws {
        let directory = try TemporaryDirectory(prefix: "fp-missing")
        defer { directory.remove() }
        #expect(throws: CertificateFingerprintError.self) {
            try CertificateFingerprint(pemCertificateFile: directory.file("nope.pem"))
        }
        try "hello".write(toFile: directory.file("bad.pem"), atomically: true, encoding: .utf8)
        do {
            _ = try CertificateFingerprint(pemCertificateFile: directory.file("bad.pem"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableCertificate)
        }
    }

    @Test("TOFU pins: one sanitised file per identity, readable text, damaged pin refuses")
    func trustOnFirstUsePinStore() throws {
        let directory = try TemporaryDirectory(prefix: "pins")
        defer { directory.remove() }
        let store = FileStateStore(directory: directory.path)
        let pins = TrustOnFirstUsePinStore(store: store, identity: "bambu 01P00A/../x")
        #expect(pins.key == "pins/bambu-01P00A-..-x.sha256")
        #expect(pins.location == directory.path + "/pins/bambu-01P00A-..-x.sha256")
        #expect(try pins.pinned() == nil)
        let fingerprint = try CertificateFingerprint(hex: Self.colonUpper)
        try pins.record(fingerprint)
        let text = try String(contentsOfFile: pins.location, encoding: .utf8)
        #expect(text == Self.colonUpper + "\n")
        #expect(try TrustOnFirstUsePinStore(store: store, identity: "bambu 01P00A/../x").pinned() == fingerprint)
        try "garbage".write(toFile: pins.location, atomically: true, encoding: .utf8)
        #expect(throws: TrustOnFirstUsePinError.self) { try pins.pinned() }
        try pins.forget()
        #expect(try pins.pinned() == nil)
    }
}
