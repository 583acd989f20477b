import Foundation
import Glibc
import LiveBridgeApp
import LiveBridgeCore

/// Runs the sections `BenchOptions` asks for and collects a `BenchReport`.
struct BenchRunner: Sendable {
    var options: BenchOptions
    /// Progress lines (stderr in the command).
    var progress: @Sendable (String) -> Void

    func run() async -> BenchReport {
        var report = BenchReport(machine: .current, commandLine: options.commandLine, quick: options.quick)
        let settings = options.settings
        report.epsilon = settings.maxDisplayError
        let wanted = options.sections
        var loaded: [LoadedTrajectory] = []
        if wanted.contains("economy") || wanted.contains("month") {
            let directory = BenchTrajectories.directory(explicit: options.recordings)
            let catalog = options.quick ? BenchTrajectories.quick : BenchTrajectories.standard
            for trajectory in catalog {
                do throws(BenchError) {
                    loaded.append(try trajectory.load(directory: directory))
                } catch {
                    report.failures.append("economy: \(trajectory.name): \(error.message)")
                }
            }
        }
        var oracles: [String: Int] = [:]
        if wanted.contains("economy") || wanted.contains("month") {
            progress("bench: economy, \(loaded.count) trajectories")
            let jobs = EconomyBench(settings: settings).run(loaded)
            for job in jobs { oracles[job.name] = job.oracle }
            if wanted.contains("economy") { report.economy = jobs }
        }
        if wanted.contains("corpus") {
            var corpus = CorpusBench(settings: settings)
            if options.quick { corpus.variants = 1 }
            progress("bench: corpus, \(corpus.families.count) families × \(corpus.variants) variants")
            let bench = corpus
            // Minutes of CPU-bound simulation: on a thread of its own, not on the task pool.
            report.corpus = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: bench.run()) }.start()
            }
            report.causalPrints = CausalReference.run(epsilon: settings.maxDisplayError, variants: corpus.variants)
        }
        if wanted.contains("month") {
            progress("bench: month simulation")
            var month = MonthBench(settings: settings)
            if options.quick {
                // A quarter of the month's jobs and of the budget: the same shape in a quarter of the time.
                (month.downloads, month.prints, month.washers, month.budget) = (8, 3, 10, 63)
            }
            var result = month.run(loaded, oracles: oracles)
            for seed in options.quick ? Array(MonthBench.otherSeeds.prefix(2)) : MonthBench.otherSeeds {
                var other = month
                other.seed = seed
                result.others.append(MonthBench.Summary(other.run(loaded, oracles: oracles)))
            }
            report.month = result
        }
        if wanted.contains("latency") {
            progress("bench: latency, \(options.latencyEvents) events")
            var results: [LatencyBench.Result] = []
            for store in [LatencyBench.Store.files, .memory] {
                do throws(BenchError) {
                    results.append(try await LatencyBench(events: options.latencyEvents, store: store).run())
                } catch {
                    report.failures.append(error.message)
                }
            }
            report.latency = results
        }
        if wanted.contains("throughput") {
            progress("bench: throughput")
            // Seconds of CPU-bound work: on a thread of its own, not on the task pool.
            let bench = ThroughputBench(roundSeconds: options.quick ? 0.02 : 0.5)
            report.throughput = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: bench.run()) }.start()
            }
        }
        if wanted.contains("resources"), let binary = binary(for: "resources", report: &report) {
            progress("bench: resources of \(binary), \(Int(options.idle)) s idle + \(Int(options.busy)) s busy")
            do throws(BenchError) {
                var bench = ResourceBench(binary: binary, idleSeconds: options.idle, busySeconds: options.busy)
                bench.sources = ResourceBenchSources.all
                report.resources = try await bench.run()
            } catch {
                report.failures.append(error.message)
            }
        }
        if wanted.contains("soak"), let binary = binary(for: "soak", report: &report) {
            progress("bench: soak, \(options.jobs) jobs through \(binary)")
            var bench = SoakBench(binary: binary, jobs: options.jobs)
            if options.quick { (bench.tombstoneTTL, bench.restarts, bench.waitForTombstones) = (1, 1, false) }
            do throws(BenchError) {
                report.soak = try await bench.run()
            } catch {
                report.failures.append(error.message)
            }
        }
        return report
    }

    /// The `livebridge` binary a section spawns, or nil with the reason in `report`'s failures.
    private func binary(for section: String, report: inout BenchReport) -> String? {
        if let binary = ResourceBench.defaultBinary(explicit: options.binary) { return binary }
        report.failures.append("\(section): no livebridge binary found next to this one; pass --binary PATH")
        return nil
    }
}

/// Where the figures were measured.
struct BenchMachine: Sendable {
    var processors: Int
    var cpuModel: String
    var kernel: String
    var build: String
    var date: String
    /// `/proc/loadavg`'s 1-minute figure when the run started: other work on the machine skews
    /// the timing sections.
    var loadAverage: Double

    static var current: BenchMachine {
        let cpuinfo = ProcessSampler.read("/proc/cpuinfo") ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        return BenchMachine(
            processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpuModel: model, kernel: "Linux \(release)",
            build: build, date: RFC3339.format(Date().timeIntervalSince1970.rounded()),
            loadAverage: ProcessSampler.read("/proc/loadavg")?.split(separator: " ").first.flatMap { Double($0) } ?? 0)
    }
}
