import Foundation

/// A throw-away certificate authority and server certificate made with the `openssl` tool at
/// test time, so TLS tests (HTTPS pinning, wss://, MQTT over TLS) use real certificates.
public struct TestCertificateAuthority: Sendable {
    /// Directory holding every file below.
    public let directory: TemporaryDirectory
    /// PEM of the CA certificate.
    public let caCertificatePath: String
    /// PEM of the server certificate (signed by the CA).
    public let serverCertificatePath: String
    /// PEM of the server's private key.
    public let serverKeyPath: String
    /// libcurl pin of the server key: `sha256//<base64 of SHA-256 of the DER SubjectPublicKeyInfo>`.
    public let serverPublicKeyPin: String
    /// SHA-256 of the server certificate's DER, lower-case hex without colons.
    public let serverCertificateSHA256: String

    /// Creates a CA and a server certificate for `commonName` valid for 127.0.0.1 and localhost.
    public init(commonName: String = "localhost", prefix: String = "tls") throws {
        let directory = try TemporaryDirectory(prefix: prefix)
        self.directory = directory
        caCertificatePath = directory.file("ca.pem")
        serverCertificatePath = directory.file("server.pem")
        serverKeyPath = directory.file("server.key")
        let caKey = directory.file("ca.key")
        let csr = directory.file("server.csr")
        let extensions = directory.file("server.ext")
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try ChildProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", caKey,
                "-out", caCertificatePath,
                "-days", "2", "-subj", "/CN=LiveBridge Test CA",
            ])
        try ChildProcess.run(
            "openssl",
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", serverKeyPath,
                "-out", csr, "-subj", "/CN=\(commonName)",
            ])
        try ChildProcess.run(
            "openssl",
            [
                "x509", "-req", "-in", csr, "-CA", caCertificatePath, "-CAkey", caKey, "-CAcreateserial", "-out",
                serverCertificatePath, "-days", "2", "-extfile", extensions,
            ])
        let spki = directory.file("server.spki.der")
        let publicKey = directory.file("server.pub.pem")
        try ChildProcess.run("openssl", ["x509", "-in", serverCertificatePath, "-pubkey", "-noout", "-out", publicKey])
        try ChildProcess.run("openssl", ["pkey", "-pubin", "-in", publicKey, "-outform", "der", "-out", spki])
        let spkiData = try Data(contentsOf: URL(fileURLWithPath: spki))
        serverPublicKeyPin = "sha256//" + Self.sha256(spkiData).base64EncodedString()
        let der = directory.file("server.der")
        try ChildProcess.run("openssl", ["x509", "-in", serverCertificatePath, "-outform", "der", "-out", der])
        let derData = try Data(contentsOf: URL(fileURLWithPath: der))
        serverCertificateSHA256 = Self.sha256(derData).map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 via the `openssl dgst` tool (test support stays free of C modules).
    private static func sha256(_ data: Data) -> Data {
        let directory = try? TemporaryDirectory(prefix: "digest")
        defer { directory?.remove() }
        guard let directory else { return Data() }
        let input = directory.file("in")
        let output = directory.file("out")
        guard FileManager.default.createFile(atPath: input, contents: data) else { return Data() }
        _ = try? ChildProcess.run("openssl", ["dgst", "-sha256", "-binary", "-out", output, input])
        return (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
    }

    /// Removes every file.
    public func remove() { directory.remove() }
}
