import LiveBridgeCore
import LiveBridgeNet
import Testing

@Suite("MQTT session configuration")
struct MQTTConfigurationTests {
    static func valid() -> MQTTSessionConfiguration {
        MQTTSessionConfiguration(
            host: "192.168.1.50", port: 8883, clientID: "livebridge-test", username: "bblp",
            password: "Canary-31337", security: .trustOnFirstUse(identity: "bambu-01p00a"),
            subscriptions: [MQTTSubscription("device/01P00A/report")])
    }

    @Test("the password never appears in description, dump or errors")
    func passwordIsNeverShown() throws {
        let configuration = Self.valid()
        #expect(!configuration.description.contains("Canary-31337"))
        #expect(configuration.description.contains("password=[redacted]"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("Canary-31337"))
        var broken = configuration
        broken.port = 0
        do {
            try broken.validate()
            Issue.record("expected a validation error")
        } catch {
            #expect(!error.message.contains("Canary-31337"))
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test(
        "invalid fields are refused with a message naming the field",
        arguments: ["port", "keepalive", "host", "topic filter", "user name", "CA file"])
    func validation(field: String) {
        var configuration = Self.valid()
        switch field {
        case "port": configuration.port = 70000
        case "keepalive": configuration.keepAlive = 1
        case "host": configuration.host = ""
        case "topic filter": configuration.subscriptions = [MQTTSubscription("a/#/b")]
        case "user name": configuration.username = nil
        default: configuration.security = .certificateAuthority(caFile: "/nonexistent/ca.pem", verifyHostname: true)
        }
        do {
            try configuration.validate()
            Issue.record("\(field): expected a validation error")
        } catch {
            #expect(error.code == .invalidConfiguration)
            let keyword = field == "user name" ? "user name" : field.split(separator: " ").last.map(String.init)!
            #expect(error.message.lowercased().contains(keyword.lowercased()), "\(error.message)")
        }
    }

    @Test("topic names and filters follow MQTT 3.1.1")
    func topicRules() {
        #expect(MQTTTopic.isValidName("device/01P00A/request"))
        #expect(!MQTTTopic.isValidName("device/+/request"))
        #expect(!MQTTTopic.isValidName(""))
        #expect(MQTTTopic.isValidFilter("device/+/report"))
        #expect(MQTTTopic.isValidFilter("#"))
        #expect(MQTTTopic.isValidFilter("device/#"))
        #expect(!MQTTTopic.isValidFilter("device/#/x"))
        #expect(!MQTTTopic.isValidFilter("device/a+"))
    }

    @Test("trust-on-first-use without a state store is refused at init")
    func trustOnFirstUseNeedsAStore() {
        #expect(throws: MQTTSessionError.self) { _ = try MQTTSession(configuration: Self.valid()) }
    }

    @Test("unique client ids differ and keep the prefix")
    func uniqueClientIDs() {
        let a = MQTTSessionConfiguration.uniqueClientID(prefix: "livebridge-01p00a")
        let b = MQTTSessionConfiguration.uniqueClientID(prefix: "livebridge-01p00a")
        #expect(a != b)
        #expect(a.hasPrefix("livebridge-01p00a-") && a.count == "livebridge-01p00a-".count + 8)
    }
}
