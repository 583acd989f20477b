// Harness `homeassistant`: Home Assistant WebSocket messages (`HomeAssistantFrame.decode`, incl.
// coalesced arrays and compressed `subscribe_entities` diffs) run through the entity mapping
// (`HomeAssistantActivityMapper`) for a timer with a progress sensor, as the session does.
//
// Invariants: any text decodes to messages and problems (never a crash); mapped progress stays
// within 0…1.

import LiveBridgeCore
import LiveBridgeHomeAssistant

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHomeAssistant(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var mapping = HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer")
    mapping.progress = HomeAssistantValueSource(entity: "sensor.washer_progress")
    var mapper = HomeAssistantActivityMapper(mappings: [mapping])
    var time = 1_800_000_000.0
    for chunk in input.bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false) {
        let frame = HomeAssistantFrame.decode(String(decoding: chunk, as: UTF8.self))
        for message in frame.messages {
            for update in mapper.receive(message, at: time).updates {
                if let progress = update.progress { fuzzCheck((0...1).contains(progress), "progress \(progress)") }
            }
        }
        time += 5
    }
    return 0
}
