import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks

extension StandardComponents {
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
