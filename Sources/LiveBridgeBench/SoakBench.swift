import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization

/// Section 6: a long history through `livebridge run` — thousands of jobs, each with a slug of
/// its own (one per CI build), so that what the bridge keeps must not grow with them.
///
/// Spawns the binary with the activities API and one PushWard sink at the strict loopback
/// receiver. Each job is three requests on a real socket, one after the other: start (progress,
/// card text, remaining time), a new card text, the end; the bridge pushes a seed, the change
/// and the two-phase end. Measured: the time per request over the run (the first thousand
/// against the last), the process's RSS after start-up, after the first thousand jobs and at
/// the end, the data directory once every job ended on the receiver, and the start-up time of a
/// second `livebridge run` on that data directory (against the first, on an empty one).
///
/// The run compresses months into minutes (about 150 jobs a second), so three settings scale with
/// it. `endedTTL` and `dismissalTTL` are `tombstoneTTL` (10 s), so the run spans many tombstone
/// lifetimes: what stays is bounded by the jobs ended within one TTL, which with the default
/// 15 minutes is reached after 15 minutes instead. `endDisplay` (the wait between the final frame
/// and `ended`) is 0.2 s and `coalesceWindow` 0: with the defaults (4 s, 1 s) a job holds its
/// place on the phone for seconds, which measures that concurrency rather than the history.
/// At most `inFlight` jobs are under way at once (sent, not yet ended on the receiver), fewer
/// than the sink's 50 places: a job that started and ended while every place was taken would
/// never be shown, and the receiver must see every job.
struct SoakBench: Sendable {
    var binary: String
    var jobs = 10_000
    var tombstoneTTL = 10.0
    /// `economy.endDisplay`; nil keeps the default (4 s).
    var endDisplay: Double? = 0.2
    /// Restarts on the history whose start-up times give the median.
    var restarts = 3
    /// Whether the final RSS waits for the tombstones to expire (a quick run does not: the data
    /// directory, measured after the stop, does not depend on them).
    var waitForTombstones = true
    /// Jobs under way at once, at most (the sink shows 50).
    static let inFlight = 40

    /// Time per request over a window of requests.
    struct Window: Sendable {
        var requests: Int
        var mean: Double
        var p50: Double
        var p99: Double
    }

    struct Result: Sendable {
        var jobs: Int
        var requests: Int
        var tombstoneTTL: Double
        var endDisplay: Double?
        var first: Window
        var last: Window
        /// Mean seconds per request in each tenth of the run, in order.
        var tenths: [Double]
        var rssStartKiB: Int
        var rssWarmKiB: Int
        var rssEndKiB: Int
        var peakRSSKiB: Int
        /// The data directory after every job ended and the tombstones expired: bytes in files.
        var dataBytes: Int
        var dataFiles: Int
        /// Seconds from spawn to ready: on an empty data directory, then on the history (median).
        var startupEmpty: Double
        var startupHistory: Double
        /// The restarted bridge found no activity to resume.
        var resumedNothing: Bool
        var ended: Int
        var creates: Int
        var patches: Int
        var refused: Int
        var violations: [String]

        /// The last thousand requests' mean against the first thousand's.
        var slowdown: Double { first.mean > 0 ? last.mean / first.mean : 0 }
        /// From the first thousand jobs (start-up and warm-up done: connections, pools) to the end.
        var rssGrowthKiB: Int { rssEndKiB - rssWarmKiB }
    }

    func run() async throws(BenchError) -> Result {
        let key = "lbb_bench_soak_key_00000000000000000000"
        let ended = Mutex(0)
        let receiver = try FakePushWardServer.bench(apiKey: key, section: "soak", maxOngoing: nil) { accepted in
            if accepted.ended { ended.withLock { $0 += 1 } }
        }
        defer { receiver.shutdown() }
        let directory = BenchChildProcess.temporaryDirectory("soak")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dataDirectory = directory + "/data"
        let token = "bench-\(UInt64.random(in: 0...UInt64.max))"
        var economy: [String: JSONValue] = [
            "endedTTL": .string("\(Int(tombstoneTTL))s"), "dismissalTTL": .string("\(Int(tombstoneTTL))s"),
            "coalesceWindow": "0s",
        ]
        if let endDisplay { economy["endDisplay"] = .string("\(endDisplay)s") }
        let config: JSONValue = [
            "dataDir": .string(dataDirectory), "server": ["listen": "127.0.0.1:0", "apiToken": .string(token)],
            "logLevel": "info", "economy": .object(economy),
            // Jobs a second, not a phone: as many at once as the sink allows.
            "sinks": [
                [
                    "name": "phone", "type": "pushward", "url": .string(receiver.baseURL), "apiKey": .string(key),
                    "maxOngoing": 50,
                ]
            ],
        ]
        let path = directory + "/livebridge.json5"
        try BenchChildProcess.writeConfig(JSONWriter.string(config), to: path, section: "soak")

        let first = try await BenchChildProcess.run(binary: binary, configPath: path, section: "soak")
        var result: Result
        do {
            result = try await drive(
                first, receiver: receiver, ended: { ended.withLock { $0 } }, token: token, dataDirectory: dataDirectory)
        } catch {
            await first.child.stop()
            throw error
        }
        await first.child.stop()
        (result.dataBytes, result.dataFiles) = Self.size(of: dataDirectory)

        var startups: [Double] = []
        result.resumedNothing = true
        for _ in 0..<max(1, restarts) {
            let again = try await BenchChildProcess.run(binary: binary, configPath: path, section: "soak")
            startups.append(again.startup)
            if again.child.logText.contains("resumed activities") { result.resumedNothing = false }
            await again.child.stop()
        }
        result.startupHistory = startups.sorted()[startups.count / 2]
        return result
    }

    private func drive(
        _ bridge: RunningBridge, receiver: FakePushWardServer, ended: @escaping @Sendable () -> Int, token: String,
        dataDirectory: String
    ) async throws(BenchError) -> Result {
        let sampler = ProcessSampler(pid: bridge.child.pid)
        try? await Task.sleep(for: .milliseconds(300))
        guard let start = sampler.sample() else { throw BenchError("soak: the process exited at start") }
        let client = HTTPClient()
        defer { client.shutdown() }
        var latencies: [Double] = []
        latencies.reserveCapacity(jobs * 3)
        var refused = 0
        var warm = start
        for index in 0..<jobs {
            // The receiver wakes the wait on every request it answers.
            guard await receiver.waitUntil(timeout: 30, { _ in index - ended() < Self.inFlight }) else {
                throw BenchError(
                    "soak: \(Self.inFlight) jobs under way and none ended within 30 s (\(ended()) of \(index) ended)")
            }
            let slug = "ci-build-\(index)"
            let bodies: [JSONValue] = [
                [
                    "name": .string("CI build \(index)"), "progress": 0.1, "state": "Building",
                    "remaining": 300, "icon": "hammer",
                ],
                ["progress": 0.6, "state": "Testing", "remaining": 120],
                ["end": true, "state": "Passed"],
            ]
            for body in bodies {
                let request = HTTPRequest(
                    method: "POST", url: "http://\(bridge.address)/api/activities/\(slug)",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: JSONWriter.bytes(body), timeout: 10)
                let sent = ContinuousClock.now
                let status = (try? await client.execute(request))?.status
                latencies.append(LatencyBench.seconds(ContinuousClock.now - sent))
                if status != 202 { refused += 1 }
            }
            if index == min(999, jobs - 1), let sample = sampler.sample() { warm = sample }
        }
        // Every end delivered, then (unless quick) the tombstones' TTL and a checkpoint.
        _ = await receiver.waitUntil(timeout: 60) { $0.endedCount >= jobs }
        if waitForTombstones {
            let settle = tombstoneTTL + ActivityEngine.checkpointDelay + 0.5
            try? await Task.sleep(for: .milliseconds(Int64(settle * 1000)))
        }
        guard let end = sampler.sample() else { throw BenchError("soak: the process exited during the run") }
        let counts = receiver.counts
        let thousand = min(1000, latencies.count)
        let tenth = max(1, latencies.count / 10)
        return Result(
            jobs: jobs, requests: latencies.count, tombstoneTTL: tombstoneTTL, endDisplay: endDisplay,
            first: Self.window(latencies.prefix(thousand)), last: Self.window(latencies.suffix(thousand)),
            tenths: stride(from: 0, to: latencies.count, by: tenth).map { offset in
                let slice = latencies[offset..<min(latencies.count, offset + tenth)]
                return slice.reduce(0, +) / Double(slice.count)
            },
            rssStartKiB: start.rssKiB, rssWarmKiB: warm.rssKiB, rssEndKiB: end.rssKiB, peakRSSKiB: end.peakKiB,
            dataBytes: 0, dataFiles: 0, startupEmpty: bridge.startup, startupHistory: 0, resumedNothing: false,
            ended: receiver.endedCount, creates: counts.creates, patches: counts.patches, refused: refused,
            violations: receiver.violations)
    }

    static func window(_ values: ArraySlice<Double>) -> Window {
        let sorted = values.sorted()
        return Window(
            requests: sorted.count, mean: sorted.reduce(0, +) / Double(max(1, sorted.count)),
            p50: LatencyBench.percentile(sorted, 0.5), p99: LatencyBench.percentile(sorted, 0.99))
    }

    /// Bytes in the files under `directory`, and how many files.
    static func size(of directory: String) -> (bytes: Int, files: Int) {
        var bytes = 0
        var files = 0
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return (0, 0) }
        while let file = enumerator.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + file)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            bytes += (attributes?[.size] as? NSNumber)?.intValue ?? 0
            files += 1
        }
        return (bytes, files)
    }
}
