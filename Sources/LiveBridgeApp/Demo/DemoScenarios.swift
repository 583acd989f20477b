import Glibc
import LiveBridgeCore

/// The demo's simulated sources, written as what each source would send: SABnzbd API answers,
/// Bambu printer reports, Home Assistant WebSocket messages. They go through the real adapters'
/// replay (mapping) code, so the demo shows exactly what LiveBridge would do with the real thing.
enum DemoScenarios {
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
    static func sabnzbd() -> [String] {
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

    /// A P1-style print: preparing, heating and levelling, 180 layers over 40 minutes, a filament
    /// runout pause, then completion; one report every 10 s.
    static func bambu() -> [String] {
        var lines: [String] = []
        func report(_ t: Double, _ fields: [String: JSONValue]) {
            var print = fields
            print["command"] = "push_status"
            print["msg"] = 0
            lines.append(JSONWriter.string(["t": .number(t), "payload": ["print": .object(print)]]))
        }
        let job: [String: JSONValue] = ["subtask_name": "benchy_0.2mm_PLA", "gcode_file": "benchy.gcode.3mf"]
        var t = 0.0
        report(t, job.merging(["gcode_state": "IDLE", "mc_percent": 0, "nozzle_temper": 27, "bed_temper": 25]) { $1 })
        t += 5
        report(t, job.merging(["gcode_state": "PREPARE", "gcode_file_prepare_percent": 40, "stg_cur": 0]) { $1 })
        t += 10
        for (stage, duration) in [(2, 60.0), (1, 90.0), (14, 40.0), (8, 50.0)] {
            var elapsed = 0.0
            while elapsed < duration {
                report(
                    t,
                    job.merging([
                        "gcode_state": "RUNNING", "stg_cur": .int(Int64(stage)), "mc_percent": 0, "layer_num": 0,
                        "total_layer_num": 180, "mc_remaining_time": 42,
                        "nozzle_temper": .number(min(220, 60 + elapsed * 3)),
                        "bed_temper": .number(min(65, 30 + elapsed)),
                    ]) { $1 })
                t += 10
                elapsed += 10
            }
        }
        let printSeconds = 40.0 * 60
        var printed = 0.0
        var paused = false
        while printed < printSeconds {
            let fraction = printed / printSeconds
            if !paused && fraction >= 0.55 {
                paused = true
                for _ in 0..<18 {
                    report(
                        t,
                        [
                            "gcode_state": "PAUSE", "stg_cur": 6, "mc_percent": .int(Int64(fraction * 100)),
                            "print_error": .int(0x0300_8015),
                        ])
                    t += 10
                }
                report(t, ["gcode_state": "RUNNING", "stg_cur": 0, "print_error": 0])
                t += 10
            }
            let percent = Int(fraction * 100)
            let layer = Int(fraction * 180)
            report(
                t,
                [
                    "gcode_state": "RUNNING", "stg_cur": 0, "mc_percent": .int(Int64(percent)),
                    "layer_num": .int(Int64(layer)),
                    "total_layer_num": 180,
                    "mc_remaining_time": .int(Int64(((printSeconds - printed) / 60).rounded(.up))),
                    "nozzle_temper": 220, "bed_temper": 65, "spd_lvl": 2,
                ])
            t += 10
            printed += 10
        }
        report(t, ["gcode_state": "FINISH", "mc_percent": 100, "layer_num": 180, "mc_remaining_time": 0])
        t += 10
        report(t, ["gcode_state": "FINISH", "mc_percent": 100, "layer_num": 180, "mc_remaining_time": 0])
        return lines
    }

    /// A 30-minute washer: the program state drives the label, a percentage sensor the bar and a
    /// timer's `finishes_at` the end, as a Home Assistant would send them.
    static func washer(start: Double) -> [String] {
        var lines: [String] = []
        let header: JSONValue = [
            "homeassistant": [
                "entities": [
                    [
                        "entity": "input_select.washer_state", "slug": "ha-washer", "name": "Washer",
                        "startStates": ["washing", "rinsing", "spinning"], "endStates": ["finished", "idle"],
                        "progress": "sensor.washer_progress",
                        "remaining": ["entity": "timer.washer", "attribute": "finishes_at"],
                        "stateLabels": [
                            "washing": "Washing", "rinsing": "Rinsing", "spinning": "Spinning", "finished": "Done",
                        ],
                        "icon": "washer.fill", "color": "cyan",
                    ]
                ]
            ],
            "start": .number(start),
        ]
        lines.append(JSONWriter.string(header))
        func message(_ t: Double, _ event: JSONValue) {
            lines.append(
                JSONWriter.string(["t": .number(t), "dir": "in", "msg": ["type": "event", "id": 2, "event": event]]))
        }
        lines.append(
            JSONWriter.string([
                "t": 0.002, "dir": "out",
                "msg": [
                    "id": 2, "type": "subscribe_entities",
                    "entity_ids": ["input_select.washer_state", "sensor.washer_progress", "timer.washer"],
                ],
            ]))
        message(
            0.004,
            [
                "a": [
                    "input_select.washer_state": [
                        "s": "idle", "a": ["friendly_name": "Washer state"], "lc": .number(start),
                    ],
                    "sensor.washer_progress": [
                        "s": "0", "a": ["unit_of_measurement": "%", "friendly_name": "Washer progress"],
                        "lc": .number(start),
                    ],
                    "timer.washer": [
                        "s": "idle", "a": ["duration": "0:30:00", "friendly_name": "Washer"], "lc": .number(start),
                    ],
                ]
            ])
        let finishes = start + 5 + 1800
        message(5, ["c": ["input_select.washer_state": ["+": ["s": "washing", "lc": .number(start + 5)]]]])
        message(
            5.02,
            [
                "c": [
                    "timer.washer": [
                        "+": [
                            "s": "active", "lc": .number(start + 5.02),
                            "a": ["finishes_at": .string(RFC3339.format(finishes)), "remaining": "0:30:00"],
                        ]
                    ]
                ]
            ])
        var t = 65.0
        while t < 1805 {
            let elapsed = t - 5
            let percent = Int((elapsed / 1800 * 100).rounded(.down))
            message(
                t, ["c": ["sensor.washer_progress": ["+": ["s": .string(String(percent)), "lc": .number(start + t)]]]])
            if abs(elapsed - 960) < 30 {
                message(
                    t + 0.3,
                    ["c": ["input_select.washer_state": ["+": ["s": "rinsing", "lc": .number(start + t + 0.3)]]]])
            }
            if abs(elapsed - 1440) < 30 {
                message(
                    t + 0.3,
                    ["c": ["input_select.washer_state": ["+": ["s": "spinning", "lc": .number(start + t + 0.3)]]]])
            }
            t += 60
        }
        message(1805, ["c": ["timer.washer": ["+": ["s": "idle", "lc": .number(start + 1805)]]]])
        message(1805.2, ["c": ["sensor.washer_progress": ["+": ["s": "100", "lc": .number(start + 1805.2)]]]])
        message(1805.4, ["c": ["input_select.washer_state": ["+": ["s": "finished", "lc": .number(start + 1805.4)]]]])
        return lines
    }
}
