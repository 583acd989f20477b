import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet

/// One row of the throughput table: a name, a unit and a closure doing the work.
///
/// `body(n)` does n units of work on the calling thread and returns how many it did; a row whose
/// component is not merged yet has no body and shows as pending. Adding a row is adding one
/// `ThroughputCase` to `ThroughputBench.cases`.
struct ThroughputCase: Sendable {
    var name: String
    var unit: String
    var body: (@Sendable (_ iterations: Int) -> Int)?
    /// Why the row is pending, or what one unit is.
    var note: String

    init(_ name: String, unit: String, note: String = "", body: (@Sendable (_ iterations: Int) -> Int)?) {
        self.name = name
        self.unit = unit
        self.note = note
        self.body = body
    }
}

/// Section 4: single-threaded throughput of the hot paths (one core; the median of 5 rounds).
struct ThroughputBench: Sendable {
    /// Seconds each round runs for, roughly.
    var roundSeconds: Double
    var rounds = 5

    struct Row: Sendable {
        var name: String
        var unit: String
        /// Units per second; nil while the row is pending.
        var perSecond: Double?
        var note: String
    }

    static var cases: [ThroughputCase] {
        [
            ThroughputCase(
                "tracker updates (`ActivityTracker.handle`)", unit: "updates/s",
                note: "a running download polled every second; most observations are not pushed",
                body: trackerUpdates),
            ThroughputCase(
                "merge patch diff + apply (`MergePatch`)", unit: "pairs/s",
                note: "a typical generic-template card, three fields changed", body: mergePatches),
            ThroughputCase(
                "JSON parse, typical Home Assistant message (`JSONParser`)", unit: "messages/s",
                note: "a 1.2 KB `state_changed` event", body: jsonParses),
            ThroughputCase(
                "WebSocket frames decoded (`WebSocketDecoder`)", unit: "frames/s",
                note: "200-byte text frames, fed in 64 KiB reads", body: webSocketFrames),
            ThroughputCase(
                "Home Assistant messages parsed and filtered", unit: "messages/s",
                note: "a compressed `subscribe_entities` change decoded and run through the entity mapping",
                body: homeAssistantMessages),
            ThroughputCase(
                "Bambu reports decoded and merged", unit: "reports/s",
                note: "a P1-style delta report decoded and merged into the printer state", body: bambuReports),
        ]
    }

    func run(_ cases: [ThroughputCase] = Self.cases) -> [Row] {
        cases.map { row in
            guard let body = row.body else {
                return Row(name: row.name, unit: row.unit, perSecond: nil, note: row.note)
            }
            return Row(name: row.name, unit: row.unit, perSecond: measure(body), note: row.note)
        }
    }

    /// Calibrates a batch to ~`roundSeconds`, then returns the median rate of `rounds` batches.
    func measure(_ body: @Sendable (Int) -> Int) -> Double {
        var iterations = 16
        while true {
            let seconds = Self.time { _ = body(iterations) }
            if seconds >= roundSeconds / 4 || iterations >= 1 << 30 {
                iterations = max(1, Int(Double(iterations) * roundSeconds / max(seconds, 1e-9)))
                break
            }
            iterations *= 4
        }
        var rates: [Double] = []
        for _ in 0..<rounds {
            var done = 0
            let seconds = Self.time { done = body(iterations) }
            rates.append(Double(done) / max(seconds, 1e-9))
        }
        rates.sort()
        return rates[rates.count / 2]
    }

    static func time(_ work: () -> Void) -> Double {
        let start = ContinuousClock.now
        work()
        return LatencyBench.seconds(ContinuousClock.now - start)
    }

    // MARK: - Workloads

    static let trackerUpdates: @Sendable (Int) -> Int = { iterations in
        let settings = EconomySettings()
        let base = 1_781_517_600.0
        var tracker = ActivityTracker(slug: "download", model: .interpolating, settings: settings)
        var step = 0
        for index in 0..<iterations {
            if step == 7200 {
                tracker = ActivityTracker(slug: "download", model: .interpolating, settings: settings)
                step = 0
            }
            let progress = Double(step) / 7200
            let update = ActivityUpdate(
                slug: "download", name: "SABnzbd", phase: .active,
                content: GenericContent(state: "Downloading", icon: "arrow.down.circle", subtitle: "Linux.ISO"),
                progress: progress, eta: .remaining(Double(7200 - step) * (1 + 0.05 * Double(index % 7 - 3) / 3)),
                observedAt: base + Double(step))
            _ = tracker.handle(update, at: base + Double(step))
            step += 1
        }
        return iterations
    }

    static let mergePatches: @Sendable (Int) -> Int = { iterations in
        let before: JSONValue = [
            "template": "generic", "state": "Downloading", "icon": "arrow.down.circle",
            "subtitle": "Linux.ISO · 10 MB/s",
            "progress": 0.4213, "end_date": 1_781_521_200, "live_progress": true, "accent_color": "blue",
        ]
        let after: JSONValue = [
            "template": "generic", "state": "Downloading", "icon": "arrow.down.circle",
            "subtitle": "Linux.ISO · 12 MB/s",
            "progress": 0.4587, "end_date": 1_781_521_080, "live_progress": true, "accent_color": "blue",
        ]
        var total = 0
        for _ in 0..<iterations {
            let patch = MergePatch.diff(from: before, to: after)
            let applied = MergePatch.apply(patch, to: before)
            total &+= applied.objectValue?.count ?? 0
        }
        return total > 0 ? iterations : 0
    }

    /// A Home Assistant `state_changed` event as the WebSocket API sends it (shape of a real
    /// 2024.3 message; ids are made up).
    static let homeAssistantMessage: [UInt8] = Array(
        (#"{"id":1,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"timer.washer","#
            + #""old_state":{"entity_id":"timer.washer","state":"idle","attributes":{"duration":"0:30:00","#
            + #""editable":false,"icon":"mdi:washing-machine","friendly_name":"Washer"},"#
            + #""last_changed":"2026-06-15T10:00:00.000000+00:00","#
            + #""last_updated":"2026-06-15T10:00:00.000000+00:00","context":{"id":"01J0000000000000000000000A","#
            + #""parent_id":null,"user_id":"0123456789abcdef0123456789abcdef"}},"#
            + #""new_state":{"entity_id":"timer.washer","state":"active","attributes":{"duration":"0:30:00","#
            + #""editable":false,"finishes_at":"2026-06-15T10:30:01+00:00","remaining":"0:30:00","#
            + #""icon":"mdi:washing-machine","friendly_name":"Washer"},"#
            + #""last_changed":"2026-06-15T10:00:01.000000+00:00","#
            + #""last_updated":"2026-06-15T10:00:01.000000+00:00","context":{"id":"01J0000000000000000000000B","#
            + #""parent_id":null,"user_id":"0123456789abcdef0123456789abcdef"}}},"origin":"LOCAL","#
            + #""time_fired":"2026-06-15T10:00:01.000000+00:00","context":{"id":"01J0000000000000000000000B","#
            + #""parent_id":null,"user_id":"0123456789abcdef0123456789abcdef"}}}"#).utf8)

    static let jsonParses: @Sendable (Int) -> Int = { iterations in
        let message = homeAssistantMessage
        var parsed = 0
        for _ in 0..<iterations {
            if let value = try? JSONParser.parse(message), value["type"] != nil { parsed += 1 }
        }
        return parsed
    }

    static let webSocketStream: [UInt8] = {
        var stream: [UInt8] = []
        for index in 0..<1000 {
            var text =
                #"{"id":\#(index),"type":"event","event":{"c":{"sensor.printer_progress":"#
                + #"{"+":{"s":"\#(index % 100)"}}}}}"#
            while text.utf8.count < 200 { text += " " }
            stream += WebSocketFrameEncoder.encodeServerFrame(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
        }
        return stream
    }()

    static let webSocketFrames: @Sendable (Int) -> Int = { iterations in
        let stream = webSocketStream
        var decoded = 0
        var decoder = WebSocketDecoder(role: .client)
        while decoded < iterations {
            stream.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 65_536)
                    decoder.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                    while let event = try? decoder.next() {
                        if case .message = event { decoded += 1 }
                    }
                }
            }
        }
        return decoded
    }
}
