import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeKit
import LiveBridgeMQTT
import LiveBridgeNet
import LiveBridgeSABnzbd
import LiveBridgeSinks

/// The registry lines: one per source and sink type (each declared in its own folder).
package enum StandardComponents {
    static var sinks: [SinkDescriptor] {
        [
            PushWardSink.descriptor,
            MQTTSink.descriptor,
            StateObjectSink.descriptor,
            ConsoleSink.descriptor,
            PreviewSink.descriptor,
        ]
    }

    /// Every source type: each adapter's folder declares its own descriptor. The config reader,
    /// `livebridge replay`'s formats, the usage text and `livebridge demo` read this list.
    static var sources: [SourceDescriptor] {
        [SABnzbdSource.descriptor, BambuSource.descriptor, HomeAssistantSource.descriptor, MQTTSource.descriptor]
    }
}
