import LiveBridgeCore

/// A known system's mapping, filled in by one key (`preset: "octoprint"`); every job key given
/// next to it overrides the preset's (`MQTTSourceConfiguration.readJob`). docs/mqtt-source.md has
/// each preset's mapping as a table.
struct MQTTPreset {
    var mapping: MQTTJobMapping
    var availability: [MQTTSourceConfiguration.Availability]

    static let names = ["octoprint", "moonraker", "power-plug"]

    /// The preset `name` with its own keys read from `reader`.
    static func read(_ name: String, _ reader: ConfigReader, slug: String, name source: String) -> MQTTPreset? {
        switch name {
        case "octoprint":
            var base = reader.string("baseTopic", default: "octoPrint/")
            if !base.hasSuffix("/") { base += "/" }
            return octoPrint(baseTopic: base, slug: slug, name: source)
        case "moonraker":
            let instance = reader.requiredString(
                "instance", hint: "Moonraker's [mqtt] instance_name (by default the printer's host name)")
            let slicer = reader.bool("slicerEstimate", default: false)
            guard !instance.isEmpty else { return nil }
            return moonraker(instance: instance, slicerEstimate: slicer, slug: slug, name: source)
        case "power-plug":
            let device = reader.requiredString(
                "device", hint: "the plug's Zigbee2MQTT friendly name, e.g. \"washer_plug\"")
            var base = reader.string("baseTopic", default: "zigbee2mqtt")
            while base.hasSuffix("/") { base.removeLast() }
            let startWatts = reader.double("startWatts", default: 5, range: 0...100_000) ?? 5
            let startHold = reader.duration("startHold", default: 60, range: 0...86_400)
            let endWatts = reader.double("endWatts", default: 3, range: 0...100_000) ?? 3
            let endHold = reader.duration("endHold", default: 180, range: 0...86_400)
            guard !device.isEmpty else { return nil }
            return powerPlug(
                device: device, baseTopic: base, start: (startWatts, startHold), end: (endWatts, endHold), slug: slug,
                name: source)
        default:
            return nil
        }
    }

    /// OctoPrint with the MQTT plugin: progress from `progress/printing` (whole percent), the
    /// job's course from its events, the remaining time from `printer_data` when published.
    static func octoPrint(baseTopic base: String, slug: String, name: String) -> MQTTPreset {
        var mapping = MQTTJobMapping(topics: [base + "progress/printing", base + "event/+"], slug: slug, name: name)
        mapping.progress = "progress"
        mapping.progressScale = 100
        mapping.remaining = .init(path: "printer_data.progress.printTimeLeft", unit: .seconds)
        mapping.estimate = .elapsedOverProgress
        mapping.elapsed = "printer_data.progress.printTime"
        mapping.state = "_event"
        mapping.states = [
            "PrintStarted": .init(.active, "Printing"), "PrintResumed": .init(.active, "Printing"),
            "PrintPaused": .init(.paused, "Paused"), "PausedForUser": .init(.paused, "Paused for user"),
            "PrintDone": .init(.success, "Done"), "PrintFailed": .init(.failure, "Failed"),
            "PrintCancelled": .init(.cancelled, "Cancelled"),
        ]
        mapping.subtitle = "path"
        mapping.icon = "printer.fill"
        return MQTTPreset(mapping: mapping, availability: [.init(topic: base + "mqtt", offline: "disconnected")])
    }

    /// Klipper through Moonraker's `[mqtt]`: deltas of `klipper/status` merged, the state from
    /// `print_stats.state`, the progress from `display_status`, the remaining time from the print
    /// duration (pauses excluded) over the progress — with `slicerEstimate`, starting from the
    /// slicer's estimate asked for over Moonraker's JSON-RPC.
    static func moonraker(instance: String, slicerEstimate: Bool = false, slug: String, name: String) -> MQTTPreset {
        var mapping = MQTTJobMapping(topics: [instance + "/klipper/status"], slug: slug, name: name)
        mapping.progress = "status.display_status.progress"
        mapping.estimate = .elapsedOverProgress
        mapping.elapsed = "status.print_stats.print_duration"
        mapping.state = "status.print_stats.state"
        mapping.states = [
            "printing": .init(.active, "Printing"), "paused": .init(.paused, "Paused"),
            "complete": .init(.success, "Done"), "error": .init(.failure, "Failed"),
            "cancelled": .init(.cancelled, "Cancelled"), "standby": .init(.idle),
        ]
        mapping.subtitle = "status.print_stats.filename"
        if slicerEstimate {
            mapping.slicerEstimate = .init(
                requestTopic: instance + "/moonraker/api/request", responseTopic: instance + "/moonraker/api/response",
                filename: "status.print_stats.filename")
        }
        mapping.icon = "printer.fill"
        return MQTTPreset(
            mapping: mapping,
            availability: [.init(topic: instance + "/moonraker/status", path: "server", offline: "offline")])
    }

    /// A Zigbee2MQTT plug under an appliance: running above `start` watts held for its seconds,
    /// done below `end` watts held for its seconds (a soak pause is shorter); no progress, the
    /// remaining time from the appliance's past cycles once there are three.
    static func powerPlug(
        device: String, baseTopic base: String, start: (Double, Double), end: (Double, Double), slug: String,
        name: String
    ) -> MQTTPreset {
        var mapping = MQTTJobMapping(topics: ["\(base)/\(device)"], slug: slug, name: name)
        mapping.start = .init(path: "power", above: start.0, hold: start.1)
        mapping.end = .init(path: "power", below: end.0, hold: end.1)
        mapping.estimate = .pastRuns
        mapping.icon = "powerplug.fill"
        return MQTTPreset(
            mapping: mapping,
            availability: [.init(topic: "\(base)/\(device)/availability", path: "state", offline: "offline")])
    }
}
