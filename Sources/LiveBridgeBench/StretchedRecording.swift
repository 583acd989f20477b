import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeSABnzbd

/// A real SABnzbd recording played `factor` times slower: the same bytes over a server that much
/// slower, polled as recorded (so `factor` × the recorded interval apart). Every time in it is
/// stretched from the first poll — the poll times, `kbpersec` divided, `timeleft` and the
/// history's `download_time`, `postproc_time` and `completed` multiplied — so what SABnzbd says
/// stays consistent with what it counts. The family this makes is a slow download counted in
/// whole articles: a step every minute or more, a job polled twice a minute.
struct StretchedSABnzbdRecording: TrajectorySource {
    var recording: AdapterRecording
    var factor: Double
    var origin: String { recording.origin + ", ×\(Int(factor)) slower" }

    func updates(base: Double, directory: String) throws(BenchError) -> [ActivityUpdate] {
        let path = directory.hasSuffix("/") ? directory + recording.file : directory + "/" + recording.file
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError("cannot read recording \(path)")
        }
        var lines: [String] = []
        var origin: Double?
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard var object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw BenchError("\(path): a line that is not a JSON object")
            }
            let start = origin ?? (object["t"] as? Double) ?? 0
            origin = start
            func stretch(_ time: Double) -> Double { start + (time - start) * factor }
            for key in ["t", "t_history"] { if let t = object[key] as? Double { object[key] = stretch(t) } }
            if var answer = object["queue"] as? [String: Any], var queue = answer["queue"] as? [String: Any] {
                if let speed = (queue["kbpersec"] as? String).flatMap(Double.init) {
                    queue["kbpersec"] = String(format: "%.2f", speed / factor)
                }
                if let left = queue["timeleft"] as? String { queue["timeleft"] = Self.clock(left, factor) }
                if let slots = queue["slots"] as? [[String: Any]] {
                    queue["slots"] = slots.map { slot in
                        var slot = slot
                        if let left = slot["timeleft"] as? String { slot["timeleft"] = Self.clock(left, factor) }
                        return slot
                    }
                }
                answer["queue"] = queue
                object["queue"] = answer
            }
            if var answer = object["history"] as? [String: Any], var history = answer["history"] as? [String: Any],
                let slots = history["slots"] as? [[String: Any]]
            {
                history["slots"] = slots.map { slot in
                    var slot = slot
                    for key in ["download_time", "postproc_time"] {
                        if let value = slot[key] as? Double { slot[key] = (value * factor).rounded() }
                    }
                    if let completed = slot["completed"] as? Double, completed > 1e9 {
                        slot["completed"] = stretch(completed).rounded()
                    }
                    return slot
                }
                answer["history"] = history
                object["history"] = answer
            }
            guard let encoded = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
                throw BenchError("\(path): cannot re-encode a stretched line")
            }
            lines.append(String(decoding: encoded, as: UTF8.self))
        }
        do {
            return try recording.format.parse(lines, base)
        } catch {
            throw BenchError("\(path) stretched ×\(factor): \(error)")
        }
    }

    /// SABnzbd's `H:MM:SS` (or `D:HH:MM:SS`) multiplied by `factor`; other text as it was.
    static func clock(_ text: String, _ factor: Double) -> String {
        SABnzbdClock.seconds(text).map { SABnzbdClock.text($0 * factor) } ?? text
    }
}
