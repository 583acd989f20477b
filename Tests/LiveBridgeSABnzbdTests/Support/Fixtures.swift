import Foundation
import LiveBridgeCore
import LiveBridgeSABnzbd
import LiveBridgeTestSupport
import Synchronization

/// The recorded SABnzbd answers: the 5.0 samples under `Fixtures/` (see its README), the 4.5.0
/// scenario recordings under `bench/recordings/sabnzbd/` (the bench replays them too; see its README).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    /// `bench/recordings/sabnzbd` of this checkout.
    /// `path` under `Fixtures/` when it is there, else under `bench/recordings/sabnzbd/`.
    static func url(_ path: String) -> URL { Checkout.recording(path, fixtures: directory, source: "sabnzbd") }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: url(path), encoding: .utf8)
    }

    static func lines(_ path: String) throws -> [String] {
        try text(path).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    static func json(_ path: String) throws -> JSONValue {
        try JSONParser.parse(text(path))
    }

    private static let decoded = Mutex<[String: [SABnzbdObservation]]>([:])

    /// A recording's observations, decoded once per test run (the files are large for a debug
    /// build), with `t` made relative to the first line.
    static func observations(_ path: String) throws -> [SABnzbdObservation] {
        if let cached = decoded.withLock({ $0[path] }) { return cached }
        var observations = try SABnzbdReplay.observations(fromJSONLines: lines(path))
        let first = observations.first?.time ?? 0
        for index in observations.indices { observations[index].time -= first }
        decoded.withLock { $0[path] = observations }
        return observations
    }

    /// The session mapping's updates for a recording, starting at `base`.
    static func replay(
        _ path: String, settings: SABnzbdMapperSettings, startingAt base: Double = 0, pollInterval: Double = 0
    ) throws -> [ActivityUpdate] {
        var observations = try observations(path)
        for index in observations.indices { observations[index].time += base }
        return SABnzbdReplay.updates(from: observations, settings: settings, pollInterval: pollInterval)
    }

    /// The 4.5.0 scenario recordings and the 5.0 runs, as `raw.jsonl`-style files.
    static let recordings = [
        "a-steady/raw.jsonl", "c-two-jobs/raw.jsonl", "d-pause-resume/raw.jsonl", "f-failed/raw.jsonl",
        "sab5-samples/run2.jsonl", "sab5-samples/run3.jsonl", "sab5-samples/run45.jsonl",
    ]
}

/// Small builders for hand-made answers (sizes in MiB, as SABnzbd writes them).
enum Make {
    static let mib = 1_048_576.0

    static func slot(
        _ id: String, _ name: String? = nil, status: String = "Downloading", mb: Double, left: Double,
        labels: [String] = []
    ) -> SABnzbdQueueSlot {
        SABnzbdQueueSlot(
            id: id, name: name ?? "Job.\(id)", status: status, totalBytes: mb * mib, remainingBytes: left * mib,
            labels: labels)
    }

    static func queue(
        _ slots: [SABnzbdQueueSlot], status: String? = nil, paused: Bool = false, kbps: Double = 1024,
        timeleft: String = "0:01:00"
    ) -> SABnzbdQueue {
        SABnzbdQueue(
            status: status ?? (paused ? "Paused" : slots.isEmpty || kbps == 0 ? "Idle" : "Downloading"), paused: paused,
            bytesPerSecond: kbps * 1024, totalBytes: slots.reduce(0) { $0 + $1.totalBytes },
            remainingBytes: slots.reduce(0) { $0 + $1.remainingBytes }, timeLeft: timeleft, slots: slots,
            version: "4.5.0")
    }

    static func done(
        _ id: String, _ name: String? = nil, status: String = "Completed", mb: Double = 10, failMessage: String = "",
        loaded: Bool = false, actionLine: String = "", downloadTime: Double = 10, postProcessingTime: Double = 0,
        completed: Double? = nil
    ) -> SABnzbdHistorySlot {
        SABnzbdHistorySlot(
            id: id, name: name ?? "Job.\(id)", status: status, loaded: loaded, actionLine: actionLine,
            failMessage: failMessage, bytes: mb * mib, downloadTime: downloadTime,
            postProcessingTime: postProcessingTime,
            completed: completed)
    }

    static func history(_ slots: [SABnzbdHistorySlot]) -> SABnzbdHistory {
        SABnzbdHistory(slots: slots)
    }
}

extension ActivityUpdate {
    var stateText: String { content.state.value ?? "" }
    var subtitleText: String { content.subtitle.value ?? "" }
    var finishTime: Double? { eta.map { $0.finish(observedAt: observedAt ?? 0) } }
    var isEnd: Bool { phase.isEnded }
}

extension Array where Element == ActivityUpdate {
    /// The state texts with repeats removed: the phases a person saw.
    var stateSequence: [String] {
        var result: [String] = []
        for update in self where result.last != update.stateText { result.append(update.stateText) }
        return result
    }
}
