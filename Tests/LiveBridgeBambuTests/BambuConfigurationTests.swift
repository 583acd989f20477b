import Foundation
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeNet
import Testing

@Suite("Bambu configuration")
struct BambuConfigurationTests {
    static let accessCode = "Cfg-Canary-3141"

    /// Reads one `type: "bambu"` source entry with the given extra keys.
    func read(_ keys: String) throws -> (BambuPrinterConfiguration?, [String]) {
        let config = try ConfigLoader.parse(
            text: """
                {
                  sinks: [],
                  sources: [ { name: "workshop", type: "bambu", \(keys) } ],
                }
                """, environment: ["CODE": Self.accessCode])
        let entry = try #require(config.sources.first)
        let printer = BambuPrinterConfiguration.read(entry)
        return (printer, config.problems.all.map(\.description))
    }

    @Test("defaults: port 8883, trust on first use, slug bambu-<serial lower-cased>, serial upper-cased")
    func defaults() throws {
        let (printer, problems) = try read(#"host: "192.168.1.40", serial: "01p00a000000001", accessCode: "${CODE}""#)
        #expect(problems.isEmpty)
        let configuration = try #require(printer)
        #expect(configuration.name == "workshop")
        #expect(configuration.port == 8883)
        #expect(configuration.serial == "01P00A000000001")
        #expect(configuration.slug == "bambu-01p00a000000001")
        #expect(configuration.reportTopic == "device/01P00A000000001/report")
        #expect(configuration.requestTopic == "device/01P00A000000001/request")
        #expect(configuration.security == .trustOnFirstUse(identity: "bambu-01p00a000000001"))
        #expect(configuration.configPath == "sources[0]")
        #expect(configuration.mapper == BambuActivityMapper.Settings())
        let session = configuration.session
        #expect(session.username == "bblp" && session.password == Self.accessCode)
        #expect(session.tlsVersions == .tls12Only)
        #expect(session.subscriptions.map(\.topicFilter) == ["device/01P00A000000001/report"])
        #expect(session.clientID.hasPrefix("livebridge-01p00a000000001-"))
        #expect(configuration.session.clientID != session.clientID, "a fresh client id per session")
    }

    @Test("the access code is a secret: registered for redaction, absent from descriptions")
    func secret() throws {
        let (printer, _) = try read(#"host: "10.0.0.5", serial: "01S00C000000002", accessCode: "${CODE}""#)
        let configuration = try #require(printer)
        #expect(!"\(configuration)".contains(Self.accessCode))
        #expect(!"\(configuration.session)".contains(Self.accessCode))
        #expect(Redactor.shared.redact("code \(Self.accessCode)") == "code [redacted]")
    }

    @Test("a certificateSHA256 with or without colons pins the certificate; insecure only when asked")
    func security() throws {
        let hex = String(repeating: "ab", count: 32)
        let colons = stride(from: 0, to: 64, by: 2).map { index in
            String(hex[hex.index(hex.startIndex, offsetBy: index)..<hex.index(hex.startIndex, offsetBy: index + 2)])
        }.joined(separator: ":").uppercased()
        for text in [hex, colons] {
            let (printer, problems) = try read(
                #"host: "h", serial: "S1", accessCode: "${CODE}", certificateSHA256: "\#(text)""#)
            #expect(problems.isEmpty)
            #expect(printer?.security == .pinnedCertificate(try CertificateFingerprint(hex: hex)))
        }
        let (insecure, _) = try read(#"host: "h", serial: "S1", accessCode: "${CODE}", insecure: true"#)
        #expect(insecure?.security == .insecure)
    }

    @Test("the pin's old name, fingerprint, is still read, with a warning to rename it; both names are an error")
    func formerName() throws {
        let hex = String(repeating: "cd", count: 32)
        let config = try ConfigLoader.parse(
            text:
                #"{ sinks: [], sources: [ { name: "p", type: "bambu", host: "h", serial: "S1", accessCode: "x1234567", fingerprint: "\#(hex)" } ] }"#,
            environment: [:])
        let printer = BambuPrinterConfiguration.read(try #require(config.sources.first))
        #expect(config.problems.all.isEmpty)
        #expect(printer?.security == .pinnedCertificate(try CertificateFingerprint(hex: hex)))
        #expect(
            config.problems.warnings == [
                "sources[0].fingerprint: fingerprint is deprecated; rename it to certificateSHA256 (same value)"
            ])
        let (_, problems) = try read(
            #"host: "h", serial: "S1", accessCode: "x1234567", fingerprint: "\#(hex)", certificateSHA256: "\#(hex)""#)
        #expect(problems.contains("sources[0].fingerprint: give certificateSHA256 only (fingerprint is its old name)"))
        let (_, wrongKind) = try read(
            #"host: "h", serial: "S1", accessCode: "x1234567", publicKeySHA256: "sha256//AAAA""#)
        #expect(
            wrongKind.contains { $0.hasPrefix("sources[0].publicKeySHA256: an MQTT connection pins the certificate") })
    }

    @Test(
        "problems name the key and say what to do",
        arguments: [
            (#"serial: "S1", accessCode: "x1234567""#, "sources[0].host: required"),
            (#"host: "h", accessCode: "x1234567""#, "sources[0].serial: required"),
            (#"host: "h", serial: "S1""#, "sources[0].accessCode: required (the 8-character LAN access code"),
            (
                #"host: "h", serial: "S1", accessCode: "x1234567", fingerprint: "12:34""#,
                "openssl s_client -connect h:8883"
            ),
            (
                #"host: "h", serial: "S1", accessCode: "x1234567", certificateSHA256: "\#(String(repeating: "0", count: 64))", insecure: true"#,
                "use either certificateSHA256"
            ),
            (#"host: "h", serial: "S1", accessCode: "x1234567", port: 70000"#, "sources[0].port: 70000 is outside"),
            (#"host: "h", serial: "device/#", accessCode: "x1234567""#, "is not a serial number"),
            (#"host: "h", serial: "S1", accessCode: "x1234567", slug: "bad slug""#, "sources[0].slug"),
            (#"host: "http://h/", serial: "S1", accessCode: "x1234567""#, "not a host name or IP address"),
            (#"host: "h", serial: "S1", accessCode: "x1234567", acessCode: "y""#, "did you mean \"accessCode\"?"),
            (
                #"host: "h", serial: "S1", accessCode: "x1234567", offlineGrace: "2h", offlineTimeout: "1h""#,
                "offlineTimeout"
            ),
            (#"host: "h", serial: "S1", accessCode: "x1234567", layerText: "loud""#, #""details", "state", "off""#),
        ])
    func problems(keys: String, expected: String) throws {
        let (_, problems) = try read(keys)
        #expect(problems.contains { $0.contains(expected) }, "\(problems)")
    }

    @Test("offline timing keys accept durations")
    func offlineTiming() throws {
        let (printer, problems) = try read(
            #"host: "h", serial: "S1", accessCode: "${CODE}", offlineGrace: "90s", offlineTimeout: "2h", slug: "garage", layerText: "state""#
        )
        #expect(problems.isEmpty)
        #expect(printer?.mapper.offlineGrace == 90 && printer?.mapper.offlineTimeout == 7200)
        #expect(printer?.slug == "garage")
        #expect(printer?.mapper.layerText == .state)
    }
}

extension BambuConfigurationTests {
    @Test("examples/bambu.json5 reads without problems")
    func example() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/bambu.json5").standardized.path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let config = try ConfigLoader.parse(
            text: text, environment: ["BAMBU_X1C_ACCESS_CODE": "12345678", "BAMBU_P1S_ACCESS_CODE": "87654321"])
        let printers = config.sources.compactMap(BambuPrinterConfiguration.read)
        // The example holds only sources; the missing sink is the one expected problem.
        #expect(config.problems.all.filter { !$0.path.hasPrefix("sinks") }.isEmpty, "\(config.problems.all)")
        #expect(printers.map(\.slug) == ["bambu-00m09a350100123", "bambu-01p00a000000001"])
    }
}
