public import LiveBridgeCore
public import LiveBridgeNet
import Synchronization

/// A local web page that draws every activity the way the phone would (`type: "preview"`).
///
/// It is a sink like PushWard, with the same interpolating display model, so its tracker pushes
/// exactly what PushWard's would and the page shows exactly what a phone would show: the stored
/// content after each merge patch, the glide between pushes, the push log and what the economy
/// saved. It can run alone (no account needed) or beside real sinks.
///
/// The page is served by LiveBridge's `HTTPServer` on `listen` once `start()` is called (or at
/// the first delivered frame); building the sink binds nothing, so `livebridge check` works
/// while the bridge runs. Skip counts and the budget come from the engine via `attach(to:)`.
public final class PreviewSink: Sink {
    /// Settings from the sink's config entry.
    public struct Configuration: Sendable, Hashable {
        /// The sink's configured name.
        public var name: String
        /// `host:port` to serve the page on; `127.0.0.1:0` picks a free port (tests).
        public var listen: String
        /// Heading of the page.
        public var title: String

        /// Settings; `title` nil means "LiveBridge preview".
        public init(name: String = "preview", listen: String = PreviewSink.defaultListen, title: String? = nil) {
            self.name = name
            self.listen = listen
            self.title = title ?? "LiveBridge preview"
        }
    }

    /// Where the page is served unless the config says otherwise.
    public static let defaultListen = "127.0.0.1:8787"

    private enum ServerState {
        case idle
        case running(HTTPServer)
        case failed(String)
        case stopped
    }

    /// The settings the sink was built with.
    public let configuration: Configuration
    /// The configured name.
    public var name: String { configuration.name }
    /// Always `preview`.
    public var type: String { "preview" }
    /// Interpolating, like PushWard: the page shows what the phone shows.
    public var displayModel: DisplayModel { .interpolating }

    private let clock: any TimeSource
    private let logger: Logger
    private let page: [UInt8]
    private let board = Mutex(PreviewBoard())
    private let server = Mutex(ServerState.idle)
    private let ledger = Mutex<BudgetLedger?>(nil)

    /// A preview sink; nothing listens until `start()`.
    public init(configuration: Configuration, clock: any TimeSource = SystemClock(), logger: Logger = .disabled) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        page = Array(PreviewPage.html(title: configuration.title).utf8)
    }

    // MARK: - Sink

    /// Applies the frame to the page's model as PushWard applies a PATCH; never fails.
    public func deliver(_ frame: ActivityFrame) async throws(SinkError) -> DeliveryReceipt {
        startIfNeeded()
        let now = clock.now
        board.withLock { $0.apply(frame, at: now) }
        return DeliveryReceipt(requests: 1, appliedAt: now)
    }

    /// Says where the page will be; the port is bound only while the bridge runs.
    public func probe() async -> ProbeResult {
        if let url {
            return ProbeResult(ok: true, detail: "preview page at \(url)")
        }
        return ProbeResult(
            ok: true, detail: "serves the preview page at http://\(configuration.listen)/ while livebridge runs")
    }

    // MARK: - Serving the page

    /// Starts serving the page (idempotent) and returns its URL.
    @discardableResult
    public func start() throws(PreviewSinkError) -> String {
        let result: Result<String, PreviewSinkError> = server.withLock { state in
            switch state {
            case .running(let server):
                return .success("http://\(server.address)/")
            case .stopped:
                return .failure(PreviewSinkError(sink: name, message: "the preview server was shut down"))
            case .idle, .failed:
                do throws(HTTPServerError) {
                    let server = try HTTPServer(address: configuration.listen, logger: logger) { [weak self] request in
                        guard let self else { return .text("the preview has stopped\n", status: 503) }
                        return self.handle(request)
                    }
                    state = .running(server)
                    return .success("http://\(server.address)/")
                } catch {
                    state = .failed(error.message)
                    return .failure(
                        PreviewSinkError(
                            sink: name,
                            message: "cannot serve the page: \(error.message) (set listen, e.g. \"127.0.0.1:8788\")"))
                }
            }
        }
        return try result.get()
    }

    /// Stops serving the page (idempotent); frames are still accepted.
    public func shutdown() {
        let running = server.withLock { state -> HTTPServer? in
            defer { state = .stopped }
            if case .running(let server) = state { return server }
            return nil
        }
        running?.shutdown()
    }

    /// The page's URL while it is served.
    public var url: String? {
        server.withLock { state in
            if case .running(let server) = state { return "http://\(server.address)/" }
            return nil
        }
    }

    /// The port the page is served on (the system's choice for `:0`), while served.
    public var port: UInt16? {
        server.withLock { state in
            if case .running(let server) = state { return server.port }
            return nil
        }
    }

    private func startIfNeeded() {
        let idle = server.withLock { state in
            if case .idle = state { return true }
            return false
        }
        guard idle else { return }
        do {
            let url = try start()
            logger.info("preview page", ["sink": name, "url": url])
        } catch {
            logger.error("preview page unavailable", ["sink": name, "error": error.message])
        }
    }

    // MARK: - Engine feedback

    /// Follows `engine`: counts the economy's skips and invalid frames for this sink, and shows
    /// the budget this sink's ledger counts. Call once after building the engine.
    public func attach(to engine: ActivityEngine) async {
        if let binding = engine.bindings.first(where: { ($0.sink as? PreviewSink) === self }) {
            countBudget(with: binding.ledger)
        }
        await engine.addListener { [weak self] event in self?.observe(event) }
    }

    /// Takes one engine decision; events of other sinks are ignored.
    public func observe(_ event: EngineEvent) {
        guard event.sink == name else { return }
        switch event.kind {
        case .skipped(let slug):
            noteSkipped(slug: slug)
        case .invalid(let slug, let problems):
            board.withLock { $0.noteInvalid(slug: slug, problems: problems, at: event.time) }
        case .pushed:
            break  // counted when delivered, at the time the service would apply it
        }
    }

    /// Counts one observation of `slug` the push economy decided not to push.
    public func noteSkipped(slug: String) {
        board.withLock { $0.noteSkipped(slug: slug) }
    }

    /// Shows `ledger`'s monthly count (and limit) on the page.
    public func countBudget(with ledger: BudgetLedger) {
        self.ledger.withLock { $0 = ledger }
    }

    // MARK: - State

    /// A copy of the page's model.
    public var currentBoard: PreviewBoard { board.withLock { $0 } }

    /// The `GET /api/state` document now.
    public func snapshot() -> JSONValue {
        let now = clock.now
        let budget = ledger.withLock { $0 }.map { PreviewBudget(used: $0.used(at: now), limit: $0.limit) }
        var json = board.withLock { $0.json(now: now, title: configuration.title, sink: name, budget: budget) }
        // A sped-up clock (the demo): the page advances its own time at the same rate.
        if let scaled = clock as? ScaledClock { json["rate"] = .number(scaled.rate) }
        return json
    }

    /// Answers one request: `GET /` the page, `GET /api/state` the JSON snapshot.
    public func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPServerResponse.text("405 Method Not Allowed: the preview is read-only\n", status: 405)
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        var response: HTTPServerResponse
        switch request.path {
        case "/", "/index.html":
            response = HTTPServerResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
            response.headers.add(
                name: "Content-Security-Policy",
                value: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                    + "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'")
        case "/api/state":
            response = .json(JSONWriter.bytes(snapshot()))
        case "/favicon.ico":
            response = HTTPServerResponse(status: 204)
        default:
            response = .text("404 Not Found: the preview page is at /, its data at /api/state\n", status: 404)
        }
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}

/// The preview page could not be served.
public struct PreviewSinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sink's name.
    public var sink: String
    /// What happened and what to do.
    public var message: String

    /// An error of sink `sink`.
    public init(sink: String, message: String) {
        self.sink = sink
        self.message = message
    }

    /// `preview sink "name": message`.
    public var description: String { "preview sink \"\(sink)\": \(message)" }
}
