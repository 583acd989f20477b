import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A fake SABnzbd on a real socket that replays a recording by (virtual) time: a poll at
/// `start + s` gets the recorded answers of the last poll made at most `s` seconds into the
/// recording. It checks the API key as SABnzbd does (403 `API Key Incorrect`, text/html),
/// honours `limit`, logs every request and can answer with injected faults.
final class FakeSABnzbd: Sendable {
    /// A canned bad answer.
    enum Fault: Sendable {
        case answer(status: Int, contentType: String, body: String)
        /// Answer after this many real seconds (for client timeouts).
        case delay(Double)
        case drop
    }

    struct Request: Sendable {
        var time: Double
        var mode: String
        var limit: Int?
        var keyAccepted: Bool
        var rawQuery: String
    }

    private struct Record: Sendable {
        var offset: Double
        var queue: JSONValue
        var history: JSONValue
    }

    private struct State {
        var records: [Record]
        var faultsByRequest: [Int: Fault] = [:]
        var sticky: Fault?
        var requests: [Request] = []
        var listeners: [AsyncStream<Void>.Continuation] = []
    }

    let apiKey: String
    let clock: any TimeSource
    let start: Double
    private let state: Mutex<State>
    private let server = Mutex<HTTPServer?>(nil)

    /// Replays `lines` (the recordings' `raw.jsonl` format) with its first line at `start`.
    init(lines: [String], clock: any TimeSource, start: Double, apiKey: String = "0123456789abcdef0123456789abcdef")
        throws
    {
        var records: [Record] = []
        var first: Double?
        for line in lines {
            let json = try JSONParser.parse(line)
            let t = json["t"]?.doubleValue ?? 0
            if first == nil { first = t }
            records.append(
                Record(
                    offset: t - (first ?? t), queue: json["queue"] ?? .null,
                    history: json["history"] ?? ["history": ["slots": [], "ppslots": 0, "noofslots": 0]]))
        }
        self.apiKey = apiKey
        self.clock = clock
        self.start = start
        state = Mutex(State(records: records))
        let created = try HTTPServer(address: "127.0.0.1:0") { [weak self] request in
            guard let self else { return .dropConnection }
            return await self.handle(request)
        }
        server.withLock { $0 = created }
    }

    /// An empty, idle SABnzbd 4.5.
    convenience init(emptyWith clock: any TimeSource, start: Double) throws {
        let line =
            #"{"t": 0, "queue": {"queue": {"version": "4.5.0", "paused": false, "status": "Idle", "kbpersec": "0.00", "#
            + #""mb": "0.00", "mbleft": "0.00", "timeleft": "0:00:00", "noofslots_total": 0, "noofslots": 0, "#
            + #""slots": []}}, "history": {"history": {"slots": [], "ppslots": 0, "noofslots": 0}}}"#
        try self.init(lines: [line], clock: clock, start: start)
    }

    var port: UInt16 { server.withLock { $0?.port ?? 0 } }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    func shutdown() { server.withLock { $0?.shutdown() } }

    /// Answers the `n`-th request (0-based, any mode) with `fault`.
    func inject(_ fault: Fault, atRequest index: Int) { state.withLock { $0.faultsByRequest[index] = fault } }

    /// Answers every request with `fault` until cleared with nil.
    func answerEverything(with fault: Fault?) { state.withLock { $0.sticky = fault } }

    var requests: [Request] { state.withLock { $0.requests } }

    /// A stream that ticks after every request.
    func requestTicks() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.listeners.append(continuation) }
        return stream
    }

    private func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let now = clock.now
        let mode = request.query["mode"] ?? ""
        let limit = request.query["limit"].flatMap { Int($0) }
        let accepted = request.query["apikey"] == apiKey
        let query = request.target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let (fault, record, listeners) = state.withLock {
            state -> (Fault?, Record?, [AsyncStream<Void>.Continuation]) in
            let index = state.requests.count
            state.requests.append(
                Request(time: now, mode: mode, limit: limit, keyAccepted: accepted, rawQuery: query))
            let elapsed = now - start
            let record = state.records.last { $0.offset <= elapsed + 0.25 } ?? state.records.first
            return (state.faultsByRequest.removeValue(forKey: index) ?? state.sticky, record, state.listeners)
        }
        defer { for listener in listeners { listener.yield() } }
        switch fault {
        case .answer(let status, let contentType, let body)?:
            return HTTPServerResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
        case .delay(let seconds)?:
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        case .drop?:
            return .dropConnection
        case nil:
            break
        }
        guard request.path == "/api" || request.path == "/sabnzbd/api" else {
            return HTTPServerResponse(
                status: 404, headers: ["Content-Type": "text/html"], body: Array("Not Found".utf8))
        }
        if mode == "version" { return .json(Array(#"{"version": "4.5.0"}"#.utf8)) }
        guard accepted else {
            return HTTPServerResponse(
                status: 403, headers: ["Content-Type": "text/html;charset=utf-8"], body: Array("API Key Incorrect".utf8)
            )
        }
        guard let record else { return .json(Array(#"{"status": false, "error": "no data"}"#.utf8)) }
        switch mode {
        case "queue":
            return .json(JSONWriter.bytes(Self.limited(record.queue, key: "queue", limit: limit)))
        case "history":
            return .json(JSONWriter.bytes(Self.limited(record.history, key: "history", limit: limit)))
        default:
            return .json(Array(#"{"status": false, "error": "not implemented"}"#.utf8))
        }
    }

    /// The answer with at most `limit` slots (`noofslots_total` still counts them all).
    private static func limited(_ answer: JSONValue, key: String, limit: Int?) -> JSONValue {
        guard let limit, limit > 0, var inner = answer[key]?.objectValue, let slots = inner["slots"]?.arrayValue else {
            return answer
        }
        inner["slots"] = .array(Array(slots.prefix(limit)))
        return [key: .object(inner)]
    }
}
