import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

extension ConsoleSink {
    /// `type: "console"`: prints every delivered frame (dry runs).
    public static var descriptor: SinkDescriptor {
        SinkDescriptor(type: "console", summary: "prints every frame to standard output (text or JSON Lines)") {
            entry, services in
            let reader = entry.reader
            let format = reader.choice("format", ConsoleSink.Format.allCases.map(\.rawValue), default: "text")
            let model = reader.choice("displayModel", ["interpolating", "static"], default: "interpolating")
            reader.finish()
            return ConsoleSink(
                name: entry.name, format: ConsoleSink.Format(rawValue: format) ?? .text,
                displayModel: DisplayModel(rawValue: model) ?? .interpolating, clock: services.clock)
        }
    }
}
