import Foundation
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@testable import LiveBridgeApp

@Suite("preview sink in the registry")
struct PreviewComponentTests {
    func build(_ sinks: String) throws(ConfigError) -> [any Sink] {
        try buildSinks(PreviewSink.descriptor, sinks)
    }

    @Test("reads listen and title, defaults to 127.0.0.1:8787, and binds nothing while being built")
    func readsKeys() throws {
        let sinks = try build(
            """
            { name: "page", type: "preview", listen: "127.0.0.1:0", title: "Home lab" },
            { name: "default", type: "preview" }
            """)
        let page = try #require(sinks.first as? PreviewSink)
        #expect(page.name == "page" && page.type == "preview" && page.displayModel == .interpolating)
        #expect(page.configuration.listen == "127.0.0.1:0" && page.configuration.title == "Home lab")
        let fallback = try #require(sinks.last as? PreviewSink)
        #expect(
            fallback.configuration.listen == "127.0.0.1:8787" && fallback.configuration.title == "LiveBridge preview")
        #expect(page.url == nil && fallback.url == nil)
    }

    @Test("examples/preview.json5 builds a preview sink as documented")
    func example() throws {
        let root = Checkout.root.path
        let text = try String(contentsOfFile: root + "/examples/preview.json5", encoding: .utf8)
        let config = try ConfigLoader.parse(text: text, environment: [:])
        let services = RuntimeServices(
            dataDir: "/tmp/unused", store: MemoryStateStore(), clock: SteppingClock(), logger: .disabled,
            metrics: MetricsRegistry(), health: HealthRegistry(), http: HTTPClient.shared, economy: config.economy)
        let sinks = try ComponentRegistry(sinks: [PreviewSink.descriptor], sources: []).build(
            config, services: services
        )
        .sinks
        let preview = try #require(sinks.first as? PreviewSink)
        #expect(preview.configuration == .init(name: "preview", listen: "127.0.0.1:8787", title: "Home lab"))
    }

    @Test("a bad listen address, an empty title and an unknown key are reported with their paths")
    func reportsProblems() {
        #expect {
            _ = try build(#"{ name: "page", type: "preview", listen: "8787", title: "", lisen: "x" }"#)
        } throws: { error in
            let text = (error as? ConfigError)?.description ?? ""
            return text.contains("sinks[0].listen") && text.contains("host:port") && text.contains("sinks[0].title")
                && text.contains("sinks[0].lisen")
        }
    }

    @Test("startPreviewPages serves each preview sink's page and attaches it to the engine")
    func startsPages() async throws {
        let sinks = try build(#"{ name: "page", type: "preview", listen: "127.0.0.1:0" }"#)
        let clock = VirtualClock()
        let store = MemoryStateStore()
        let bindings = sinks.map { sink in
            let ledger = BudgetLedger(sink: sink.name, limit: 250, store: store)
            return ActivityEngine.Binding(
                sink: sink,
                queue: DeliveryQueue(
                    sink: sink, clock: clock, logger: .disabled, metrics: MetricsRegistry(),
                    health: .detached(clock: clock),
                    ledger: ledger),
                ledger: ledger)
        }
        let engine = ActivityEngine(
            bindings: bindings, settings: EconomySettings(), clock: clock, store: store, logger: .disabled,
            metrics: MetricsRegistry())
        await engine.start()
        let previews = await StandardComponents.startPreviewPages(of: engine, logger: .disabled)
        defer { previews.forEach { $0.shutdown() } }
        let preview = try #require(previews.first)
        let url = try #require(preview.url)
        let response = try await HTTPClient.shared.execute(HTTPRequest(url: url + "api/state", timeout: 10))
        let state = try JSONParser.parse(response.body)
        #expect(state["budget"] == ["used": 0, "limit": 250])
    }
}
