// Harness `mqtt-source`: payloads of a generic MQTT source (`type: "mqtt"`) through the source's
// configuration and job mapping, as `livebridge replay` runs a recording (`MQTTReplay.updates`).
// The first byte picks the entry (one of the three presets, or a custom job with a progress, a
// stated finish, a state table, a match and a last will); the rest is split at 0x00 into up to
// eight messages, each one's first byte choosing its topic and how far apart in time it comes.
//
// Invariants: any payload (not JSON, not an object, a wrong type at a path, absurd numbers) is
// skipped or mapped, never a crash; mapped progress stays within 0…1 and the content validates.

import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeMQTT

private let entries: [(header: String, topics: [String])] = [
    (
        #"{"mqtt": {"preset": "octoprint"}}"#,
        ["octoPrint/progress/printing", "octoPrint/event/PrintStarted", "octoPrint/event/PrintDone"]
    ),
    (
        #"{"mqtt": {"preset": "moonraker", "instance": "voron", "slicerEstimate": true}}"#,
        ["voron/klipper/status", "voron/moonraker/api/response"]
    ),
    (
        #"{"mqtt": {"preset": "power-plug", "device": "washer_plug"}}"#,
        ["zigbee2mqtt/washer_plug", "zigbee2mqtt/washer_plug/availability"]
    ),
    (
        #"{"mqtt": {"jobs": [{"topics": ["render/+/status"], "match": {"kind": "blender"}, "#
            + #""progress": {"path": "job.done", "scale": 100}, "remaining": {"path": "job.eta", "unit": "timestamp"}, "#
            + #""state": "job.state", "states": {"queued": "idle", "rendering": {"meaning": "active", "label": "Rendering"}, "#
            + #""done": "success", "error": "failure"}, "slug": "render", "#
            + #""availability": {"topic": "render/lwt", "offline": "gone"}}]}}"#,
        ["render/a/status", "render/b/status", "render/lwt"]
    ),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTTSource(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let entry = entries[Int(input.byte()) % entries.count]
    var lines = [entry.header]
    var t = 0.0
    for message in input.rest().split(separator: 0, maxSplits: 7, omittingEmptySubsequences: false) {
        guard let choice = message.first else { continue }
        let topic = entry.topics[Int(choice & 0x0F) % entry.topics.count]
        t += Double(choice >> 4) * 20
        let payload = String(decoding: message.dropFirst(), as: UTF8.self)
        lines.append(JSONWriter.string(["t": .number(t), "topic": .string(topic), "payload": .string(payload)]))
    }
    lines.append(JSONWriter.string(["t": .number(t + 600), "topic": "unfollowed/topic", "payload": "{}"]))
    let updates: [ActivityUpdate]
    do {
        updates = try MQTTReplay.updates(lines: lines, base: 1_800_000_000)
    } catch {
        fuzzTrace("\(error)")
        return 0
    }
    fuzzTrace("\(updates.count) updates: \(updates.map { "\($0.phase) \($0.progress ?? -1)" })")
    for update in updates {
        if let progress = update.progress { fuzzCheck((0...1).contains(progress), "progress \(progress)") }
        fuzzCheck((try? update.content.validateAsCard()) != nil, "invalid content \(update.content.json)")
    }
    return 0
}
