import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@testable import LiveBridgeApp

@Suite("notify on PushWard sinks and sources: config")
struct NotificationConfigTests {
    func build(_ text: String) throws(ConfigError) -> [any Sink] {
        let config = try ConfigLoader.parse(text: text, environment: [:])
        let services = RuntimeServices(
            dataDir: config.dataDir, store: MemoryStateStore(), clock: SteppingClock(), logger: .disabled,
            metrics: MetricsRegistry(), health: HealthRegistry(), http: HTTPClient.shared, economy: config.economy)
        return try ComponentRegistry.standard.build(config, services: services).sinks
    }

    static func config(sink: String, source: String = "") -> String {
        """
        { dataDir: "/tmp/unused",
          sinks: [ { name: "phone", type: "pushward", apiKey: "hlk_0123456789abcdefghij0123456789ab"\(sink) } ],
          sources: [ { name: "home", type: "sabnzbd", url: "http://127.0.0.1:8080", apiKey: "0123456789abcdef"\(source) } ] }
        """
    }

    @Test("the sink's notify and a source's own are read; without notify nothing notifies")
    func reads() throws {
        let sinks = try build(
            Self.config(
                sink: #", notify: { on: ["failure", "cancelled"], level: "time-sensitive" }"#,
                source: #", notify: { on: "success" }"#))
        let sink = try #require(sinks.first as? PushWardSink)
        #expect(sink.configuration.notify == NotificationRule(on: [.failure, .cancelled], level: .timeSensitive))
        #expect(
            sink.configuration.sources["home"]
                == NotificationSource(type: "sabnzbd", rule: NotificationRule(on: [.success], level: .active)))
        let plain = try #require(try build(Self.config(sink: "")).first as? PushWardSink)
        #expect(plain.configuration.notify == nil)
        #expect(plain.configuration.sources["home"] == NotificationSource(type: "sabnzbd"))
    }

    @Test(
        "bad notify keys are clear errors at their paths",
        arguments: [
            (
                #", notify: { on: ["failed"] }"#, "",
                #"sinks[0].notify.on: "failed" is not one of "success", "failure", "cancelled""#
            ),
            (#", notify: { level: "loud" }"#, "", #"sinks[0].notify.level: "loud" is not one of "passive", "active""#),
            (#", notify: { on: ["failure"], when: "always" }"#, "", "sinks[0].notify.when: unknown key"),
            (#", notify: "failure""#, "", "sinks[0].notify: expected an object"),
            ("", #", notify: { on: [1] }"#, "sources[0].notify.on[0]: expected a string"),
            (", maxOngoing: 0", "", "sinks[0].maxOngoing: 0 is outside 1…50"),
            (#", maxOngoing: "five""#, "", "sinks[0].maxOngoing: expected a whole number"),
        ])
    func badInput(sink: String, source: String, message: String) {
        do {
            _ = try build(Self.config(sink: sink, source: source))
            Issue.record("accepted \(sink)\(source)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }
}
