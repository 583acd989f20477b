import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import Testing

@Suite("TLS keys: one reader, unambiguous names, the old name still read")
struct TLSKeysTests {
    /// Reads `keys` as an HTTPS entry's TLS options; the problems and warnings found.
    func read(_ keys: String) throws -> (TLSOptions, [String], [String]) {
        let problems = ConfigProblems()
        let json = try JSON5Parser.parse("{ \(keys) }")
        let reader = try #require(ConfigReader.object(json, path: "sinks[0]", problems: problems))
        let options = TLSOptions.read(reader)
        return (options, problems.all.map(\.description), problems.warnings)
    }

    @Test("publicKeySHA256 pins the server's public key, caFile and insecure as given")
    func newNames() throws {
        let (options, problems, warnings) = try read(
            #"publicKeySHA256: "sha256//AAAA", caFile: "/etc/ca.pem", insecure: true"#)
        #expect(problems.isEmpty && warnings.isEmpty)
        #expect(options == TLSOptions(caFile: "/etc/ca.pem", pinnedPublicKey: "sha256//AAAA", insecure: true))
    }

    @Test("fingerprint is read as publicKeySHA256 with a warning that names the new key")
    func formerName() throws {
        let (options, problems, warnings) = try read(#"fingerprint: "sha256//BBBB""#)
        #expect(problems.isEmpty)
        #expect(options.pinnedPublicKey == "sha256//BBBB")
        #expect(
            warnings == ["sinks[0].fingerprint: fingerprint is deprecated; rename it to publicKeySHA256 (same value)"])
    }

    @Test("both names, a certificate hash, or a pin in the wrong form are problems at their key")
    func mistakes() throws {
        let (_, both, _) = try read(#"fingerprint: "sha256//BBBB", publicKeySHA256: "sha256//BBBB""#)
        #expect(both == ["sinks[0].fingerprint: give publicKeySHA256 only (fingerprint is its old name)"])
        let (_, certificate, _) = try read(#"certificateSHA256: "ab:cd""#)
        #expect(
            certificate.count == 1 && certificate[0].hasPrefix("sinks[0].certificateSHA256: an HTTPS connection pins"))
        let (options, form, _) = try read(#"publicKeySHA256: "AB:CD""#)
        #expect(options.pinnedPublicKey == nil)
        #expect(form.count == 1 && form[0].hasPrefix("sinks[0].publicKeySHA256: expected the SPKI pin as sha256//"))
    }
}
