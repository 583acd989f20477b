import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeSABnzbd
import LiveBridgeTestSupport

/// Jobs run through the adapters' real mappings without sockets: what the live adapters would
/// have emitted, with `observedAt` set.
enum Recordings {
    static let sabnzbdSlug = "sabnzbd-home"
    static let bambuSerial = "01P00A000000001"
    static let bambuSlug = "bambu-01p00a000000001"

    /// A SABnzbd job polled every 3 s (the active interval) through `SABnzbdReplay`.
    static func sabnzbd(_ job: SABnzbdJobScript, from first: Double, through last: Double) throws -> [ActivityUpdate] {
        let settings = SABnzbdMapperSettings(slug: sabnzbdSlug, name: "SABnzbd (home)")
        return try SABnzbdReplay.updates(
            fromJSONLines: job.lines(from: first, through: last, every: 3), settings: settings)
    }

    /// A P1 print from the printer simulator's script (deltas, calibration, layers, FINISH)
    /// through `BambuReplay`, starting at `base`.
    static func bambu(printMinutes: Double, base: Double, ending: SimulatedPrintScript.Ending = .finish) throws
        -> [ActivityUpdate]
    {
        var script = SimulatedPrintScript(
            model: .p1, name: "Bracket", layers: 120, printMinutes: printMinutes, reportInterval: 10, ending: ending)
        script.speedVariation = 0.3
        script.remainingBias = 0.05
        return try BambuReplay.updates(fromLines: script.recording(serial: bambuSerial), base: base)
    }
}
