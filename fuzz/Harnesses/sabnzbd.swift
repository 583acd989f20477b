// Harness `sabnzbd`: SABnzbd's queue and history answers (`SABnzbdQueue`, `SABnzbdHistory`) and the
// session mapping they feed (`SABnzbdMapper`). The first byte picks what the rest is read as.
//
// Invariants: any answer decodes to a value or a typed error (never a crash); a decoded answer run
// through the session gives updates whose progress is within 0…1 and whose content validates.

import LiveBridgeCore
import LiveBridgeSABnzbd

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSABnzbd(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let asHistory = input.bool()
    guard let json = try? JSONParser.parse(input.rest()) else { return 0 }
    var session = SABnzbdMapper(settings: SABnzbdMapperSettings(slug: "sab-fuzz", name: "SABnzbd"))
    let idle = try! SABnzbdQueue(answer: ["queue": ["status": "Idle", "slots": []]])
    var updates: [ActivityUpdate] = []
    if asHistory {
        guard let history = try? SABnzbdHistory.decode(answer: json) else { return 0 }
        for step in 0..<3 {
            updates += session.observe(SABnzbdObservation(time: 1_800_000_000 + Double(step) * 3, queue: idle, history: history))
        }
    } else {
        guard let queue = try? SABnzbdQueue(answer: json) else { return 0 }
        for step in 0..<3 {
            updates += session.observe(SABnzbdObservation(time: 1_800_000_000 + Double(step) * 3, queue: queue))
        }
    }
    for update in updates {
        if let progress = update.progress { fuzzCheck((0...1).contains(progress), "progress \(progress)") }
        fuzzCheck((try? update.content.validateAsCard()) != nil, "invalid content \(update.content.json)")
    }
    return 0
}
