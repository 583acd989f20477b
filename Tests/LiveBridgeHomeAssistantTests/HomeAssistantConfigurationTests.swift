import Foundation
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

@Suite("Home Assistant configuration")
struct HomeAssistantConfigurationTests {
    func read(_ text: String) throws -> (HomeAssistantConfiguration?, [String]) {
        let problems = ConfigProblems()
        let json = try JSON5Parser.parse(text)
        let reader = try #require(ConfigReader.object(json, path: "sources[0]", problems: problems))
        _ = reader.string("name")
        _ = reader.string("type")
        let configuration = HomeAssistantConfiguration.read(reader, name: "home")
        return (configuration, problems.all.map(\.description))
    }

    @Test("a full entry: defaults, sources, labels, colours, tap action, pin")
    func fullEntry() throws {
        let (configuration, problems) = try read(
            """
            { name: "home", type: "homeassistant", url: "https://ha.local:8123/", token: "CANARYtok3n",
              publicKeySHA256: "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", eventType: "lb_update",
              entities: [
                { entity: "timer.washer" },
                { entity: "input_select.washer_state", slug: "washer", name: "Washer",
                  startStates: ["washing", "rinsing"], endStates: ["finished"], failureStates: ["error"],
                  progress: { entity: "sensor.washer_progress", scale: "percent" },
                  remaining: { entity: "sensor.washer_remaining", unit: "min" },
                  stateLabels: { washing: "Washing" }, icon: "mdi:washing-machine", color: "blue",
                  backgroundColor: "#112233", url: "https://ha.local:8123/lovelace/laundry",
                  completionMessage: "Laundry done", priority: 5 },
                { entity: "light.desk", progress: { attribute: "brightness", scale: 255 } },
              ] }
            """)
        #expect(problems.isEmpty, "\(problems)")
        let config = try #require(configuration)
        #expect(config.url == "https://ha.local:8123" && config.webSocketURL == "wss://ha.local:8123/api/websocket")
        #expect(config.mode == .websocket && config.pollInterval == 10 && config.eventType == "lb_update")
        #expect(config.tls.pinnedPublicKey?.hasPrefix("sha256//") == true)
        #expect(config.configPath == "sources[0]")
        let timer = config.entities[0]
        #expect(timer.slug == "ha-timer-washer" && timer.startStates == ["active"] && timer.endStates == ["idle"])
        #expect(timer.pausedStates == ["paused"])
        let washer = config.entities[1]
        #expect(washer.slug == "washer" && washer.failureStates == ["error"] && washer.progressScale == .percent)
        #expect(
            washer.remaining == HomeAssistantValueSource(entity: "sensor.washer_remaining")
                && washer.remainingUnit == "min")
        #expect(washer.stateLabels == ["washing": "Washing"] && washer.accentColor == "blue" && washer.priority == 5)
        #expect(washer.tapURL == "https://ha.local:8123/lovelace/laundry" && washer.completionMessage == "Laundry done")
        #expect(washer.entityIDs == ["input_select.washer_state", "sensor.washer_progress", "sensor.washer_remaining"])
        #expect(config.entities[2].progress == HomeAssistantValueSource(attribute: "brightness"))
        #expect(config.entities[2].progressScale == .maximum(255))
        #expect(Redactor.shared.redact("token CANARYtok3n") == "token [redacted]")
    }

    @Test("mistakes are reported with their path and a hint")
    func mistakes() throws {
        let (configuration, problems) = try read(
            """
            { name: "home", type: "homeassistant", url: "homeassistant.local:8123", mode: "push",
              fingerprint: "AB:CD", entitiez: [],
              entities: [
                { entity: "sensor.washer_state" },
                { entity: "washer", slug: "bad slug!" },
                { entity: "timer.a", slug: "dup", color: "chartreuse", progress: 42, remaining: { unit: "fortnights" } },
                { entity: "timer.b", slug: "dup", startStates: ["unavailable"], progres: "sensor.x" },
              ] }
            """)
        #expect(configuration == nil)
        let text = problems.joined(separator: "\n")
        #expect(text.contains("sources[0].url: \"homeassistant.local:8123\" is not an http(s) URL"))
        #expect(text.contains("sources[0].token: required"))
        #expect(text.contains("sources[0].mode: \"push\" is not one of"))
        #expect(text.contains("sources[0].fingerprint: expected the SPKI pin as sha256//"))
        #expect(text.contains("sources[0].entitiez: unknown key; did you mean \"entities\"?"))
        #expect(text.contains("sources[0].entities[0]: sensor entities have no default start states; set startStates"))
        #expect(text.contains("sources[0].entities[1].entity: \"washer\" is not an entity id"))
        #expect(text.contains("sources[0].entities[1].slug: \"bad slug!\" must match"))
        #expect(text.contains("sources[0].entities[2].color: \"chartreuse\" is not a colour"))
        #expect(text.contains("sources[0].entities[2].progress: expected an entity id or {entity, attribute, scale}"))
        #expect(text.contains("sources[0].entities[2].remaining.unit: \"fortnights\" is not one of"))
        #expect(text.contains("sources[0].entities[2].remaining: give an entity, an attribute, or both"))
        #expect(text.contains("sources[0].entities[3].slug: \"dup\" is already used by sources[0].entities[2]"))
        #expect(text.contains("\"unavailable\" never starts or ends an activity"))
        #expect(text.contains("sources[0].entities[3].progres: unknown key; did you mean \"progress\"?"))
    }

    @Test("examples/homeassistant.json5 is a valid source entry")
    func example() throws {
        let path = Checkout.file("examples/homeassistant.json5").path
        let json = try JSON5Parser.parse(try String(contentsOfFile: path, encoding: .utf8))
        let entry = try #require(json["sources"]?.arrayValue?.first)
        let problems = ConfigProblems()
        let reader = try #require(ConfigReader.object(entry, path: "sources[0]", problems: problems))
        _ = reader.string("name")
        _ = reader.string("type")
        let configuration = HomeAssistantConfiguration.read(reader, name: "home")
        #expect(problems.all.isEmpty, "\(problems.all)")
        #expect(configuration?.entities.map(\.slug) == ["ha-timer-washer", "washer", "printer"])
    }

    @Test("custom events alone (no entities) and poll mode are valid setups")
    func minimal() throws {
        let (configuration, problems) = try read(
            #"{ name: "home", type: "homeassistant", url: "http://127.0.0.1:8123", token: "x", mode: "poll", pollInterval: "30s" }"#
        )
        #expect(problems.isEmpty, "\(problems)")
        #expect(
            configuration?.mode == .poll && configuration?.pollInterval == 30 && configuration?.entities.isEmpty == true
        )
        #expect(configuration?.webSocketURL == "ws://127.0.0.1:8123/api/websocket")
        #expect(configuration?.restURL("/api/states/timer.washer") == "http://127.0.0.1:8123/api/states/timer.washer")
    }
}
