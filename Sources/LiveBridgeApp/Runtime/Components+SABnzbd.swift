import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd

extension StandardComponents {
    /// `type: "sabnzbd"`: one Live Activity per SABnzbd instance, covering a session of jobs.
    static var sabnzbdSource: SourceKind {
        SourceKind(type: "sabnzbd", summary: "SABnzbd downloads, post-processing and results") { entry, services in
            let reader = entry.reader
            let tls = tlsOptions(reader)
            let configuration = SABnzbdConfiguration.read(reader, name: entry.name, tls: tls)
            reader.finish()
            guard let configuration else { return nil }
            return SourceInstance(
                adapter: SABnzbdAdapter(configuration: configuration, transport: services.http),
                webhookSecret: configuration.webhookSecret, acceptsWebhooks: true)
        }
    }

    /// `livebridge replay --format sabnzbd`: JSONL of `{"t", "queue", "history"}` SABnzbd answers.
    package static var sabnzbdReplay: DetectableFormat {
        DetectableFormat(
            format: ReplayFormat(
                name: "sabnzbd",
                summary:
                    "SABnzbd queue/history answers per poll: {\"t\", \"queue\", \"history\"} (the recordings' raw.jsonl)"
            ) { lines, base in
                let settings = SABnzbdSessionSettings(slug: "sabnzbd-replay", name: "SABnzbd (replay)")
                return try SABnzbdReplay.updates(fromJSONLines: lines, settings: settings, startingAt: base)
            },
            detects: { SABnzbdReplay.detects($0) })
    }
}
