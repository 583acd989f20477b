import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport

/// A preview sink behind a real engine on a virtual clock: the test emits observations and
/// moves time; frames reach the sink at once (`runDue`), and the page is served on a free port.
struct PreviewHarness {
    let clock: VirtualClock
    let sink: PreviewSink
    let engine: ActivityEngine
    let ledger: BudgetLedger

    static func make(start: Double = 1_781_517_600, budget: Int? = nil, title: String? = nil) async throws
        -> PreviewHarness
    {
        let clock = VirtualClock(start: start)
        let sink = PreviewSink(configuration: .init(name: "preview", listen: "127.0.0.1:0", title: title), clock: clock)
        try sink.start()
        let store = MemoryStateStore()
        var settings = EconomySettings()
        settings.monthlyBudget = budget
        settings.endFrames = 2
        let ledger = BudgetLedger(sink: sink.name, limit: budget, store: store)
        let queue = DeliveryQueue(
            sink: sink, clock: clock, logger: .disabled, metrics: MetricsRegistry(), health: .detached(clock: clock),
            ledger: ledger, jitterSeed: 1)
        let engine = ActivityEngine(
            bindings: [.init(sink: sink, queue: queue, ledger: ledger)], settings: settings, clock: clock, store: store,
            logger: .disabled, metrics: MetricsRegistry())
        await engine.start()
        await sink.attach(to: engine)
        return PreviewHarness(clock: clock, sink: sink, engine: engine, ledger: ledger)
    }

    /// Steps time from now to `end` every `interval` seconds, emitting `updates(t)` at each step.
    func run(until end: Double, every interval: Double = 5, _ updates: (Double) -> [ActivityUpdate]) async {
        var t = clock.now
        while t <= end + 1e-9 {
            clock.advance(to: t)
            for update in updates(t) { await engine.emit(update) }
            await engine.runDue()
            // Hundreds of steps back to back would hold a pool thread; let other tests' tasks in.
            await Task.yield()
            t += interval
        }
        clock.advance(to: end)
        await engine.runDue()
    }

    func shutdown() {
        sink.shutdown()
    }

    var url: String { sink.url ?? "http://127.0.0.1:0/" }
}

/// What a test reads back from the page's DOM (as Chromium serialised it).
struct PreviewDOM {
    struct Section {
        var slug: String
        var state: String
        /// The bar's value the page drew (`data-shown`).
        var shown: Double?
        /// `gliding` or `static`.
        var motion: String?
        /// The top-right percentage text.
        var percent: String?
        var html: String
    }

    /// The bridge time the page drew at (`data-now` on the body).
    var now: Double?
    var sections: [Section]

    init(_ html: String) {
        now = Self.attribute("data-now", in: Substring(html)).flatMap(Double.init)
        var sections: [Section] = []
        let marker = "<section class=\"activity"
        var rest = Substring(html)
        while let start = rest.range(of: marker) {
            let afterStart = rest[start.upperBound...]
            let end = afterStart.range(of: marker)?.lowerBound ?? afterStart.endIndex
            let chunk = rest[start.lowerBound..<end]
            sections.append(
                Section(
                    slug: Self.attribute("data-slug", in: chunk) ?? "",
                    state: Self.attribute("data-state", in: chunk) ?? "",
                    shown: Self.attribute("data-shown", in: chunk).flatMap(Double.init),
                    motion: Self.attribute("data-motion", in: chunk),
                    percent: Self.text(after: "class=\"pct\">", in: chunk),
                    html: String(chunk)))
            rest = rest[end...]
        }
        self.sections = sections
    }

    func section(_ slug: String) -> Section? { sections.first { $0.slug == slug } }

    static func attribute(_ name: String, in text: Substring) -> String? {
        guard let range = text.range(of: " \(name)=\"") else { return nil }
        let value = text[range.upperBound...].prefix { $0 != "\"" }
        return String(value)
    }

    static func text(after marker: String, in text: Substring) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "<" })
    }
}

enum PreviewArtifacts {
    /// The package root.
    static var packageRoot: String { Checkout.root.path }

    /// `.build/artifacts/` under the package, created on demand: where screenshots are kept.
    static func directory() throws -> String {
        let path = packageRoot + "/.build/artifacts"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A missing test dependency or an unexpected answer, with what to do about it.
struct PreviewTestError: Error, CustomStringConvertible {
    var description: String
}
