import Foundation
public import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeNet

/// `livebridge-bench`: pushes per job against an oracle, a month against the free tier, latency,
/// throughput, memory and CPU — measured, as a markdown table or JSON. A program of its own, so
/// what only the bench needs (Foundation's `Process`, the fakes) stays out of `livebridge`.
public enum BenchCommand {
    static let usage = """
        usage: livebridge-bench [--quick] [--json] [--only SECTIONS] [--recordings DIR] [--events N]
                                [--binary PATH] [--idle SECONDS] [--busy SECONDS] [--jobs N] [--explain JOB]
                                [--trace] [--set K=V,…]

        Measures, without any network beyond loopback (build with `swift build -c release` first):
          economy     each trajectory through the real tracker on a virtual clock: pushes, max and mean
                      display error on a 1 s grid, the ratio to the oracle (fewest pushes keeping the
                      error within ε), and the same figures for a fixed-interval policy (5 s / 30 s)
          corpus      the generated corpus (\(Corpus.families.count) families x \(Corpus.variants) seeded variants) through the real tracker:
                      per family p50/p95/max of (pushes - 1) / oracle, max display error, and
                      invariant violations (oscillation, absurd countdown, stale number, coalescing)
          month       a typical month (30 downloads, 12 prints, 40 washer cycles) against 250 updates
          latency     source event in → PATCH on the wire through a loopback PushWard stand-in
          throughput  tracker updates, merge patches, JSON parses, WebSocket frames per second (one core)
          resources   peak RSS and CPU of `livebridge run` idle and busy (spawns --binary)
          soak        --jobs jobs with slugs of their own through `livebridge run`'s activities API (spawns
                      --binary): time per request first vs last thousand, RSS, the data directory once every
                      job ended, start-up time on that history

          --quick            a short version of everything (seconds)
          --json             JSON instead of markdown
          --only LIST        comma-separated sections (default: all)
          --recordings DIR   the committed recordings (default: bench/recordings here or above)
          --events N         latency events (default 10000; quick 200)
          --binary PATH      the livebridge binary to measure (default: the one next to this program)
          --idle SECONDS     idle measurement (default 60; quick 1)
          --busy SECONDS     busy measurement (default 60; quick 1)
          --jobs N           soak jobs (default 10000; quick 30)
          --explain JOB      print one job's push log (LiveBridge's pushes with reasons, the oracle's schedule);
                             a corpus job is FAMILY:VARIANT (stall:7)
          --trace            with --explain: every observation, beside what the phone showed at its time
          --set K=V,…        what-if: economy settings for the economy and month sections, e.g.
                             etaToleranceFraction=0.25,etaPersistence=120; keys: endFrames,
                             \(tunables.keys.sorted().joined(separator: ", "))
        """

    static let sections = ["economy", "corpus", "month", "latency", "throughput", "resources", "soak"]

    /// Runs the bench with the process arguments and exits with its status.
    public static func main() async {
        let status = await run(
            Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
            output: .standard)
        exit(status)
    }

    /// Runs the bench; returns its exit status (tests call this directly).
    public static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) async -> Int32 {
        NetworkLibraries.initialize()
        var options = BenchOptions()
        do throws(UsageError) {
            let parsed = try ParsedArguments(
                arguments,
                options: ["only", "recordings", "events", "binary", "idle", "busy", "jobs", "explain", "set"],
                flags: ["quick", "json", "trace", "help"])
            if parsed.flag("help") {
                output.out(usage)
                return ExitStatus.ok
            }
            guard parsed.positional.isEmpty else { throw UsageError("unexpected argument \(parsed.positional[0])") }
            options.quick = parsed.flag("quick")
            options.json = parsed.flag("json")
            if let only = parsed.value("only") {
                let names = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                for name in names where !sections.contains(name) {
                    throw UsageError("--only \(name): expected some of \(sections.joined(separator: ", "))")
                }
                options.sections = Set(names)
            }
            options.recordings = parsed.value("recordings")
            options.explain = parsed.value("explain")
            options.trace = parsed.flag("trace")
            if let assignments = parsed.value("set") { options.settings = try economySettings(assignments) }
            options.binary = parsed.value("binary")
            if let events = try parsed.number("events", range: 10...1_000_000) { options.events = Int(events) }
            if let idle = try parsed.number("idle", range: 1...3600) { options.idleSeconds = idle }
            if let busy = try parsed.number("busy", range: 1...3600) { options.busySeconds = busy }
            if let jobs = try parsed.number("jobs", range: 10...1_000_000) { options.soakJobs = Int(jobs) }
        } catch {
            output.err("livebridge-bench: \(error.message)\n\n\(usage)")
            return ExitStatus.usage
        }
        options.commandLine = (["livebridge-bench"] + arguments).joined(separator: " ")
        if let name = options.explain, let corpusJob = Corpus.job(named: name) {
            output.out(BenchExplanation.render(corpusJob, settings: options.settings, trace: options.trace))
            return ExitStatus.ok
        }
        if let name = options.explain {
            let catalog = options.quick ? BenchTrajectories.quick : BenchTrajectories.standard
            guard let trajectory = catalog.first(where: { $0.name == name }) else {
                output.err(
                    "livebridge-bench: --explain \(name): known jobs: \(catalog.map(\.name).joined(separator: ", "))")
                return ExitStatus.usage
            }
            do throws(BenchError) {
                let loaded = try trajectory.load(directory: BenchTrajectories.directory(explicit: options.recordings))
                output.out(BenchExplanation.render(loaded, settings: options.settings, trace: options.trace))
                return ExitStatus.ok
            } catch {
                output.err("livebridge-bench: \(error.message)")
                return ExitStatus.unavailable
            }
        }
        let report = await BenchRunner(options: options, progress: { output.err($0) }).run()
        output.out(options.json ? report.json() : report.markdown())
        return report.failures.isEmpty ? ExitStatus.ok : ExitStatus.software
    }
}

extension BenchCommand {
    /// Economy settings `--set` may change, by their `EconomySettings` names.
    static var tunables: [String: WritableKeyPath<EconomySettings, Double>] {
        [
            "maxDisplayError": \.maxDisplayError, "etaToleranceMinimum": \.etaToleranceMinimum,
            "etaToleranceFraction": \.etaToleranceFraction, "etaPersistence": \.etaPersistence,
            "finishPad": \.finishPad, "finishPadShare": \.finishPadShare, "deadlineLead": \.deadlineLead,
            "liveMinimumWindow": \.liveMinimumWindow,
            "fixedFinishGrace": \.fixedFinishGrace, "endDisplay": \.endDisplay,
            "coalesceWindow": \.coalesceWindow, "paceWindowMinimum": \.paceWindowMinimum,
            "paceWindowFraction": \.paceWindowFraction, "paceWindowMaximum": \.paceWindowMaximum,
            "paceWeightMaximum": \.paceWeightMaximum,
            "paceNoise": \.paceNoise, "paceWindowGaps": \.paceWindowGaps, "leanStretchGaps": \.leanStretchGaps,
            "overdueGapFactor": \.overdueGapFactor, "correctionChangeSteps": \.correctionChangeSteps,
            "budgetWidening": \.budgetWidening, "budgetExhaustedWidening": \.budgetExhaustedWidening,
            "budgetMinimumElapsedShare": \.budgetMinimumElapsedShare, "budgetReserveMargin": \.budgetReserveMargin,
            "budgetReserveSpare": \.budgetReserveSpare, "budgetProjectionShare": \.budgetProjectionShare,
            "labelDeferralWidening": \.labelDeferralWidening,
            "stallMinimum": \.stallMinimum, "stallGapFactor": \.stallGapFactor,
            "etaReversalWindow": \.etaReversalWindow, "etaReversalFactor": \.etaReversalFactor,
            "paceMinimumSpan": \.paceMinimumSpan, "paceShareUnscored": \.paceShareUnscored,
            "calibrationConfidence": \.calibrationConfidence, "steadyFinishAgeShare": \.steadyFinishAgeShare,
            "scoreHorizonGaps": \.scoreHorizonGaps, "paceChangeFactor": \.paceChangeFactor,
            "statedRateConfirmSteps": \.statedRateConfirmSteps, "statedRateFactor": \.statedRateFactor,
            "paceChangeConfidence": \.paceChangeConfidence,
            "paceChangeSpan": \.paceChangeSpan, "etaQuietTail": \.etaQuietTail,
            "absurdFinishFactor": \.absurdFinishFactor, "startWait": \.startWait,
            "estimateWait": \.estimateWait,
            "finishPadErrorShare": \.finishPadErrorShare, "frozenFinishPad": \.frozenFinishPad,
            "frozenFinishShare": \.frozenFinishShare,
            "errorLookaheadGaps": \.errorLookaheadGaps, "lookaheadStaircaseSpan": \.lookaheadStaircaseSpan,
            "driftAnchorShare": \.driftAnchorShare, "readingLookaheadGaps": \.readingLookaheadGaps,
            "steadyFinishSteps": \.steadyFinishSteps, "etaMoveMinimum": \.etaMoveMinimum,
            "etaJobFraction": \.etaJobFraction, "staircaseOffsetShare": \.staircaseOffsetShare,
            "staircaseMinimumGap": \.staircaseMinimumGap, "stepWaitObservations": \.stepWaitObservations,
            "flatCountReadings": \.flatCountReadings,
            "paceChangeGaps": \.paceChangeGaps, "paceChangeLongGaps": \.paceChangeLongGaps,
            "paceSmoothing": \.paceSmoothing, "paceMinimumGaps": \.paceMinimumGaps, "gapCountJitter": \.gapCountJitter,
            "pacePrecisionSteps": \.pacePrecisionSteps, "scoreSpacingShare": \.scoreSpacingShare,
            "scoreSmoothing": \.scoreSmoothing, "lookaheadErrorShare": \.lookaheadErrorShare,
            "correctionGainShare": \.correctionGainShare, "glideToleranceFloorShare": \.glideToleranceFloorShare,
            "keptEndDateErrorShare": \.keptEndDateErrorShare, "etaResolutionSteps": \.etaResolutionSteps,
            "liveWindowLeads": \.liveWindowLeads, "heartbeatMarginMaximumShare": \.heartbeatMarginMaximumShare,
            "resumeGlideStepShare": \.resumeGlideStepShare,
        ]
    }

    /// `maxDisplayError=0.05,etaPersistence=120` (and `endFrames=1`) applied to the defaults.
    static func economySettings(_ assignments: String) throws(UsageError) -> EconomySettings {
        var settings = EconomySettings()
        for assignment in assignments.split(separator: ",") {
            let parts = assignment.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]), value.isFinite, value >= 0 else {
                throw UsageError("--set \(assignment): expected NAME=NUMBER")
            }
            if parts[0] == "endFrames" {
                guard value == 1 || value == 2 else { throw UsageError("--set endFrames: 1 or 2") }
                settings.endFrames = Int(value)
            } else if let path = tunables[parts[0]] {
                settings[keyPath: path] = value
            } else {
                throw UsageError(
                    "--set \(parts[0]): unknown; known: endFrames, \(tunables.keys.sorted().joined(separator: ", "))")
            }
        }
        return settings
    }
}

/// What `livebridge-bench` was asked to do.
struct BenchOptions: Sendable {
    var quick = false
    var json = false
    var sections = Set(BenchCommand.sections)
    /// `--recordings DIR`.
    var recordings: String?
    var binary: String?
    var events: Int?
    var idleSeconds: Double?
    var busySeconds: Double?
    var soakJobs: Int?
    var commandLine = "livebridge-bench"
    /// `--explain JOB`: print one job's push log instead of measuring.
    var explain: String?
    /// `--trace` with `--explain`: every observation beside what the phone showed then.
    var trace = false
    /// Economy settings for the economy and month sections (`--set`); defaults otherwise.
    var settings = EconomySettings()

    var latencyEvents: Int { events ?? (quick ? 200 : 10_000) }
    var idle: Double { idleSeconds ?? (quick ? 1 : 60) }
    var busy: Double { busySeconds ?? (quick ? 1 : 60) }
    var jobs: Int { soakJobs ?? (quick ? 30 : 10_000) }
}
