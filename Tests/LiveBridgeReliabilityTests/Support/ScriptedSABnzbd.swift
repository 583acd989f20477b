import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization

/// A fake SABnzbd on a real loopback socket that answers from a `SABnzbdJobScript` at its
/// clock's time, and that can fail the way a real one does on a network:
///
/// - `goDown()` closes the socket (connections are refused), `comeBack()` listens again on the
///   same port — SABnzbd stopped and started;
/// - `setSilent(true)` accepts connections and reads requests but never answers, never closes
///   (no FIN) — a network that silently drops packets, seen from an HTTP poller: only its
///   timeout can tell.
///
/// It checks the API key as SABnzbd does (403 `API Key Incorrect`, text/html) and counts requests.
final class ScriptedSABnzbd: Sendable {
    struct Request: Sendable {
        var time: Double
        var mode: String
        var keyAccepted: Bool
        var answered: Bool
    }

    private struct State {
        var script: SABnzbdJobScript?
        var silent = false
        var requests: [Request] = []
        var listeners: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextListener: UInt64 = 0
    }

    let apiKey: String
    let clock: any TimeSource
    private let state = Mutex(State())
    private let server = RestartableLoopbackServer()

    init(apiKey: String, clock: any TimeSource, script: SABnzbdJobScript? = nil) throws {
        self.apiKey = apiKey
        self.clock = clock
        state.withLock { $0.script = script }
        try server.start { [weak self] request in
            guard let self else { return .dropConnection }
            return await self.handle(request)
        }
    }

    /// The port, the same across `goDown()`/`comeBack()`.
    var port: UInt16 { server.port }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Replaces the job (nil = idle).
    func setScript(_ script: SABnzbdJobScript?) { state.withLock { $0.script = script } }

    /// Changes the job in place.
    func updateScript(_ change: (inout SABnzbdJobScript) -> Void) {
        state.withLock { state in
            guard var script = state.script else { return }
            change(&script)
            state.script = script
        }
    }

    /// Accept and read, never answer (true), or answer again (false).
    func setSilent(_ silent: Bool) { state.withLock { $0.silent = silent } }

    /// Stops listening: connections are refused.
    func goDown() { server.goDown() }

    /// Listens again on the same port.
    func comeBack() throws { try server.comeBack() }

    /// Stops for good.
    func shutdown() {
        goDown()
        state.withLock { state in
            for listener in state.listeners.values { listener.finish() }
            state.listeners.removeAll()
        }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    /// A stream that ticks after every request (answered or not).
    func ticks() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = continuation
        }
        return stream
    }

    private func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let now = clock.now
        let mode = request.query["mode"] ?? ""
        let accepted = request.query["apikey"] == apiKey
        let (silent, script, listeners) = state.withLock { state in
            state.requests.append(Request(time: now, mode: mode, keyAccepted: accepted, answered: !state.silent))
            return (state.silent, state.script, Array(state.listeners.values))
        }
        for listener in listeners { listener.yield() }
        if silent {
            // Hold the connection open without a byte until the client gives up (the server then
            // cancels this task) or the fake shuts down.
            try? await Task.sleep(nanoseconds: 3_600_000_000_000)
            return .dropConnection
        }
        guard request.path == "/api" else {
            return HTTPServerResponse(
                status: 404, headers: ["Content-Type": "text/html"], body: Array("Not Found".utf8))
        }
        if mode == "version" { return .json(Array(#"{"version": "4.5.0"}"#.utf8)) }
        guard accepted else {
            return HTTPServerResponse(
                status: 403, headers: ["Content-Type": "text/html;charset=utf-8"], body: Array("API Key Incorrect".utf8)
            )
        }
        let job = script ?? SABnzbdJobScript(totalMiB: 1, rateMiBps: 1, start: .infinity)
        switch mode {
        case "queue": return .json(JSONWriter.bytes(job.queueAnswer(at: now)))
        case "history": return .json(JSONWriter.bytes(job.historyAnswer(at: now)))
        default: return .json(Array(#"{"status": false, "error": "not implemented"}"#.utf8))
        }
    }
}
