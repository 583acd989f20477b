import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

extension PreviewSink {
    /// `type: "preview"`: a local page that draws each activity as the phone would.
    ///
    /// Keys: `listen` (default `127.0.0.1:8787`), `title` (default "LiveBridge preview").
    /// Building the sink binds nothing (so `livebridge check` works while the bridge runs);
    /// the runtime (`StandardComponents.startPreviewPages`) serves the pages once the engine exists.
    public static var descriptor: SinkDescriptor {
        SinkDescriptor(type: "preview", summary: "local web page drawing each activity as the phone shows it") {
            entry, services in
            let reader = entry.reader
            let listen = reader.string("listen", default: PreviewSink.defaultListen)
            let title = reader.string("title")
            var valid = true
            do throws(HTTPServerError) {
                _ = try HTTPServerConfiguration(address: listen)
            } catch {
                reader.problem("listen", error.message)
                valid = false
            }
            if let title, title.isEmpty || title.count > 120 {
                reader.problem("title", "expected 1 to 120 characters, got \(title.count)")
                valid = false
            }
            reader.finish()
            guard valid else { return nil }
            return PreviewSink(
                configuration: .init(name: entry.name, listen: listen, title: title), clock: services.clock,
                logger: services.logger.child("preview.\(entry.name)"))
        }
    }
}
