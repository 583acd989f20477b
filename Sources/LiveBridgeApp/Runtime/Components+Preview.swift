import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks

extension StandardComponents {
    /// `type: "preview"`: a local page that draws each activity as the phone would.
    ///
    /// Keys: `listen` (default `127.0.0.1:8787`), `title` (default "LiveBridge preview").
    /// Building the sink binds nothing (so `livebridge check` works while the bridge runs);
    /// `startPreviewPages(of:logger:)` serves the pages once the engine exists.
    static var previewSink: SinkKind {
        SinkKind(type: "preview", summary: "local web page drawing each activity as the phone shows it") {
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

    /// Serves the page of every preview sink bound to `engine` and lets each count the engine's
    /// skips and show its budget. Call once after `engine.start()`; call `shutdown()` on each
    /// returned sink when the bridge stops. A port that cannot be bound is logged, not fatal:
    /// the other sinks keep working.
    static func startPreviewPages(of engine: ActivityEngine, logger: Logger) async -> [PreviewSink] {
        var previews: [PreviewSink] = []
        for binding in engine.bindings {
            guard let preview = binding.sink as? PreviewSink else { continue }
            await preview.attach(to: engine)
            do {
                let url = try preview.start()
                logger.info("preview page", ["sink": preview.name, "url": url])
            } catch {
                logger.error("preview page unavailable", ["sink": preview.name, "error": error.description])
            }
            previews.append(preview)
        }
        return previews
    }
}
