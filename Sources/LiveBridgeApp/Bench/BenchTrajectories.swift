import Foundation

/// The jobs the benchmark replays, one line each.
///
/// To run a recording through an adapter's real mapping instead of the bench's stand-in, change
/// the line's source, e.g.
///
///     BenchTrajectory("sabnzbd-a-steady", .download, "…",
///         AdapterRecording("sabnzbd-a-steady.raw.jsonl", format: StandardComponents.sabnzbdReplay.format)),
///
/// (commit the raw recording next to the others). Every figure of the report follows.
enum BenchTrajectories {
    static let standard: [BenchTrajectory] = [
        BenchTrajectory(
            "sabnzbd-a-steady", .download, "SABnzbd 4.5.0 recording: 60 MiB at a steady 1 MiB/s",
            RecordedObservations("sabnzbd-a-steady.jsonl")),
        BenchTrajectory(
            "sabnzbd-c-two-jobs", .download, "SABnzbd 4.5.0 recording: two 30 MiB jobs, then post-processing",
            RecordedObservations("sabnzbd-c-two-jobs.jsonl")),
        BenchTrajectory(
            "sabnzbd-d-pause-resume", .download, "SABnzbd 4.5.0 recording: 60 MiB, paused 20 s at 32 %",
            RecordedObservations("sabnzbd-d-pause-resume.jsonl")),
        BenchTrajectory(
            "sabnzbd-f-failed", .download, "SABnzbd 4.5.0 recording: every article missing, failed",
            RecordedObservations("sabnzbd-f-failed.jsonl")),
        BenchTrajectory(
            "download-2h-steady", .download, "synthetic SABnzbd: 72 GB at 10 MB/s ±5 %, 2 s polls",
            SyntheticTrajectory { base in
                SyntheticJobs.download(
                    seed: 11, totalBytes: 72e9, regimes: [.init(bytesPerSecond: 10e6, seconds: nil)], base: base)
            }),
        BenchTrajectory(
            "download-2h-varying", .download, "synthetic SABnzbd: 55 GB, speed 11→3→0→9→5→10 MB/s, 2 s polls",
            SyntheticTrajectory { base in
                SyntheticJobs.download(
                    seed: 12, totalBytes: 55e9,
                    regimes: [
                        .init(bytesPerSecond: 11e6, seconds: 1200), .init(bytesPerSecond: 3e6, seconds: 900),
                        .init(bytesPerSecond: 0, seconds: 240), .init(bytesPerSecond: 9e6, seconds: 1500),
                        .init(bytesPerSecond: 5e6, seconds: 1200), .init(bytesPerSecond: 10e6, seconds: nil),
                    ], base: base)
            }),
        BenchTrajectory(
            "print-3h", .print, "synthetic Bambu: 3 h slicer estimate, mc_percent steps, minute estimates",
            SyntheticTrajectory { base in SyntheticJobs.print(seed: 21, slicerMinutes: 180, base: base) }),
        BenchTrajectory(
            "print-1h-pause", .print, "synthetic Bambu: 1 h print, 6 min filament-change pause at 60 %",
            SyntheticTrajectory { base in
                SyntheticJobs.print(seed: 22, slicerMinutes: 60, pauseAtFraction: 0.6, pauseMinutes: 6, base: base)
            }),
        BenchTrajectory(
            "washer-30m", .washer, "synthetic Home Assistant timer: 30 min, fixed finishes_at",
            SyntheticTrajectory { base in SyntheticJobs.washer(minutes: 30, base: base) }),
    ]

    /// `--quick`: every kind once, the long ones included (they cost milliseconds).
    static var quick: [BenchTrajectory] { standard }

    /// The trajectories directory: `explicit`, else `bench/trajectories` in the working directory
    /// or the nearest parent that has one.
    static func directory(explicit: String?) -> String {
        if let explicit { return explicit }
        var candidate = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<8 {
            let path = candidate.appendingPathComponent("bench/trajectories").path
            if FileManager.default.fileExists(atPath: path) { return path }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { break }
            candidate = parent
        }
        return "bench/trajectories"
    }
}
