import Glibc
import LiveBridgeCore
import LiveBridgeKit

/// `livebridge demo`'s download, written as SABnzbd would answer it; it plays through the
/// adapter's own replay mapping, so the demo shows what LiveBridge does with the real thing.
enum SABnzbdDemo {
    /// One poll of SABnzbd: queue and history answers, `t` seconds into the scenario.
    private static func sabLine(_ t: Double, queue: JSONValue, history: JSONValue) -> String {
        JSONWriter.string(["t": .number(t), "queue": ["queue": queue], "history": ["history": history]])
    }

    private static func clock(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded()))
        return "\(total / 3600):\((total / 60 % 60).twoDigits):\((total % 60).twoDigits)"
    }

    /// A 24 GB download at about 48 MB/s that drops to 22 MB/s halfway, then verification,
    /// extraction and moving, then a green summary; polled every 3 s.
    static func lines() -> [String] {
        let name = "ubuntu-24.04.1-desktop-amd64.iso"
        let id = "SABnzbd_nzo_demo0001"
        let totalMB = 24_000.0
        var lines: [String] = []
        let emptyHistory: JSONValue = ["slots": [], "noofslots": 0, "ppslots": 0]
        func queue(status: String, mbLeft: Double, speedKB: Double, slotStatus: String) -> JSONValue {
            let seconds = speedKB > 0 ? mbLeft * 1024 / speedKB : 0
            let slot: JSONValue = [
                "index": 0, "nzo_id": .string(id), "filename": .string(name), "status": .string(slotStatus),
                "mb": .string(totalMB.decimalText(digits: 2)), "mbleft": .string(mbLeft.decimalText(digits: 2)),
                "percentage": .string(String(Int((1 - mbLeft / totalMB) * 100))), "timeleft": .string(clock(seconds)),
                "cat": "*", "priority": "Normal", "mbmissing": "0.00",
            ]
            return [
                "status": .string(status), "paused": false, "kbpersec": .string(speedKB.decimalText(digits: 2)),
                "speed": .string((speedKB / 1024).decimalText(digits: 1) + " M"),
                "mb": .string(totalMB.decimalText(digits: 2)),
                "mbleft": .string(mbLeft.decimalText(digits: 2)), "timeleft": .string(clock(seconds)),
                "noofslots": 1, "noofslots_total": 1, "slots": [slot],
            ]
        }
        let idle: JSONValue = [
            "status": "Idle", "paused": false, "kbpersec": "0.00", "speed": "0 ", "mb": "0.00", "mbleft": "0.00",
            "timeleft": "0:00:00", "noofslots": 0, "noofslots_total": 0, "slots": [],
        ]
        var t = 0.0
        lines.append(sabLine(t, queue: idle, history: emptyHistory))
        t += 3
        var left = totalMB
        while left > 0 {
            let speedMB = left > totalMB / 2 ? 48.0 + 3 * sin(t / 17) : 22.0 + 2 * sin(t / 13)
            lines.append(
                sabLine(
                    t,
                    queue: queue(
                        status: "Downloading", mbLeft: left, speedKB: speedMB * 1024, slotStatus: "Downloading"),
                    history: emptyHistory))
            left = max(0, left - speedMB * 3)
            t += 3
        }
        let downloadTime = Int(t)
        let stages: [(String, String, Double)] = [
            ("Verifying", "Verifying: 42/42", 24), ("Extracting", "Unpacking: 3/3", 45), ("Moving", "Moving", 6),
        ]
        for (status, action, duration) in stages {
            var elapsed = 0.0
            while elapsed < duration {
                let slot: JSONValue = [
                    "nzo_id": .string(id), "name": .string(name), "status": .string(status),
                    "action_line": .string(action),
                    "loaded": true, "bytes": .int(Int64(totalMB * 1_048_576)),
                    "download_time": .int(Int64(downloadTime)),
                    "postproc_time": 0, "fail_message": "",
                ]
                lines.append(sabLine(t, queue: idle, history: ["slots": [slot], "noofslots": 1, "ppslots": 1]))
                t += 3
                elapsed += 3
            }
        }
        let done: JSONValue = [
            "nzo_id": .string(id), "name": .string(name), "status": "Completed", "action_line": "", "loaded": false,
            "bytes": .int(Int64(totalMB * 1_048_576)), "download_time": .int(Int64(downloadTime)), "postproc_time": 75,
            "fail_message": "", "completed": .int(Int64(t)),
        ]
        for _ in 0..<6 {
            lines.append(sabLine(t, queue: idle, history: ["slots": [done], "noofslots": 1, "ppslots": 0]))
            t += 3
        }
        return lines
    }
}
