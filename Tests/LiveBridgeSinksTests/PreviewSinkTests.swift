import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

@Suite("Preview sink: serving the page and following the engine")
struct PreviewSinkTests {
    func get(_ url: String, method: String = "GET") async throws -> HTTPResponse {
        try await HTTPClient.shared.execute(HTTPRequest(method: method, url: url, timeout: 10))
    }

    func seed(_ slug: String, progress: Double = 0.25) -> ActivityFrame {
        let content: JSONValue = [
            "template": "generic", "progress": .double(progress), "state": "Downloading", "end_date": 1_781_518_200,
            "live_progress": true,
        ]
        return ActivityFrame(
            slug: slug, name: slug, kind: .seed, activityState: "ongoing", patch: content, content: content, time: 0,
            reason: .start, sequence: 1)
    }

    @Test("GET / serves the self-contained page; GET /api/state the model; other paths and methods are refused")
    func routes() async throws {
        let clock = VirtualClock()
        let sink = PreviewSink(
            configuration: .init(name: "lab", listen: "127.0.0.1:0", title: "Lab <preview>"), clock: clock)
        let url = try sink.start()
        defer { sink.shutdown() }
        #expect(sink.type == "preview" && sink.displayModel == .interpolating)

        let page = try await get(url)
        #expect(page.status == 200 && page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        #expect(page.headers.first(name: "Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(page.headers.first(name: "Cache-Control") == "no-store")
        #expect(page.text.contains("<title>Lab &lt;preview&gt;</title>"))
        #expect(page.text.contains(PreviewPage.interpolationFunction))
        // Nothing is loaded from elsewhere: no CDN, no external scripts, styles, fonts or images.
        for external in ["src=\"http", "href=\"http", "@import", "url(http", "url(//", "src=\"//"] {
            #expect(!page.text.contains(external), "the page references \(external)")
        }

        _ = try await sink.deliver(seed("job"))
        let state = try await get(url + "api/state")
        #expect(state.status == 200 && state.headers.first(name: "Content-Type") == "application/json")
        let json = try JSONParser.parse(state.body)
        #expect(json["title"] == "Lab <preview>" && json["sink"] == "lab")
        #expect(json["now"]?.doubleValue == clock.now)
        let activity = try #require(json["activities"]?.arrayValue?.first)
        #expect(activity["slug"] == "job" && activity["anchorTime"]?.doubleValue == clock.now)
        #expect(activity["content"]?["live_progress"] == true)

        #expect(try await get(url + "nope").status == 404)
        #expect(try await get(url, method: "POST").status == 405)
        #expect(try await get(url + "favicon.ico").status == 204)
        #expect(try await get(url, method: "HEAD").status == 200)
    }

    @Test("start is idempotent, a busy port is a clear error, shutdown stops serving")
    func lifecycle() async throws {
        let first = PreviewSink(configuration: .init(listen: "127.0.0.1:0"))
        let url = try first.start()
        #expect(try first.start() == url)
        let port = try #require(first.port)
        let second = PreviewSink(configuration: .init(name: "other", listen: "127.0.0.1:\(port)"))
        #expect {
            try second.start()
        } throws: { error in
            let description = (error as? PreviewSinkError)?.description ?? ""
            return description.contains("preview sink \"other\"") && description.contains("in use")
                && description.contains("listen")
        }
        #expect(await first.probe().detail.contains(url))
        first.shutdown()
        first.shutdown()
        #expect(first.url == nil)
        await #expect(throws: HTTPClientError.self) { _ = try await get(url) }
        #expect(throws: PreviewSinkError.self) { try first.start() }
        #expect(await second.probe().detail.contains("while livebridge runs"))
    }

    @Test("the page is served from the first delivered frame even if nobody called start")
    func startsOnFirstFrame() async throws {
        let sink = PreviewSink(configuration: .init(listen: "127.0.0.1:0"))
        defer { sink.shutdown() }
        #expect(sink.url == nil)
        let receipt = try await sink.deliver(seed("job"))
        #expect(receipt.requests == 1)
        let url = try #require(sink.url)
        #expect(try await get(url + "api/state").status == 200)
    }

    @Test("attached to an engine, it counts every skip the engine reports and shows the sink's budget")
    func followsEngine() async throws {
        let harness = try await PreviewHarness.make(budget: 250)
        defer { harness.shutdown() }
        let skips = Mutex(0)
        await harness.engine.addListener { event in
            if event.sink == "preview", case .skipped = event.kind { skips.withLock { $0 += 1 } }
        }
        let start = harness.clock.now
        await harness.run(until: start + 600, every: 5) { t in
            let progress = 0.1 + (t - start) / 1200
            return [
                ActivityUpdate(
                    slug: "job", name: "Job", phase: .active, content: GenericContent(state: "Working"),
                    progress: progress, eta: .remaining((1 - progress) * 1200), observedAt: t)
            ]
        }
        let board = harness.sink.currentBoard
        let engineSkips = skips.withLock { $0 }
        #expect(engineSkips > 100)
        #expect(board.skipped == engineSkips && board.activity("job")?.skipped == engineSkips)
        let snapshot = harness.sink.snapshot()
        #expect(snapshot["budget"]?["limit"] == 250)
        #expect(snapshot["budget"]?["used"]?.intValue == board.pushes)
        #expect(board.pushes >= 1 && board.pushes < 10)
    }

    @Test("events of other sinks are ignored; invalid frames show in the activity's log")
    func observeFilters() async throws {
        let clock = VirtualClock()
        let store = MemoryStateStore()
        let preview = PreviewSink(configuration: .init(name: "preview", listen: "127.0.0.1:0"), clock: clock)
        let other = PreviewSink(configuration: .init(name: "other", listen: "127.0.0.1:0"), clock: clock)
        defer {
            preview.shutdown()
            other.shutdown()
        }
        let bindings = [preview, other].map { sink in
            let ledger = BudgetLedger(sink: sink.name, limit: nil, store: store)
            return ActivityEngine.Binding(
                sink: sink,
                queue: DeliveryQueue(
                    sink: sink, clock: clock, logger: .disabled, metrics: MetricsRegistry(),
                    health: .detached(clock: clock), ledger: ledger),
                ledger: ledger)
        }
        // The job has no estimate: its seed must not wait for one here (`startWait`).
        var settings = EconomySettings()
        settings.startWait = 0
        let engine = ActivityEngine(
            bindings: bindings, settings: settings, clock: clock, store: store, logger: .disabled,
            metrics: MetricsRegistry())
        await engine.start()
        await preview.attach(to: engine)
        func update(_ state: String) -> ActivityUpdate {
            ActivityUpdate(
                slug: "job", name: "Job", phase: .active, content: GenericContent(state: state), progress: 0.5,
                observedAt: clock.now)
        }
        await engine.emit(update("Working"))
        await engine.runDue()
        clock.advance(by: 5)
        await engine.emit(update("Working"))  // skipped on both sinks
        await engine.emit(update(String(repeating: "x", count: 300)))  // fails validation on both
        await engine.runDue()
        let board = preview.currentBoard
        #expect(board.skipped == 1 && board.invalid == 1 && board.pushes == 1)
        let entry = try #require(board.activity("job")?.log.last)
        guard case .invalid(let problems) = entry.event else {
            Issue.record("expected an invalid entry, got \(entry.event)")
            return
        }
        #expect(problems.joined().contains("state"))
        // The unattached sink saw the same decisions but counted none of them.
        #expect(other.currentBoard.skipped == 0 && other.currentBoard.invalid == 0 && other.currentBoard.pushes == 1)
    }
}
