import LiveBridgeCore

/// `livebridge demo`'s print, written as a Bambu printer reports it; it plays through the
/// adapter's own replay mapping.
enum BambuDemo {
    /// A P1-style print: preparing, heating and levelling, 180 layers over 40 minutes, a filament
    /// runout pause, then completion; one report every 10 s.
    static func lines() -> [String] {
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
}
