import LiveBridgeCore
import LiveBridgeKit

/// The bench corpus families of the generic MQTT source (`MQTTSource.descriptor.trajectories`):
/// each variant is written as the messages the system publishes (OctoPrint-MQTT, Moonraker's
/// `[mqtt]`, a Zigbee2MQTT plug) and read through the source's own mapping (`MQTTReplay`, the
/// preset), as a recording would be.
enum MQTTTrajectories {
    static let families: [TrajectoryFamily] = [
        TrajectoryFamily(
            name: "octoprint",
            summary: "OctoPrint-MQTT print: whole % when it changes, time left on each step, 0–2 pauses, some fail",
            kind: .print
        ) { seed, base in
            var r = SeededRandom(seed: seed)
            return replay(octoPrint(&r), base: base)
        },
        TrajectoryFamily(
            name: "moonraker",
            summary: "Klipper print via Moonraker: status deltas every 1–5 s, file-position progress, 0–1 pause",
            kind: .print
        ) { seed, base in
            var r = SeededRandom(seed: seed)
            return replay(moonraker(&r), base: base)
        },
        TrajectoryFamily(
            name: "moonraker-slicer",
            summary:
                "the Moonraker print with slicerEstimate: the slicer's print time (10–30 % long to 10 % short) from the JSON-RPC answer",
            kind: .print
        ) { seed, base in
            var r = SeededRandom(seed: seed)
            return replay(moonraker(&r, slicerEstimate: true), base: base)
        },
        TrajectoryFamily(
            name: "power-plug",
            summary: "washer on a Zigbee plug: power reports every 10–60 s, soak pauses under the end hold",
            kind: .washer
        ) { seed, base in
            var r = SeededRandom(seed: seed)
            return replay(powerPlug(&r), base: base)
        },
    ]

    /// The messages through the MQTT source's replay (its header names the preset).
    static func replay(_ lines: [String], base: Double) -> [ActivityUpdate] {
        (try? MQTTReplay.updates(lines: lines, base: base)) ?? []
    }

    static func line(_ t: Double, _ topic: String, _ payload: String) -> String {
        "{\"t\": \(t), \"topic\": \"\(topic)\", \"payload\": \(payload)}"
    }

    /// An OctoPrint print: `PrintStarted`, the whole percent published when it changes (checked
    /// every 5 s) with the slicer-based time left, 0–2 pauses, then `PrintDone`, or a failure or
    /// a cancel part-way.
    static func octoPrint(_ r: inout SeededRandom) -> [String] {
        let slicer = r.uniform(20...240) * 60
        let (weights, actual) = SlicedPrint.sections(&r, seconds: slicer, bias: r.uniform(-0.2...0.2))
        let total = actual.reduce(0, +)
        let outcome = r.uniform(0...1)
        let stopAt = outcome < 0.85 ? nil : r.uniform(0.1...0.9) * total
        var pauses: [(at: Double, length: Double)] = (0..<Int(r.uniform(0...2.99))).map { _ in
            (r.uniform(0.1...0.9) * total, r.uniform(60...600))
        }
        pauses.sort { $0.at < $1.at }
        var lines = [#"{"mqtt": {"preset": "octoprint", "slug": "job"}}"#]
        let event = { (t: Double, name: String, extra: String) in
            line(
                t, "octoPrint/event/\(name)",
                #"{"name":"benchy.gcode","path":"benchy.gcode","origin":"local"\#(extra),"_event":"\#(name)"}"#)
        }
        var t = r.uniform(5...30).rounded()
        lines.append(event(t, "PrintStarted", ""))
        var printed = 0.0
        var lastPercent = -1
        while printed < total {
            if let pause = pauses.first, printed >= pause.at {
                pauses.removeFirst()
                lines.append(event(t, "PrintPaused", ""))
                t += pause.length
                lines.append(event(t, "PrintResumed", ""))
            }
            if let stopAt, printed >= stopAt {
                let cancelled = outcome > 0.95
                if cancelled { lines.append(event(t, "PrintCancelled", #","time":\#(printed)"#)) }
                lines.append(
                    event(
                        t + 0.2, "PrintFailed", #","time":\#(printed),"reason":"\#(cancelled ? "cancelled" : "error")""#
                    ))
                return lines
            }
            let done = SlicedPrint.slicerTime(done: printed, weights: weights, actual: actual)
            let percent = Int(min(99, done / slicer * 100))
            if percent != lastPercent {
                lastPercent = percent
                let left = Int((slicer - done).rounded())
                lines.append(
                    line(
                        t, "octoPrint/progress/printing",
                        #"{"location":"local","path":"benchy.gcode","progress":\#(percent),"printer_data":{"progress":{"printTimeLeft":\#(left),"printTime":\#(Int(printed))}}}"#
                    ))
            }
            t += 5
            printed += 5
        }
        lines.append(
            line(t, "octoPrint/progress/printing", #"{"location":"local","path":"benchy.gcode","progress":100}"#))
        lines.append(event(t + 0.3, "PrintDone", #","time":\#(printed)"#))
        return lines
    }

    /// A Klipper print through Moonraker: one full status, then deltas every `status_interval`
    /// (1–5 s) with the file-position progress (bytes, not time: sections differ) and the print
    /// duration (pauses excluded); 0–1 pause; complete, or cancelled or an error part-way. With
    /// `slicerEstimate`, Moonraker answers the source's metadata request with the slicer's time,
    /// which the print runs short of by up to 30 % or over by up to 10 %.
    static func moonraker(_ r: inout SeededRandom, slicerEstimate: Bool = false) -> [String] {
        let seconds = r.uniform(20...360) * 60
        // Bytes per section vs the time it takes: the file position runs ahead or behind the clock.
        let (weights, actual) = SlicedPrint.sections(
            &r, seconds: seconds, bias: slicerEstimate ? r.uniform(-0.3...0.1) : 0)
        let total = actual.reduce(0, +)
        let interval = r.uniform(1...5).rounded()
        let outcome = r.uniform(0...1)
        let stopAt = outcome < 0.85 ? nil : r.uniform(0.1...0.9) * total
        var pause: (at: Double, length: Double)? =
            r.uniform(0...1) < 0.5 ? (r.uniform(0.1...0.9) * total, r.uniform(60...900)) : nil
        let topic = "voron/klipper/status"
        var lines = [
            #"{"mqtt": {"preset": "moonraker", "instance": "voron", "slug": "job", "slicerEstimate": \#(slicerEstimate)}}"#
        ]
        var t = 0.0
        let clockOffset = r.uniform(1000...900_000)
        lines.append(
            line(
                t, topic,
                #"{"eventtime":\#(clockOffset),"status":{"print_stats":{"state":"printing","filename":"cube.gcode","print_duration":0},"display_status":{"progress":0},"virtual_sdcard":{"progress":0,"is_active":true}}}"#
            ))
        if slicerEstimate {
            lines.append(
                line(
                    0.3, "voron/moonraker/api/response",
                    #"{"jsonrpc":"2.0","result":{"filename":"cube.gcode","estimated_time":\#(seconds.rounded()),"slicer":"PrusaSlicer"},"id":1}"#
                ))
        }
        var printed = 0.0
        while printed < total {
            t += interval
            printed += interval
            if let current = pause, printed >= current.at {
                pause = nil
                lines.append(
                    line(t, topic, #"{"eventtime":\#(clockOffset + t),"status":{"print_stats":{"state":"paused"}}}"#))
                t += current.length
                lines.append(
                    line(t, topic, #"{"eventtime":\#(clockOffset + t),"status":{"print_stats":{"state":"printing"}}}"#))
            }
            if let stopAt, printed >= stopAt {
                let state = outcome > 0.95 ? "error" : "cancelled"
                lines.append(
                    line(t, topic, #"{"eventtime":\#(clockOffset + t),"status":{"print_stats":{"state":"\#(state)"}}}"#)
                )
                return lines
            }
            let progress = min(1, SlicedPrint.slicerTime(done: printed, weights: weights, actual: actual) / seconds)
            lines.append(
                line(
                    t, topic,
                    #"{"eventtime":\#(clockOffset + t),"status":{"print_stats":{"print_duration":\#(printed)},"display_status":{"progress":\#((progress * 10_000).rounded() / 10_000)}}}"#
                ))
        }
        lines.append(
            line(
                t + interval, topic,
                #"{"eventtime":\#(clockOffset + t + interval),"status":{"print_stats":{"state":"complete"},"display_status":{"progress":1}}}"#
            ))
        return lines
    }

    /// A washer under a Zigbee2MQTT plug: standby, then heating, washing with 0–2 soaks of 1–2.5
    /// minutes near zero, rinsing and spinning, then standby again; a report every 10–60 s.
    static func powerPlug(_ r: inout SeededRandom) -> [String] {
        let interval = r.uniform(10...60).rounded()
        var program: [(watts: ClosedRange<Double>, seconds: Double)] = [(0.3...0.8, r.uniform(60...300))]
        program.append((1800...2200, r.uniform(300...900)))
        let washes = Int(r.uniform(1...3.99))
        for index in 0..<washes {
            program.append((120...450, r.uniform(300...1500)))
            if index < washes - 1 { program.append((0.5...2, r.uniform(60...150))) }
        }
        program.append((60...200, r.uniform(300...900)))
        program.append((300...650, r.uniform(240...720)))
        program.append((0.3...0.8, 600))
        var lines = [#"{"mqtt": {"preset": "power-plug", "device": "washer", "slug": "job"}}"#]
        var t = 0.0
        for stage in program {
            let end = t + stage.seconds
            while t < end {
                let watts = (r.uniform(stage.watts) * 10).rounded() / 10
                lines.append(line(t, "zigbee2mqtt/washer", #"{"state":"ON","power":\#(watts),"linkquality":120}"#))
                t += interval
            }
        }
        return lines
    }
}
