import LiveBridgeBambu
import LiveBridgeCore

extension StandardComponents {
    /// `type: "bambu"`: a Bambu Lab printer over local MQTT (TLS, pinned or trusted on first use).
    static var bambuSource: SourceKind {
        SourceKind(type: "bambu", summary: "Bambu Lab printer (local MQTT over TLS, one entry per printer)") {
            entry, _ in
            guard let configuration = BambuPrinterConfiguration.read(entry) else { return nil }
            return SourceInstance(adapter: BambuAdapter(configuration: configuration))
        }
    }

    /// `livebridge replay --format bambu`: `{"t": …, "payload": {"print": {…}}}` report recordings.
    package static var bambuReplay: DetectableFormat {
        DetectableFormat(
            format: ReplayFormat(
                name: "bambu",
                summary: "Bambu Lab report recordings: {\"t\": s, \"payload\": {\"print\": {…}}} per line"
            ) { lines, base in
                do throws(BambuReplayError) {
                    return try BambuReplay.updates(fromLines: lines, base: base)
                } catch {
                    throw ReplayInputError(line: error.line, message: error.message)
                }
            },
            detects: { BambuReplay.detects($0) })
    }
}
