import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet

extension MQTTSink {
    /// `type: "mqtt"`: every frame published for MQTT subscribers (and Home Assistant devices).
    public static var descriptor: SinkDescriptor {
        SinkDescriptor(type: "mqtt", summary: "publishes activity state and events to an MQTT broker") {
            entry, services in
            let reader = entry.reader
            let useTLS = reader.bool("tls", default: false)
            let host = reader.requiredString("host", hint: "the broker's host name or IP")
            let port = reader.int("port", default: useTLS ? 8883 : 1883, range: 1...65535) ?? 1883
            let username = reader.string("username")
            let password = reader.secret("password", required: false)
            let prefix = reader.string("prefix", default: "livebridge")
            let discovery = reader.bool("discovery", default: false)
            let discoveryPrefix = reader.string("discoveryPrefix", default: "homeassistant")
            let model = reader.choice("displayModel", ["static", "interpolating"], default: "static")
            let retainDevices = reader.duration("retainDevices", default: 7 * 86400, range: 1...(3650 * 86400))
            let security = MQTTTransportSecurity.read(reader, tls: useTLS)
            for (key, value) in [("prefix", prefix), ("discoveryPrefix", discoveryPrefix)]
            where value.isEmpty || !MQTTTopic.isValidName(value) || value.hasPrefix("/") || value.hasSuffix("/") {
                reader.problem(key, "\"\(value)\" is not a topic prefix (not empty, no # or +, no / at either end)")
            }
            reader.finish()
            guard !host.isEmpty else { return nil }
            let session = MQTTSessionConfiguration(
                host: host, port: port,
                clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "livebridge-\(entry.name)"),
                username: username, password: password, security: security)
            do {
                return try MQTTSink(
                    configuration: .init(
                        name: entry.name, session: session, prefix: prefix, discovery: discovery,
                        discoveryPrefix: discoveryPrefix, displayModel: model == "static" ? .static : .interpolating,
                        retainDevices: retainDevices),
                    store: services.store, clock: services.clock, logger: services.logger.child("sink.\(entry.name)"))
            } catch {
                reader.problem(nil, "\(error)")
                return nil
            }
        }
    }
}
