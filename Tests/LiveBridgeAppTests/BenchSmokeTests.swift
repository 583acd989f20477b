import Foundation
import LiveBridgeCore
import LiveBridgeTestSupport
import Synchronization
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// `livebridge-bench --quick` produces sane numbers (not fast ones: this is a debug build on a
/// shared machine) in seconds of CPU.
@Suite("livebridge-bench --quick", .serialized, .timeLimit(.minutes(1)))
struct BenchSmokeTests {
    /// `bench/recordings` of this checkout, whatever the working directory.
    static let recordings = Checkout.file("bench/recordings").path

    /// The CPU seconds `--quick` may take: twice what it takes here, about 10 s since the corpus
    /// has 22 families and the month three draws (the corpus and the month about 3.3 s each), so a
    /// run that doubles is caught and a noisy machine is not (at 10 s it was stopped in one run of
    /// three).
    static let cpuLimit = 20

    @Test("runs every section and reports sane figures, within its CPU limit")
    func quickRun() async throws {
        // The built `livebridge-bench` in a process of its own, so that what is measured is its
        // CPU alone (tests running beside it in this process do not count) and a busy machine
        // inflates the wall clock, not that: past `cpuLimit` the kernel stops it (SIGXCPU).
        let bench = try LiveBridgeBinary.locate("livebridge-bench")
        let directory = try TemporaryDirectory(prefix: "bench-quick")
        defer { directory.remove() }
        let errors = directory.file("stderr")
        let started = ContinuousClock.now
        let json: String
        do {
            json = try await HTTPBlockingWork.run {
                try ChildProcess.run(
                    "/bin/sh",
                    [
                        "-c", "ulimit -t \(Self.cpuLimit) && exec \"$0\" \"$@\" 2>'\(errors)'", bench, "--quick",
                        "--json", "--recordings", Self.recordings,
                    ])
            }
        } catch {
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            Issue.record(
                "livebridge-bench --quick failed (9 or 24 is the kernel stopping it at \(Self.cpuLimit) s of CPU): \(error)\n\(stderr)"
            )
            return
        }
        let elapsed = ContinuousClock.now - started
        let report = try JSONParser.parse(json)
        #expect(report["failures"]?.arrayValue?.isEmpty == true, "\(report["failures"] ?? .null)")

        // Economy: every job pushed, errors are fractions of the bar, LiveBridge never beats the oracle.
        let jobs = try #require(report["economy"]?.arrayValue)
        #expect(jobs.count == BenchTrajectories.quick.count)
        #expect(jobs.count == 20)
        for job in jobs {
            let name = job["name"]?.stringValue ?? "?"
            let pushes = try #require(job["livebridge"]?["pushes"]?.intValue)
            let oracle = try #require(job["oracle"]?.intValue)
            let extra = try #require(job["extraEndFrames"]?.intValue)
            #expect(pushes > 0, "\(name)")
            #expect(oracle >= 2, "\(name): the oracle needs at least the seed and the end")
            // The oracle pushes at every card change and ends with one frame; LiveBridge beats it by
            // at most one push, where its seed waited for the card that followed (`startWait`) or
            // its final content went out before the end (then there is no final frame).
            #expect(pushes >= 2 && pushes + 1 >= oracle, "\(name): \(pushes) pushes against the oracle's \(oracle)")
            let ratio = try #require(job["ratio"]?.doubleValue)
            #expect(abs(ratio - Double(pushes - extra) / Double(max(1, oracle))) < 1e-5, "\(name)")
            let oracleError = job["oracleMaxError"]?.doubleValue ?? 1
            #expect(oracleError <= 0.03 + 1e-9, "\(name): the oracle's own schedule is off by more than ε")
            for policy in ["livebridge", "fixed"] {
                for figure in ["maxError", "meanError"] {
                    let value = try #require(job[policy]?[figure]?.doubleValue)
                    #expect((0...1).contains(value), "\(name) \(policy) \(figure) \(value)")
                }
            }
            #expect((job["fixed"]?["pushes"]?.intValue ?? 0) > 0, "\(name)")
        }

        // Corpus: every family ran its variants, with figures in range.
        let families = try #require(report["corpus"]?.arrayValue)
        #expect(families.count == Corpus.families.count)
        for family in families {
            let name = family["family"]?.stringValue ?? "?"
            #expect(family["jobs"]?.intValue == 1, "\(name)")
            // The oracle is the fewest pushes that keep ε; LiveBridge never beats it while it keeps
            // ε too. A count in steps coarser than ε (a slow server's articles) is held to half a
            // step instead, which the oracle does not bound.
            let keptEpsilon = (family["maxError"]?.doubleValue ?? 1) <= EconomySettings().maxDisplayError + 1e-9
            #expect(
                !keptEpsilon || (family["ratioP50"]?.doubleValue ?? 0) >= 1,
                "\(name): LiveBridge never beats the oracle")
            #expect((0...1).contains(family["maxError"]?.doubleValue ?? -1), "\(name)")
            #expect(family["invariants"]?["withinCoalescingWindow"]?.intValue == 0, "\(name)")
        }

        // Month: three policies, every one spending updates; the fixed interval spends the most.
        let policies = try #require(report["month"]?["policies"]?.arrayValue)
        #expect(policies.count == 3)
        let updates = policies.compactMap { $0["updates"]?.intValue }
        #expect(updates.count == 3 && updates.allSatisfy { $0 > 0 })
        #expect(updates[2] > updates[0])
        // …and the same month drawn from other seeds: other draws, the same kind of figures.
        let others = try #require(report["month"]?["others"]?.arrayValue)
        #expect(others.count == 2)
        #expect(Set(others.compactMap { $0["seed"]?.intValue }).count == 2)
        for other in others {
            let jobs = other["jobs"]?.intValue ?? 0
            #expect(jobs > 0 && (0...jobs).contains(other["withinTolerance"]?.intValue ?? -1), "\(other)")
            #expect((other["freeUpdates"]?.intValue ?? 0) >= (other["oracle"]?.intValue ?? .max) / 2, "\(other)")
            #expect((other["budgetedUpdates"]?.intValue ?? 0) > 0, "\(other)")
        }
        // …and, under the budget, every draw's jobs by trajectory: as many as the draws hold.
        let misses = try #require(report["month"]?["budgetMisses"]?.objectValue)
        let byKind = try #require(report["month"]?["jobs"]?.objectValue)
        let monthJobs =
            byKind.values.compactMap(\.intValue).reduce(0, +) + others.compactMap { $0["jobs"]?.intValue }.reduce(0, +)
        #expect(misses.values.compactMap { $0["jobs"]?.intValue }.reduce(0, +) == monthJobs)
        for (name, value) in misses {
            let over = value["over"]?.intValue ?? -1
            #expect(over >= 0 && over <= value["jobs"]?.intValue ?? -1, "\(name)")
        }

        // Latency through the real engine, sink and HTTP client, to a strict receiver.
        let latencies = try #require(report["latency"]?.arrayValue)
        #expect(latencies.map { $0["store"]?.stringValue } == ["files", "memory"])
        for latency in latencies {
            #expect((latency["p50"]?.doubleValue ?? 0) > 0)
            #expect((latency["p99"]?.doubleValue ?? 0) >= (latency["p50"]?.doubleValue ?? 0))
            #expect(latency["violations"]?.arrayValue?.isEmpty == true, "\(latency["violations"] ?? .null)")
        }

        // Throughput: every measured row did work; the pending rows say so.
        let rows = try #require(report["throughput"]?.arrayValue)
        #expect(rows.count >= 4)
        for row in rows {
            if let rate = row["perSecond"]?.doubleValue {
                #expect(rate > 0, "\(row["name"] ?? .null)")
            } else {
                #expect(row["note"]?.stringValue?.hasPrefix("pending") == true)
            }
        }

        // Resources: the spawned `livebridge run` (the debug one next to the test runner).
        let resources = try #require(report["resources"])
        #expect((resources["peakRSSKiB"]?.intValue ?? 0) > 1024)
        #expect((resources["busyEvents"]?.intValue ?? 0) > 0)
        #expect((resources["busyPushes"]?.intValue ?? 0) > 0)
        #expect(resources["violations"]?.arrayValue?.isEmpty == true)
        let idle = try #require(resources["idle"]?["cpuPercent"]?.doubleValue)
        #expect(idle >= 0 && idle < 100)

        // Soak: jobs through the spawned `livebridge run`; all ended, nothing left behind.
        let soak = try #require(report["soak"])
        #expect(soak["ended"]?.intValue == soak["jobs"]?.intValue)
        #expect(soak["refused"]?.intValue == 0)
        #expect(soak["violations"]?.arrayValue?.isEmpty == true)
        #expect(soak["resumedNothing"] == true)
        #expect((soak["dataBytes"]?.intValue ?? .max) < 4096)

        print("bench --quick: \(elapsed) of wall clock")
    }

    @Test("markdown output has the goals and every section's table")
    func markdown() async {
        let out = Mutex("")
        let status = await BenchCommand.run(
            ["--quick", "--only", "economy,throughput", "--recordings", Self.recordings],
            environment: [:], output: CommandOutput(out: { text in out.withLock { $0 += text } }, err: { _ in }))
        let text = out.withLock { $0 }
        #expect(status == 0)
        #expect(text.contains("### Goals"))
        #expect(text.contains("| sabnzbd-a-steady |"))
        #expect(text.contains("### 4. Throughput"))
    }

    @Test("an unknown section is a usage error")
    func usage() async {
        let err = Mutex("")
        let status = await BenchCommand.run(
            ["--only", "economy,speed"], environment: [:],
            output: CommandOutput(out: { _ in }, err: { text in err.withLock { $0 += text } }))
        #expect(status == 64)
        #expect(err.withLock { $0 }.contains("--only speed"))
    }

    @Test("a recordings directory without the recordings: each one named as a failure, how to point elsewhere, exit 70")
    func missingRecordings() async throws {
        let empty = try TemporaryDirectory(prefix: "bench-recordings")
        defer { empty.remove() }
        let out = Mutex("")
        let status = await BenchCommand.run(
            ["--quick", "--json", "--only", "economy", "--recordings", empty.path], environment: [:],
            output: CommandOutput(out: { text in out.withLock { $0 += text } }, err: { _ in }))
        #expect(status == 70)
        let report = try JSONParser.parse(out.withLock { $0 })
        let failures = try #require(report["failures"]?.arrayValue).compactMap(\.stringValue)
        let recorded = BenchTrajectories.quick.filter { $0.source is AdapterRecording }
        #expect(failures.count == recorded.count)
        #expect(
            failures.contains {
                $0.contains("sabnzbd-a-steady") && $0.contains(empty.path + "/sabnzbd/a-steady/raw.jsonl")
                    && $0.contains("--recordings DIR")
            }, "\(failures)")
    }
}
