import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

/// The SABnzbd source as the registry knows it.
public enum SABnzbdSource {
    /// `type: "sabnzbd"`: one Live Activity per SABnzbd instance, covering a session of jobs.
    public static var descriptor: SourceDescriptor {
        SourceDescriptor(
            type: "sabnzbd", summary: "SABnzbd downloads, post-processing and results", replay: replayFormat,
            demo: DemoScenario(summary: "a SABnzbd download (with a speed change and post-processing)") { base in
                try SABnzbdReplay.updates(
                    fromJSONLines: SABnzbdDemo.lines(),
                    settings: SABnzbdMapperSettings(slug: "sabnzbd-demo", name: "SABnzbd (demo)"), startingAt: base)
            }
        ) { entry, services in
            let reader = entry.reader
            let tls = TLSOptions.read(reader)
            let configuration = SABnzbdConfiguration.read(reader, name: entry.name, tls: tls)
            reader.finish()
            guard let configuration else { return nil }
            return SourceInstance(
                adapter: SABnzbdAdapter(configuration: configuration, transport: services.http),
                webhookSecret: configuration.webhookSecret, acceptsWebhooks: true)
        }
    }

    /// `livebridge replay --format sabnzbd`: JSONL of `{"t", "queue", "history"}` SABnzbd answers.
    public static var replayFormat: ReplayFormat {
        ReplayFormat(
            name: "sabnzbd",
            summary:
                "SABnzbd queue/history answers per poll: {\"t\", \"queue\", \"history\"} (the recordings' raw.jsonl)",
            detects: { SABnzbdReplay.detects($0) }
        ) { lines, base in
            let settings = SABnzbdMapperSettings(slug: "sabnzbd-replay", name: "SABnzbd (replay)")
            return try SABnzbdReplay.updates(fromJSONLines: lines, settings: settings, startingAt: base)
        }
    }
}
