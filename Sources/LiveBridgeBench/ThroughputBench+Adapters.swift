import LiveBridgeApp
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeHomeAssistant

extension ThroughputBench {
    /// A compressed `subscribe_entities` change as Home Assistant sends it, for a watched entity.
    static let compressedChange =
        #"{"id":2,"type":"event","event":{"c":{"sensor.washer_progress":{"+":{"s":"42","lc":1796000065.4,"#
        + #""c":"01M8MYEV38ZBXQGQQA34DEK3SD"}},"sensor.unrelated_power":{"+":{"s":"13.2"}}}}}"#

    /// Decode + filter + map: what the Home Assistant session does per message.
    static let homeAssistantMessages: @Sendable (Int) -> Int = { iterations in
        var mapping = HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer")
        mapping.progress = HomeAssistantValueSource(entity: "sensor.washer_progress")
        var mapper = HomeAssistantActivityMapper(mappings: [mapping])
        var handled = 0
        for index in 0..<iterations {
            let frame = HomeAssistantFrame.decode(compressedChange)
            for message in frame.messages {
                _ = mapper.receive(message, at: 1_796_000_065 + Double(index))
                handled += 1
            }
        }
        return handled
    }

    /// A P1-style delta report (a few changed fields), as the printer publishes it every second.
    static let deltaReport: [UInt8] = Array(
        (#"{"print":{"mc_percent":42,"mc_remaining_time":73,"layer_num":126,"nozzle_temper":219.8,"#
            + #""bed_temper":65.0,"spd_lvl":2,"gcode_state":"RUNNING","command":"push_status","msg":1,"#
            + #""sequence_id":"2087"}}"#).utf8)

    /// Decode + merge: what the Bambu adapter does per report.
    static let bambuReports: @Sendable (Int) -> Int = { iterations in
        var state = BambuPrinterState()
        var merged = 0
        for _ in 0..<iterations {
            if case .status(let report) = try? BambuReport.decode(deltaReport) {
                state.merge(report)
                merged += 1
            }
        }
        return merged
    }
}
