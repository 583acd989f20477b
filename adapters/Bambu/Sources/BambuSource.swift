import LiveBridgeCore
public import LiveBridgeKit

/// The Bambu Lab source as the registry knows it.
public enum BambuSource {
    /// `type: "bambu"`: a Bambu Lab printer over local MQTT (TLS, pinned or trusted on first use).
    public static var descriptor: SourceDescriptor {
        SourceDescriptor(
            type: "bambu", summary: "Bambu Lab printer (local MQTT over TLS, one entry per printer)",
            replay: replayFormat,
            demo: DemoScenario(summary: "a Bambu print (heating, layers, a filament-runout pause, completion)") {
                base in
                try BambuReplay.updates(fromLines: BambuDemo.lines(), base: base, slug: "bambu-demo", name: "Bambu P1S")
            }
        ) { entry, _ in
            guard let configuration = BambuPrinterConfiguration.read(entry) else { return nil }
            return SourceInstance(adapter: BambuAdapter(configuration: configuration))
        }
    }

    /// `livebridge replay --format bambu`: `{"t": …, "payload": {"print": {…}}}` report recordings.
    public static var replayFormat: ReplayFormat {
        ReplayFormat(
            name: "bambu", summary: "Bambu Lab report recordings: {\"t\": s, \"payload\": {\"print\": {…}}} per line",
            detects: { BambuReplay.detects($0) }
        ) { lines, base in
            try BambuReplay.updates(fromLines: lines, base: base)
        }
    }
}
