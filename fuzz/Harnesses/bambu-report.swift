// Harness `bambu-report`: a printer's MQTT report (`BambuReport.decode`) merged into the printer
// state (`BambuPrinterState.merge`) and mapped (`BambuActivityMapper`), as the Bambu adapter does
// for every message. The input is split into up to three reports at 0x00 bytes.
//
// Invariants: any payload decodes or gives a typed error; merging and mapping never crash; merging
// a report twice changes nothing but the count of reports; mapped progress stays within 0…1.

import LiveBridgeBambu
import LiveBridgeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBambuReport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var mapper = BambuActivityMapper(slug: "bambu-fuzz", printerName: "Printer")
    var time = 1_800_000_000.0
    for payload in input.bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false) {
        guard case .status(let report)? = try? BambuReport.decode(Array(payload)) else { continue }
        // A report merged twice (a broker's redelivery, a pushall answering twice) changes nothing.
        var once = mapper.printer
        once.merge(report)
        var twice = once
        twice.merge(report)
        fuzzCheck(
            once.fields == twice.fields && once.hasFullReport == twice.hasFullReport,
            "merging a report twice changed the printer state")
        for update in mapper.observe(report, at: time) {
            if let progress = update.progress { fuzzCheck((0...1).contains(progress), "progress \(progress)") }
        }
        time += 10
    }
    _ = mapper.tick(at: time + 120)
    return 0
}
