import Foundation
import LiveBridgeApp
import LiveBridgeBambu
import LiveBridgeHomeAssistant
import LiveBridgeKit
import LiveBridgeSABnzbd

/// The jobs the benchmark replays, one entry each: the recordings under `bench/recordings/`
/// (paths relative to it) through their adapters' own mapping (`<Source>.replayFormat`, the
/// format its `SourceDescriptor` carries), and trajectories generated in code. Every figure of
/// the report follows from the `[ActivityUpdate]` each yields.
enum BenchTrajectories {
    static var standard: [BenchTrajectory] { catalog(scale: 1) }

    /// `--quick`: the typical jobs, the synthetic ones shortened to a fifth (debug builds in the
    /// test suite replay them in a fraction of the time); the stress variants only in the full run.
    static var quick: [BenchTrajectory] { catalog(scale: 0.2).filter(\.typical) }

    /// Every job; synthetic durations (and sizes) multiplied by `scale`.
    static func catalog(scale: Double) -> [BenchTrajectory] {
        [
            // The SABnzbd 4.5 scenario recordings (bench/recordings/README.md).
            recorded("sabnzbd-a-steady", "60 MiB at a steady 1 MiB/s", "a-steady"),
            recorded("sabnzbd-c-two-jobs", "two 30 MiB jobs, then post-processing", "c-two-jobs"),
            recorded("sabnzbd-d-pause-resume", "60 MiB, paused 20 s at 32 %", "d-pause-resume"),
            recorded("sabnzbd-f-failed", "every article missing, failed", "f-failed"),
            // Real SABnzbd 4.5 recordings made for the bench (bench/recordings/README.md).
            recorded("sabnzbd-a-steady-2mib", "40 MiB at 2 MiB/s", "a-steady-2mib"),
            recorded("sabnzbd-b-speedchange", "60 MiB, the server's rate halved at 50 %", "b-speedchange"),
            recorded("sabnzbd-e-repair", "3 articles missing, repaired by par2 (the total grows)", "e-repair"),
            recorded("sabnzbd-g-unrepairable", "15 % missing, 2 % par2: failed", "g-unrepairable"),
            recorded("sabnzbd-h-stall", "the news server silent 15 s at 40 %", "h-stall"),
            recorded("sabnzbd-h-stall-45s", "the news server silent 45 s at 40 %", "h-stall-45s"),
            recorded("sabnzbd-h-stall-75s", "silent 75 s: SABnzbd drops its connections", "h-stall-75s"),
            recorded("sabnzbd-i-pause-job", "one job paused (not the queue) 20 s at 30 %", "i-pause-job"),
            recorded(
                "sabnzbd-g-unrepairable-early", "20 MiB, 8 of 59 articles missing: aborted at 59 %",
                "g-unrepairable-early", typical: false),
            recorded(
                "sabnzbd-e-repair-40mib", "40 MiB, 3 articles missing: par2 volumes struck off after the first answer",
                "e-repair-40mib", typical: false),
            // Second samples of three scenarios, other sizes and lengths than the first.
            recorded(
                "sabnzbd-b-speedchange-80mib", "80 MiB at 1.5 MiB/s, the server's rate halved at 51 %",
                "b-speedchange-80mib", typical: false),
            recorded(
                "sabnzbd-h-stall-30s", "the news server silent 30 s at 44 %", "h-stall-30s", typical: false),
            recorded(
                "sabnzbd-i-pause-job-40s", "one job paused (not the queue) 40 s at 34 %", "i-pause-job-40s",
                typical: false),
            // Real recordings from a slow news server (24 KiB/s, 4 connections): articles of 1.5 %
            // landing a few at a time a minute apart, polled every 3 s (bench/recordings/README.md).
            slowServer("sabnzbd-slow-a-steady", "24 MiB at 24 KiB/s", "slow-a-steady"),
            slowServer("sabnzbd-slow-b-speedchange", "24 MiB, the rate halved at 55 %", "slow-b-speedchange"),
            slowServer("sabnzbd-slow-e-repair", "3 articles missing, repaired by par2", "slow-e-repair"),
            slowServer("sabnzbd-slow-g-unrepairable", "15 % missing, 2 % par2: failed", "slow-g-unrepairable"),
            slowServer("sabnzbd-slow-h-stall", "12 MiB, the server silent 45 s at 40 %", "slow-h-stall"),
            slowServer("sabnzbd-slow-i-pause-job", "12 MiB, one job paused 60 s at 30 %", "slow-i-pause-job"),
            // The same recordings from a server 60 times slower: hour-long jobs counted in whole
            // articles a minute or more apart, polled every 30 s.
            slower("sabnzbd-a-steady-1h", "60 MiB at 17 KiB/s", "sabnzbd/a-steady"),
            slower("sabnzbd-b-speedchange-1h", "the rate halved at 50 %", "sabnzbd/b-speedchange"),
            slower("sabnzbd-e-repair-1h", "repaired by par2 (the total grows)", "sabnzbd/e-repair"),
            slower("sabnzbd-g-unrepairable-13m", "15 % missing, 2 % par2: failed", "sabnzbd/g-unrepairable"),
            slower("sabnzbd-h-stall-1h", "the news server silent 15 min at 40 %", "sabnzbd/h-stall"),
            slower("sabnzbd-i-pause-job-1h", "one job paused 20 min at 30 %", "sabnzbd/i-pause-job"),
            slower(
                "sabnzbd-e-repair-40mib-1h", "par2 volumes struck off after the first answer",
                "sabnzbd/e-repair-40mib"),
            slower(
                "sabnzbd-b-speedchange-80mib-85m", "80 MiB, the rate halved at 51 %", "sabnzbd/b-speedchange-80mib"),
            BenchTrajectory(
                "ha-washer-12m", .washer,
                "real Home Assistant 2024.3: the 8-minute program's phases over 12 minutes",
                AdapterRecording(
                    "homeassistant/washer-12m.jsonl",
                    format: HomeAssistantSource.replayFormat),
                typical: false),
            BenchTrajectory(
                "ha-washer-15m", .washer,
                "real Home Assistant 2024.3: a 15-minute program, whole % every 30 s, whole minutes every 60 s",
                AdapterRecording(
                    "homeassistant/washer-15m.jsonl", format: HomeAssistantSource.replayFormat),
                typical: false),
            BenchTrajectory(
                "ha-washer-8m", .washer,
                "real Home Assistant 2024.3: progress in whole % every 30 s, remaining in whole minutes every 60 s",
                AdapterRecording(
                    "homeassistant/washer-8m.jsonl", format: HomeAssistantSource.replayFormat
                )),
            BenchTrajectory(
                "download-\(label(7200 * scale))-steady", .download,
                "synthetic SABnzbd: \(Int(72 * scale)) GB at 10 MB/s ±5 %, 2 s polls",
                SyntheticTrajectory { base in
                    SyntheticJobs.download(
                        seed: 11, totalBytes: 72e9 * scale, regimes: [.init(bytesPerSecond: 10e6, seconds: nil)],
                        base: base)
                }),
            BenchTrajectory(
                "download-\(label(7200 * scale))-varying", .download,
                "synthetic SABnzbd: \(Int(55 * scale)) GB, speed 11→3→0→9→5→10 MB/s, 2 s polls",
                SyntheticTrajectory { base in
                    SyntheticJobs.download(
                        seed: 12, totalBytes: 55e9 * scale,
                        regimes: [
                            .init(bytesPerSecond: 11e6, seconds: 1200 * scale),
                            .init(bytesPerSecond: 3e6, seconds: 900 * scale),
                            .init(bytesPerSecond: 0, seconds: 240 * scale),
                            .init(bytesPerSecond: 9e6, seconds: 1500 * scale),
                            .init(bytesPerSecond: 5e6, seconds: 1200 * scale),
                            .init(bytesPerSecond: 10e6, seconds: nil),
                        ], base: base)
                }),
            BenchTrajectory(
                "print-\(label(10800 * scale))", .print,
                "synthetic Bambu: \(label(10800 * scale)) slicer estimate, mc_percent steps, minute estimates",
                SyntheticTrajectory { base in SyntheticJobs.print(seed: 21, slicerMinutes: 180 * scale, base: base) }),
            BenchTrajectory(
                "print-\(label(3600 * scale))-pause", .print,
                "synthetic Bambu: \(label(3600 * scale)) print, filament-change pause at 60 %",
                SyntheticTrajectory { base in
                    SyntheticJobs.print(
                        seed: 22, slicerMinutes: 60 * scale, pauseAtFraction: 0.6, pauseMinutes: 6 * scale, base: base)
                }),
            BenchTrajectory(
                "bambu-p1-3h", .print, "simulated P1 print through the Bambu adapter: 300 layers, speed ±30 %",
                AdapterRecording(
                    "bambu/p1-3h-print.jsonl",
                    format: BambuSource.replayFormat)),
            BenchTrajectory(
                "ha-washer-30m", .washer,
                "Home Assistant washer through the HA adapter: timer + progress sensor + program",
                AdapterRecording(
                    "homeassistant/washer_cycle_30min.jsonl",
                    format: HomeAssistantSource.replayFormat)),
            BenchTrajectory(
                "washer-30m", .washer, "synthetic Home Assistant timer: 30 min, fixed finishes_at",
                SyntheticTrajectory { base in SyntheticJobs.washer(minutes: 30, base: base) }),
        ]
    }

    /// A real SABnzbd recording under `bench/recordings/sabnzbd/<folder>/raw.jsonl`, through the adapter.
    static func recorded(_ name: String, _ summary: String, _ folder: String, typical: Bool = true) -> BenchTrajectory {
        BenchTrajectory(
            name, .download, "SABnzbd 4.5.0 recording: \(summary)",
            AdapterRecording(
                "sabnzbd/\(folder)/raw.jsonl", format: SABnzbdSource.replayFormat),
            typical: typical)
    }

    /// A real recording from a slow news server (`bench/recordings/sabnzbd/<folder>`): a stress
    /// variant, not drawn into the month.
    static func slowServer(_ name: String, _ summary: String, _ folder: String) -> BenchTrajectory {
        recorded(name, "slow server: \(summary)", folder, typical: false)
    }

    /// A SABnzbd recording in `folder` played 60 times slower (`StretchedSABnzbdRecording`).
    static func slower(_ name: String, _ summary: String, _ folder: String) -> BenchTrajectory {
        BenchTrajectory(
            name, .download, "SABnzbd 4.5.0 recording ×60 slower: \(summary)",
            StretchedSABnzbdRecording(
                recording: AdapterRecording("\(folder)/raw.jsonl", format: SABnzbdSource.replayFormat),
                factor: 60), typical: false)
    }

    /// `3h`, `24m`: a duration for a job's name.
    static func label(_ seconds: Double) -> String {
        seconds >= 3600 && (seconds / 3600).rounded() == seconds / 3600
            ? "\(Int(seconds / 3600))h" : "\(Int((seconds / 60).rounded()))m"
    }

    /// The recordings directory: `explicit`, else `bench/recordings` in the working directory or
    /// the nearest parent that has one.
    static func directory(explicit: String?) -> String {
        if let explicit { return explicit }
        var candidate = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<8 {
            let path = candidate.appendingPathComponent("bench/recordings").path
            if FileManager.default.fileExists(atPath: path) { return path }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { break }
            candidate = parent
        }
        return "bench/recordings"
    }
}
