import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization

/// Section 5: peak RSS and CPU of `livebridge run` over an idle and a busy phase.
///
/// Spawns the binary with a generated config (`ResourceBenchConfig`), samples `/proc/<pid>` once
/// a second, and computes CPU % from utime + stime over each phase. Idle: nothing happens. Busy:
/// the bench posts 10 activity updates a second (5 activities, a new card text every 10th
/// update so some are pushed) to the activities API, and every source's fake is set busy.
struct ResourceBench: Sendable {
    var binary: String
    var idleSeconds: Double
    var busySeconds: Double
    /// Sources with their fakes; empty until the adapters are merged (see `ResourceBenchSource`).
    var sources: [any ResourceBenchSource] = []

    struct Phase: Sendable {
        var seconds: Double
        var cpuPercent: Double
        var maxRSSKiB: Int
    }

    struct Result: Sendable {
        var binary: String
        var sources: Int
        var sinks: Int
        var idle: Phase
        var busy: Phase
        /// `VmHWM` at the end: the peak over the whole run, start-up included.
        var peakRSSKiB: Int
        /// `RssAnon` and `RssFile` at the end: what the process allocated vs mapped code.
        var anonymousKiB: Int
        var fileKiB: Int
        /// Where `fileKiB` goes at the end: resident KiB per mapped file, largest first.
        var files: [(path: String, kibibytes: Int)] = []
        var busyEvents: Int
        var busyPushes: Int
        var violations: [String]
        /// How `livebridge run` reacted to SIGTERM at the end.
        var stop: BenchChildProcess.StopOutcome = .exitedEarlier
    }

    /// The binary to measure: `explicit`, else this executable when it is `livebridge`, else a
    /// `livebridge` next to it (a test runner in `.build/debug`).
    static func defaultBinary(explicit: String?) -> String? {
        if let explicit { return explicit }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if me.lastPathComponent == "livebridge" { return me.path }
        let sibling = me.deletingLastPathComponent().appendingPathComponent("livebridge").path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : nil
    }

    func run() async throws(BenchError) -> Result {
        let key = "lbb_bench_resource_key_000000000000000"
        let receiver = try FakePushWardServer.bench(apiKey: key, section: "resources")
        defer { receiver.shutdown() }
        let directory = BenchChildProcess.temporaryDirectory("run")
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var entries: [JSONValue] = []
        for source in sources { entries.append(try await source.start(directory: directory)) }
        let token = "bench-\(UInt64.random(in: 0...UInt64.max))"
        let config = ResourceBenchConfig(
            dataDirectory: directory + "/data", apiToken: token, pushwardURL: receiver.baseURL, pushwardKey: key,
            sources: entries)
        let path = directory + "/livebridge.json5"
        try BenchChildProcess.writeConfig(config.text, to: path, section: "resources")
        let running: RunningBridge
        do {
            running = try await BenchChildProcess.run(binary: binary, configPath: path, section: "resources")
        } catch {
            for source in sources { await source.stop() }
            throw error
        }
        let child = running.child
        do {
            var result = try await measure(child, address: running.address, receiver: receiver, token: token)
            result.stop = await child.stop()
            for source in sources { await source.stop() }
            return result
        } catch {
            await child.stop()
            for source in sources { await source.stop() }
            throw error
        }
    }

    private func measure(
        _ child: BenchChildProcess, address: String, receiver: FakePushWardServer, token: String
    ) async throws(BenchError) -> Result {
        let sampler = ProcessSampler(pid: child.pid)
        try? await Task.sleep(for: .milliseconds(500))

        let idle = try await phase(sampler, seconds: idleSeconds)
        for source in sources { await source.setBusy(true) }
        let client = HTTPClient()
        defer { client.shutdown() }
        let sent = Mutex(0)
        let driver = Task {
            var index = 0
            while !Task.isCancelled {
                let slug = "bench-\(index % 5)"
                let step = index / 5
                let body: JSONValue = [
                    "name": .string("Bench \(index % 5)"), "state": .string("Step \(step / 10)"),
                    "progress": .number(Double(step % 100) / 100), "remaining": .number(Double(3600 - step % 3600)),
                ]
                let request = HTTPRequest(
                    method: "POST", url: "http://\(address)/api/activities/\(slug)",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: JSONWriter.bytes(body), timeout: 5)
                if let response = try? await client.execute(request), response.status == 202 {
                    sent.withLock { $0 += 1 }
                }
                index += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let busy: Phase
        do {
            busy = try await phase(sampler, seconds: busySeconds)
        } catch {
            driver.cancel()
            throw error
        }
        driver.cancel()
        _ = await driver.value
        for source in sources { await source.setBusy(false) }
        guard let last = sampler.sample() else { throw BenchError("resources: the process exited during the run") }
        return Result(
            binary: binary, sources: sources.count, sinks: 2, idle: idle, busy: busy, peakRSSKiB: last.peakKiB,
            anonymousKiB: last.anonymousKiB, fileKiB: last.fileKiB, files: sampler.residentFiles(),
            busyEvents: sent.withLock { $0 }, busyPushes: receiver.counts.patches, violations: receiver.violations)
    }

    /// Samples once a second for `seconds`; CPU % over the whole phase, the largest RSS seen.
    private func phase(_ sampler: ProcessSampler, seconds: Double) async throws(BenchError) -> Phase {
        guard let first = sampler.sample() else { throw BenchError("resources: the process exited") }
        var last = first
        var maxRSS = first.rssKiB
        let end = first.at + .milliseconds(Int64(seconds * 1000))
        var next = first.at
        while true {
            next = min(end, next + .seconds(1))
            try? await Task.sleep(until: next, clock: .continuous)
            guard let sample = sampler.sample() else { throw BenchError("resources: the process exited") }
            last = sample
            maxRSS = max(maxRSS, sample.rssKiB)
            if next >= end { break }
        }
        return Phase(
            seconds: LatencyBench.seconds(last.at - first.at),
            cpuPercent: ProcessSampler.cpuPercent(from: first, to: last),
            maxRSSKiB: maxRSS)
    }
}
