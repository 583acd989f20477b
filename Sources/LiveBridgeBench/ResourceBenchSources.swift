import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization

/// The three sources of the resource measurement, each with a small fake of its peer: a SABnzbd
/// API, a Home Assistant REST API (the adapter's poll mode) and a Bambu printer on a real
/// mosquitto broker with TLS. Idle: nothing runs. Busy: a download, a timer and a print progress.
enum ResourceBenchSources {
    static var all: [any ResourceBenchSource] {
        [SABnzbdBenchSource(), HomeAssistantBenchSource(), BambuBenchSource()]
    }
}

/// Shared busy flag and a step counter for a fake.
final class BenchFakeState: Sendable {
    let busy = Mutex(false)
    let step = Mutex(0)
    let server = Mutex<HTTPServer?>(nil)

    func nextStep() -> Int {
        step.withLock { value in
            value += 1
            return value
        }
    }
}

/// A SABnzbd API: an empty queue when idle, a download that moves on every poll when busy.
struct SABnzbdBenchSource: ResourceBenchSource {
    let state = BenchFakeState()

    func start(directory: String) async throws(BenchError) -> JSONValue {
        let state = self.state
        let server: HTTPServer
        do {
            server = try HTTPServer(address: "127.0.0.1:0") { request in
                let mode = request.query["mode"] ?? ""
                if mode == "version" { return .json(Array(#"{"version":"4.5.0"}"#.utf8)) }
                if mode == "history" { return .json(Array(#"{"history":{"slots":[],"noofslots":0}}"#.utf8)) }
                guard state.busy.withLock({ $0 }) else {
                    return .json(Array(#"{"queue":{"status":"Idle","paused":false,"slots":[],"noofslots":0}}"#.utf8))
                }
                let step = state.nextStep()
                let left = max(1, 50_000 - Double(step) * 20)
                let queue: JSONValue = [
                    "queue": [
                        "status": "Downloading", "paused": false, "kbpersec": "20480.00", "mb": "50000.00",
                        "mbleft": .string(String(format: "%.2f", left)), "timeleft": "0:40:00", "noofslots": 1,
                        "slots": [
                            [
                                "nzo_id": "SABnzbd_nzo_bench", "filename": "bench.iso", "status": "Downloading",
                                "mb": "50000.00", "mbleft": .string(String(format: "%.2f", left)),
                                "timeleft": "0:40:00",
                            ]
                        ],
                    ]
                ]
                return .json(JSONWriter.bytes(queue))
            }
        } catch {
            throw BenchError("SABnzbd fake: \(error)")
        }
        state.server.withLock { $0 = server }
        return [
            "name": "sab", "type": "sabnzbd", "url": .string("http://127.0.0.1:\(server.port)"),
            "apiKey": "benchsabkey0123456789", "activeInterval": "1s", "idleInterval": "15s",
        ]
    }

    func setBusy(_ busy: Bool) async { state.busy.withLock { $0 = busy } }

    func stop() async { state.server.withLock { $0 }?.shutdown() }
}

/// A Home Assistant REST API for the adapter's poll mode: an idle timer, or a running one with a
/// progress sensor that climbs.
struct HomeAssistantBenchSource: ResourceBenchSource {
    let state = BenchFakeState()
    let finishesAt = Date().addingTimeInterval(3600).timeIntervalSince1970

    func start(directory: String) async throws(BenchError) -> JSONValue {
        let state = self.state
        let finish = RFC3339.format(finishesAt)
        let server: HTTPServer
        do {
            server = try HTTPServer(address: "127.0.0.1:0") { request in
                let busy = state.busy.withLock { $0 }
                if request.path == "/api/" { return .json(Array(#"{"message":"API running."}"#.utf8)) }
                if request.path.hasSuffix("timer.bench") {
                    let body: JSONValue = [
                        "entity_id": "timer.bench", "state": .string(busy ? "active" : "idle"),
                        "attributes": busy
                            ? ["finishes_at": .string(finish), "duration": "1:00:00", "friendly_name": "Bench"]
                            : ["duration": "1:00:00", "friendly_name": "Bench"],
                        "last_changed": "2026-01-01T00:00:00+00:00", "last_updated": "2026-01-01T00:00:00+00:00",
                    ]
                    return .json(JSONWriter.bytes(body))
                }
                if request.path.hasSuffix("sensor.bench_progress") {
                    let step = busy ? state.nextStep() : 0
                    let body: JSONValue = [
                        "entity_id": "sensor.bench_progress", "state": .string(String(min(99, step / 2))),
                        "attributes": ["unit_of_measurement": "%"],
                        "last_changed": "2026-01-01T00:00:00+00:00", "last_updated": "2026-01-01T00:00:00+00:00",
                    ]
                    return .json(JSONWriter.bytes(body))
                }
                return .json(Array(#"{"message":"Entity not found."}"#.utf8), status: 404)
            }
        } catch {
            throw BenchError("Home Assistant fake: \(error)")
        }
        state.server.withLock { $0 = server }
        return [
            "name": "ha", "type": "homeassistant", "url": .string("http://127.0.0.1:\(server.port)"),
            "token": "benchhatoken0123456789", "mode": "poll", "pollInterval": "1s",
            "entities": [["entity": "timer.bench", "progress": "sensor.bench_progress"]],
        ]
    }

    func setBusy(_ busy: Bool) async { state.busy.withLock { $0 = busy } }

    func stop() async { state.server.withLock { $0 }?.shutdown() }
}

/// A printer: the tests' real mosquitto broker with TLS and a password (`MosquittoBroker`), and a
/// publisher sending a report every second while busy.
final class BambuBenchSource: ResourceBenchSource {
    static let serial = "01P00A00BENCH01"
    private let broker = Mutex<MosquittoBroker?>(nil)
    private let publisher = Mutex<MQTTSession?>(nil)
    private let state = BenchFakeState()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init() {}

    func start(directory: String) async throws(BenchError) -> JSONValue {
        let port: Int
        do {
            let broker = try MosquittoBroker(commonName: Self.serial, users: ["bblp": "12345678"])
            self.broker.withLock { $0 = broker }
            try await broker.start()
            port = broker.port
        } catch {
            throw BenchError("Bambu fake: cannot start mosquitto (\(error)); install it with `make deps`")
        }
        let session: MQTTSession
        do {
            session = try MQTTSession(
                configuration: MQTTSessionConfiguration(
                    host: "127.0.0.1", port: port, clientID: "bench-printer", username: "bblp", password: "12345678",
                    security: .insecure))
            try session.start()
        } catch {
            throw BenchError("Bambu fake: the printer could not connect: \(error)")
        }
        publisher.withLock { $0 = session }
        let state = self.state
        let loop = Task {
            var percent = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard state.busy.withLock({ $0 }) else { continue }
                percent = min(99, percent + 1)
                let report =
                    #"{"print":{"command":"push_status","msg":1,"gcode_state":"RUNNING","mc_percent":\#(percent),"#
                    + #""mc_remaining_time":\#(100 - percent),"layer_num":\#(percent * 3),"total_layer_num":300,"#
                    + #""nozzle_temper":220,"bed_temper":65,"subtask_name":"bench"}}"#
                try? await session.publish(topic: "device/\(Self.serial)/report", text: report)
            }
        }
        task.withLock { $0 = loop }
        return [
            "name": "printer", "type": "bambu", "host": "127.0.0.1", "port": .int(Int64(port)),
            "serial": .string(Self.serial), "accessCode": "12345678", "insecure": true,
        ]
    }

    func setBusy(_ busy: Bool) async { state.busy.withLock { $0 = busy } }

    func stop() async {
        task.withLock { $0 }?.cancel()
        await publisher.withLock { $0 }?.shutdown()
        broker.withLock { $0 }?.remove()
    }
}
