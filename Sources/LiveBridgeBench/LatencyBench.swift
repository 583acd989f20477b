import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport

/// Section 3: source event in → HTTP request on the wire.
///
/// A real `ActivityEngine` (its own timer and delivery driver, `SystemClock`) with a real
/// `PushWardSink` on a real `HTTPClient`, sending to the strict PushWard fake (`FakePushWardServer`). The engine persists
/// its state after every push: to files with fsync, as `livebridge run` does, or — to see what
/// that costs — in memory. Each event changes the card's text, so each is pushed at once
/// (no monthly budget); the latency is from just before `engine.emit` to the receiver's stamp of
/// the PATCH, on the monotonic clock. Events are sent one at a time, each after the previous
/// delivery completed, so the figure is latency, not queueing.
struct LatencyBench: Sendable {
    /// Where the engine persists its state.
    enum Store: String, Sendable {
        /// `FileStateStore` in a temporary directory (write, fsync, rename), as `livebridge run`.
        case files
        /// `MemoryStateStore`: the same path without the disk.
        case memory
    }

    var events: Int
    var store: Store = .files
    var warmup = 50

    struct Result: Sendable {
        var store: Store
        var events: Int
        var p50: Double
        var p99: Double
        var max: Double
        var mean: Double
        var violations: [String]
    }

    func run() async throws(BenchError) -> Result {
        let board = ArrivalBoard()
        let key = "lbb_bench_latency_key_0000000000000000"
        let receiver = try FakePushWardServer.bench(apiKey: key, section: "latency") { accepted in
            if let state = accepted.state { board.arrive(state, at: accepted.arrived) }
        }
        defer { receiver.shutdown() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livebridge-bench-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let clock = SystemClock()
        let client = HTTPClient()
        defer { client.shutdown() }
        let store: any StateStore =
            self.store == .files ? FileStateStore(directory: directory) : MemoryStateStore()
        let sink = PushWardSink(
            configuration: .init(name: "phone", baseURL: receiver.baseURL, apiKey: key), transport: client, clock: clock
        )
        let ledger = BudgetLedger(sink: "phone", limit: nil, store: store)
        let queue = DeliveryQueue(
            sink: sink, clock: clock, logger: .disabled, metrics: MetricsRegistry(), health: .detached(clock: clock),
            ledger: ledger)
        // Events follow each other as fast as they arrive; the coalescing window would hold each
        // one back by design (up to `coalesceWindow`), so the path is measured without it.
        var settings = EconomySettings()
        settings.coalesceWindow = 0
        let engine = ActivityEngine(
            bindings: [ActivityEngine.Binding(sink: sink, queue: queue, ledger: ledger)], settings: settings,
            clock: clock, store: store, logger: .disabled, metrics: MetricsRegistry())
        await engine.start()
        let driver = Task { await engine.run() }
        defer { driver.cancel() }

        var latencies: [Double] = []
        latencies.reserveCapacity(events)
        for index in 0..<(events + warmup) {
            let text = "Event \(index)"
            let update = ActivityUpdate(
                slug: "latency", name: "Latency", phase: .active,
                content: GenericContent(state: text, icon: "bolt.fill"), progress: Double(index % 100) / 100,
                eta: .remaining(3600))
            let sent = ContinuousClock.now
            await engine.emit(update)
            guard let arrived = await board.wait(for: text, timeout: .seconds(10)) else {
                await engine.shutdown(endActivities: false, flushTimeout: 1)
                let problems = receiver.violations.prefix(3).joined(separator: "; ")
                throw BenchError(
                    "latency: event \(index) did not reach the receiver within 10 s"
                        + (problems.isEmpty ? "" : " (receiver: \(problems))"))
            }
            _ = await queue.waitUntilIdle(deadline: clock.now + 10)
            if index >= warmup { latencies.append(Self.seconds(arrived - sent)) }
        }
        await engine.shutdown(endActivities: false, flushTimeout: 2)
        latencies.sort()
        return Result(
            store: self.store, events: latencies.count, p50: Self.percentile(latencies, 0.50),
            p99: Self.percentile(latencies, 0.99),
            max: latencies.last ?? 0, mean: latencies.reduce(0, +) / Double(max(1, latencies.count)),
            violations: receiver.violations)
    }

    /// Nearest-rank percentile of ascending `values`.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let rank = Int((fraction * Double(values.count)).rounded(.up))
        return values[min(values.count, max(1, rank)) - 1]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
