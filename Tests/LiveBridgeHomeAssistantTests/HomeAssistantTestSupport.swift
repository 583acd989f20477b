import Foundation
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeTestSupport
import Synchronization

/// The recorded transcripts and replays under `Fixtures/`.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")
    /// `bench/recordings/homeassistant` of this checkout: the recordings the bench replays too.
    /// `name` under `Fixtures/` when it is there, else under `bench/recordings/homeassistant/`.
    static func url(_ name: String) -> URL { Checkout.recording(name, fixtures: directory, source: "homeassistant") }

    /// The file's lines.
    static func lines(_ name: String) throws -> [String] {
        let data = try Data(contentsOf: url(name))
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The parsed records of a `{"dir", "t", "msg"}` transcript.
    static func records(_ name: String) throws -> [JSONValue] {
        try lines(name).map { try JSONParser.parse($0) }
    }

    /// The `msg` of every `in` record.
    static func inbound(_ name: String) throws -> [JSONValue] {
        try records(name).filter { $0["dir"] == "in" }.compactMap { $0["msg"] }
    }
}

/// An adapter context that collects what the adapter emits, with its health and logs.
final class AdapterHarness: Sendable {
    let updates = WebSocketTestMailbox<ActivityUpdate>(label: "an activity update")
    let all = Mutex<[ActivityUpdate]>([])
    let health = HealthRegistry()
    let metrics = MetricsRegistry()
    let logs = InMemoryLogHandler()
    let clock: any TimeSource

    init(clock: any TimeSource = SystemClock()) {
        self.clock = clock
    }

    var context: AdapterContext {
        AdapterContext(
            name: "home",
            emit: { [self] update in
                all.withLock { $0.append(update) }
                updates.put(update)
            },
            logger: Logger(label: "test", level: .debug, handler: logs), clock: clock, store: MemoryStateStore(),
            health: health.reporter(kind: "source", name: "home", type: "homeassistant", clock: clock),
            metrics: metrics)
    }

    /// The source's health entry.
    var status: ComponentHealth? { health.snapshot.first { $0.name == "home" } }

    /// The next update matching `predicate` (others are skipped), bounded by `timeout`.
    func next(
        timeout: Duration = .seconds(15), where predicate: (ActivityUpdate) -> Bool = { _ in true }
    ) async throws -> ActivityUpdate {
        let deadline = ContinuousClock.now + timeout
        while true {
            let update = try await updates.next(timeout: max(.zero, ContinuousClock.now.duration(to: deadline)))
            if predicate(update) { return update }
        }
    }
}
