import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@testable import LiveBridgeApp

@Suite("MQTT sink in the registry")
struct MQTTComponentTests {
    func build(_ sinks: String) throws(ConfigError) -> [any Sink] {
        try buildSinks(MQTTSink.descriptor, sinks)
    }

    @Test("reads every key; retainDevices defaults to 7 days and takes a duration")
    func readsKeys() throws {
        let sinks = try build(
            """
            { name: "ha", type: "mqtt", host: "broker.lan", username: "lb", password: "secret-pass",
              prefix: "lab/livebridge", discovery: true, discoveryPrefix: "ha", displayModel: "interpolating",
              retainDevices: "2d" }
            """)
        let sink = try #require(sinks.first as? MQTTSink)
        let configuration = sink.configuration
        #expect(configuration.session.port == 1883 && configuration.session.username == "lb")
        #expect(configuration.prefix == "lab/livebridge" && configuration.discovery)
        #expect(configuration.discoveryPrefix == "ha" && sink.displayModel == .interpolating)
        #expect(configuration.retainDevices == 2 * 86400)
        let defaults = try #require(try build(#"{ name: "m", type: "mqtt", host: "b" }"#).first as? MQTTSink)
        #expect(defaults.configuration.retainDevices == 7 * 86400 && !defaults.configuration.discovery)
        #expect(
            defaults.configuration.prefix == "livebridge" && defaults.configuration.discoveryPrefix == "homeassistant")
    }

    @Test(
        "bad input names the key and what is expected",
        arguments: [
            (#"retainDevices: "soon""#, "sinks[0].retainDevices: expected a duration"),
            (#"retainDevices: 0"#, "sinks[0].retainDevices: 0 s is outside 1…"),
            (#"prefix: "live/#""#, #"sinks[0].prefix: "live/#" is not a topic prefix"#),
            (#"prefix: """#, #"sinks[0].prefix: "" is not a topic prefix"#),
            (#"discoveryPrefix: "homeassistant/""#, #"sinks[0].discoveryPrefix: "homeassistant/" is not a topic"#),
            (#"discovery: "yes""#, "sinks[0].discovery"),
            (#"retainDevice: "1d""#, #"sinks[0].retainDevice: unknown key; did you mean "retainDevices"?"#),
        ])
    func reportsProblems(_ entry: String, _ message: String) {
        #expect {
            _ = try build(#"{ name: "ha", type: "mqtt", host: "broker.lan", "# + entry + " }")
        } throws: { error in
            let text = (error as? ConfigError)?.description ?? ""
            return text.contains(message)
        }
    }
}
