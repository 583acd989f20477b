import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

extension PushWardSink {
    /// `type: "pushward"`: PushWard's Live Activities (the generic template); keys in the README.
    public static var descriptor: SinkDescriptor {
        SinkDescriptor(type: "pushward", summary: "PushWard Live Activities (generic template)") { entry, services in
            let reader = entry.reader
            let url = reader.string("url", default: "https://api.pushward.app")
            let key = reader.secret(
                "apiKey", required: true, hint: "the PushWard API key, e.g. \"${PUSHWARD_API_KEY}\"")
            let timeout = reader.duration("timeout", default: 15, range: 1...300)
            let tls = TLSOptions.read(reader)
            if !url.hasPrefix("http://") && !url.hasPrefix("https://") {
                reader.problem("url", "\"\(url)\" is not an http(s) URL")
            }
            let notify = reader.object("notify").map(NotificationRule.read)
            let maxOngoing = reader.int("maxOngoing", default: 5, range: 1...50) ?? 5
            reader.finish()
            guard let key else { return nil }
            return PushWardSink(
                configuration: .init(
                    name: entry.name, baseURL: url, apiKey: key, tls: tls, timeout: timeout,
                    keyPath: entry.path + ".apiKey", notify: notify, sources: services.sources,
                    maxOngoing: maxOngoing),
                transport: services.http, clock: services.clock, metrics: services.metrics,
                logger: services.logger.child("sink.\(entry.name)"))
        }
    }
}
