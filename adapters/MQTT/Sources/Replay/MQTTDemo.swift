import LiveBridgeCore

/// `livebridge demo`'s Klipper print, written as Moonraker's `[mqtt]` publishes it (a full status,
/// then deltas) with the slicer's estimate answered over its JSON-RPC; it plays through the MQTT
/// source's own replay mapping (the `moonraker` preset).
enum MQTTDemo {
    /// A 30-minute print (the slicer said 33), a 2-minute pause at 40 %, then completion; a delta
    /// every 10 s.
    static func lines() -> [String] {
        let topic = "voron/klipper/status"
        var lines = [
            JSONWriter.string([
                "mqtt": [
                    "preset": "moonraker", "instance": "voron", "slicerEstimate": true, "slug": "klipper-demo",
                    "displayName": "Voron 2.4",
                ]
            ])
        ]
        func message(_ t: Double, _ topic: String, _ payload: JSONValue) {
            lines.append(JSONWriter.string(["t": .number(t), "topic": .string(topic), "payload": payload]))
        }
        func status(_ t: Double, _ printStats: JSONValue, progress: Double? = nil) {
            var status: [String: JSONValue] = ["print_stats": printStats]
            if let progress { status["display_status"] = ["progress": .number((progress * 1000).rounded() / 1000)] }
            message(t, topic, ["eventtime": .number(4_210 + t), "status": .object(status)])
        }
        message(0, "voron/moonraker/status", ["server": "online"])
        status(0, ["state": "standby", "filename": "", "print_duration": 0], progress: 0)
        status(5, ["state": "printing", "filename": "voron_cube.gcode", "print_duration": 0], progress: 0)
        message(
            5.2, "voron/moonraker/api/response",
            [
                "jsonrpc": "2.0", "id": 1,
                "result": ["filename": "voron_cube.gcode", "estimated_time": 1980, "slicer": "PrusaSlicer"],
            ])
        let seconds = 1800.0
        var t = 5.0
        var printed = 0.0
        var paused = false
        while printed < seconds {
            t += 10
            printed += 10
            // The first layers are slow: the file position runs behind the clock, then catches up.
            let fraction = printed / seconds
            let progress = min(1, fraction < 0.1 ? fraction * 0.6 : 0.06 + (fraction - 0.1) * 0.94 / 0.9)
            if !paused, progress >= 0.4 {
                paused = true
                status(t, ["state": "paused"])
                t += 120
                status(t, ["state": "printing"])
            }
            status(t, ["print_duration": .number(printed)], progress: progress)
        }
        status(t + 10, ["state": "complete"], progress: 1)
        return lines
    }
}
