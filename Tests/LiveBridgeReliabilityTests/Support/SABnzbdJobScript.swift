import LiveBridgeCore

/// One SABnzbd download as a function of time, answered in SABnzbd 4.5's API shapes (the same
/// members the recordings under `Tests/LiveBridgeSABnzbdTests/Fixtures` carry).
///
/// The job is queued at `start`, downloads `totalMiB` at `rateMiBps` and lands in the history as
/// `Completed` when the last byte is in — or earlier, at `finishedAt`, when a test says so.
/// Before `start` and after the end SABnzbd is idle. Used both by `ScriptedSABnzbd` (answers on
/// a real socket) and by the pure replay path (`lines`).
struct SABnzbdJobScript: Sendable {
    var id = "SABnzbd_nzo_reliab01"
    var name = "Reliability.Job"
    var totalMiB: Double
    var rateMiBps: Double
    var start: Double
    /// Forces the end before the last byte (the test finishing a job it drives by hand).
    var finishedAt: Double?

    static let mebibyte = 1_048_576.0

    /// When the job leaves the queue.
    var end: Double { finishedAt ?? (start + totalMiB / rateMiBps) }

    /// MiB still to download at `t` (nil before the start and after the end).
    func remaining(at t: Double) -> Double? {
        guard t >= start, t < end else { return nil }
        // SABnzbd moves mbleft in steps of a few articles; whole 0.5 MiB steps are close enough.
        let done = ((t - start) * rateMiBps * 2).rounded(.down) / 2
        return max(0.5, totalMiB - done)
    }

    /// `mode=queue` as SABnzbd answers it.
    func queueAnswer(at t: Double) -> JSONValue {
        var slots: [JSONValue] = []
        var left = 0.0
        var total = 0.0
        var rate = 0.0
        if let remaining = remaining(at: t) {
            left = remaining
            total = totalMiB
            rate = rateMiBps
            let percent = Int(100 * (1 - remaining / totalMiB))
            slots.append([
                "index": 0, "nzo_id": .string(id), "filename": .string(name), "labels": [], "cat": "*",
                "priority": "Normal", "status": "Downloading", "mb": .string(Self.format(totalMiB)),
                "mbleft": .string(Self.format(remaining)), "percentage": .string(String(percent)),
                "timeleft": .string(Self.clock(remaining / rateMiBps)), "mbmissing": "0.00",
            ])
        }
        return [
            "queue": [
                "version": "4.5.0", "paused": false, "status": slots.isEmpty ? "Idle" : "Downloading",
                "kbpersec": .string(Self.format(rate * 1024)), "mb": .string(Self.format(total)),
                "mbleft": .string(Self.format(left)), "timeleft": .string(Self.clock(rate > 0 ? left / rate : 0)),
                "noofslots_total": .int(Int64(slots.count)), "noofslots": .int(Int64(slots.count)),
                "slots": .array(slots),
            ]
        ]
    }

    /// `mode=history` as SABnzbd answers it.
    func historyAnswer(at t: Double) -> JSONValue {
        var slots: [JSONValue] = []
        if t >= end {
            let downloaded = finishedAt.map { max(0, $0 - start) * rateMiBps } ?? totalMiB
            slots.append([
                "completed": .int(Int64(end.rounded())), "name": .string(name), "nzb_name": .string(name + ".nzb"),
                "status": "Completed", "nzo_id": .string(id), "download_time": .int(Int64((end - start).rounded())),
                "postproc_time": 0, "bytes": .int(Int64(min(downloaded, totalMiB) * Self.mebibyte)),
                "fail_message": "", "action_line": "", "loaded": false,
            ])
        }
        return [
            "history": [
                "version": "4.5.0", "slots": .array(slots), "ppslots": 0, "noofslots": .int(Int64(slots.count)),
            ]
        ]
    }

    /// The job as a `livebridge replay` recording: one `{"t", "queue", "history"}` line per poll.
    func lines(from first: Double, through last: Double, every interval: Double) -> [String] {
        stride(from: first, through: last, by: interval).map { t in
            JSONWriter.string(["t": .number(t), "queue": queueAnswer(at: t), "history": historyAnswer(at: t)])
        }
    }

    static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func clock(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded()))
        let minutes = total / 60 % 60
        let secs = total % 60
        return "\(total / 3600):\(minutes < 10 ? "0" : "")\(minutes):\(secs < 10 ? "0" : "")\(secs)"
    }
}
