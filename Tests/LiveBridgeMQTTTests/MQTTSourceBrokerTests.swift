import Foundation
import LiveBridgeCore
import LiveBridgeMQTT
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Keeps the log lines and tells when the session's subscriptions are acknowledged (its
/// `subscribed` lines), so a test publishes what is not retained only once it can arrive.
final class SubscriptionWatch: LogHandler {
    let lines = InMemoryLogHandler()
    let (subscribed, topic) = AsyncStream.makeStream(of: String.self)

    func log(_ record: LogRecord) {
        lines.log(record)
        if record.message == "subscribed", let filter = record.metadata.first(where: { $0.0 == "topic" })?.1 {
            topic.yield(filter)
        }
    }
}

/// The MQTT source against a real mosquitto over TLS: a test publisher plays each system's
/// messages, the source's adapter runs as in the daemon, its updates are collected as the engine
/// would receive them. Time stamps and the hold timers run on a virtual clock the test moves.
@Suite("MQTT source against a TLS mosquitto", .serialized)
struct MQTTSourceBrokerTests {
    /// One source, its broker and a publisher.
    final class Rig: Sendable {
        let broker: MosquittoBroker
        let clock = VirtualClock()
        let store = MemoryStateStore()
        let metrics = MetricsRegistry()
        let health = HealthRegistry()
        let watch = SubscriptionWatch()
        var logs: InMemoryLogHandler { watch.lines }
        let updates: AsyncStream<ActivityUpdate>
        let sink: AsyncStream<ActivityUpdate>.Continuation
        let publisher: MQTTSession
        let task = Mutex<Task<Void, Never>?>(nil)

        init(_ keys: String) async throws {
            broker = try MosquittoBroker(users: ["bridge": "bridgepass1", "publisher": "pubpass123"])
            try await broker.start()
            let pin = broker.certificate.serverCertificateSHA256
            (updates, sink) = AsyncStream.makeStream(of: ActivityUpdate.self)
            let (connected, connection) = AsyncStream.makeStream(of: Void.self)
            publisher = try MQTTSession(
                configuration: MQTTSessionConfiguration(
                    host: "127.0.0.1", port: broker.port,
                    clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "publisher"), username: "publisher",
                    password: "pubpass123", security: .pinnedCertificate(try CertificateFingerprint(hex: pin))),
                onConnect: { _ in connection.yield() })
            try publisher.start()
            for await _ in connected { break }
            let config = try ConfigLoader.parse(
                text: """
                    { sinks: [], sources: [ { name: "lab", type: "mqtt", host: "127.0.0.1", port: \(broker.port),
                      tls: true, certificateSHA256: "\(pin)", username: "bridge", password: "bridgepass1", \(keys) } ] }
                    """, environment: [:])
            let entry = try #require(config.sources.first)
            let configuration = try #require(MQTTSourceConfiguration.read(entry))
            let context = AdapterContext(
                name: "lab", emit: { [sink] update in sink.yield(update) },
                logger: Logger(label: "test", level: .debug, handler: watch), clock: clock, store: store,
                health: health.reporter(kind: "source", name: "lab", type: "mqtt", clock: clock), metrics: metrics)
            let adapter = MQTTSourceAdapter(configuration: configuration)
            task.withLock { $0 = Task { try? await adapter.run(context) } }
            // Every topic acknowledged before the test publishes (bounded: a failure, not a wait).
            let filters = Set(configuration.topicFilters)
            let watch = self.watch
            let acknowledged = await firstWithin(15) {
                var pending = filters
                for await filter in watch.subscribed {
                    pending.remove(filter)
                    if pending.isEmpty { return true }
                }
                return false
            }
            #expect(acknowledged == true, "the source subscribed to its topics")
        }

        func publish(_ topic: String, _ payload: String, retain: Bool = false) async throws {
            try await publisher.publish(topic: topic, text: payload, qos: .atLeastOnce, retain: retain)
        }

        /// The next update, within `seconds` of real time (a failure bound).
        func next(within seconds: Double = 15) async -> ActivityUpdate? {
            await firstWithin(seconds) { [updates] in
                for await update in updates { return update }
                return nil
            }
        }

        /// Publishes and returns the update it produced.
        func send(_ topic: String, _ payload: String, retain: Bool = false) async throws -> ActivityUpdate? {
            try await publish(topic, payload, retain: retain)
            return await next()
        }

        func close() async {
            task.withLock { $0?.cancel() }
            await publisher.shutdown()
            broker.remove()
        }
    }

    @Test(
        "Moonraker: a retained state resyncs a print already running; deltas; a cancel ends it; bad input is said once")
    func moonraker() async throws {
        let rig = try await Rig(#"preset: "moonraker", instance: "voron""#)
        do {
            // Published before the source has subscribed (retained): the print is already running.
            try await rig.publish(
                "voron/klipper/status",
                #"{"eventtime":1,"status":{"print_stats":{"state":"printing","filename":"cube.gcode","print_duration":100},"display_status":{"progress":0.1}}}"#,
                retain: true)
            let first = try #require(await rig.next())
            #expect(first.phase == .active && first.content.state.value == "Printing")
            #expect(first.progress == 0.1)
            #expect(first.eta == .remaining(900))
            rig.clock.advance(by: 60)
            let delta = try #require(
                await rig.send(
                    "voron/klipper/status",
                    #"{"eventtime":61,"status":{"print_stats":{"print_duration":160},"display_status":{"progress":0.16}}}"#
                ))
            #expect(delta.progress == 0.16 && delta.details.subtitle.value == "cube.gcode")
            #expect(delta.observedAt == rig.clock.now)
            try await rig.publish("voron/klipper/status", "not json")
            try await rig.publish("voron/klipper/status", "not json either")
            let cancelled = try #require(
                await rig.send(
                    "voron/klipper/status", #"{"eventtime":70,"status":{"print_stats":{"state":"cancelled"}}}"#))
            #expect(cancelled.phase == .ended(.cancelled))
            #expect(cancelled.progress == 0.16, "the last good progress")
            #expect(rig.metrics.total("livebridge_adapter_parse_errors_total") == 1, "said once")
            #expect(rig.logs.lines.filter { $0.contains("the payload is not JSON") }.count == 1)
            let health = try #require(rig.health.json(now: rig.clock.now)["components"]?.arrayValue?.first)
            #expect(health["last_error"]?.stringValue?.contains("the payload is not JSON") == true, "\(health)")
        } catch {
            await rig.close()
            throw error
        }
        await rig.close()
    }

    @Test("a washer plug: starts above the threshold, a soak shorter than the end hold does not end it, the hold does")
    func powerPlug() async throws {
        let rig = try await Rig(#"preset: "power-plug", device: "washer", startHold: "0s", endHold: "3m""#)
        do {
            let topic = "zigbee2mqtt/washer"
            // Retained (the plug's last report): there for the source whenever it has subscribed.
            let start = try #require(await rig.send(topic, #"{"state":"ON","power":410}"#, retain: true))
            #expect(start.phase == .active)
            rig.clock.advance(by: 600)
            let soak = try #require(await rig.send(topic, #"{"state":"ON","power":1.2}"#))
            #expect(soak.phase == .active)
            rig.clock.advance(by: 120)  // under the hold
            let spin = try #require(await rig.send(topic, #"{"state":"ON","power":380}"#))
            #expect(spin.phase == .active, "the soak did not end the cycle")
            rig.clock.advance(by: 300)
            _ = try #require(await rig.send(topic, #"{"state":"ON","power":0.8}"#))
            rig.clock.advance(by: 200)  // past the hold: the next tick ends it
            let end = try #require(await rig.next())
            #expect(end.phase == .ended(.success))
            let runs = try rig.store.readJSON("mqtt-runs-mqtt-lab")
            #expect(runs?.arrayValue?.count == 1, "the cycle's length is kept: \(String(describing: runs))")
        } catch {
            await rig.close()
            throw error
        }
        await rig.close()
    }
}

extension MQTTSourceBrokerTests {
    @Test(
        "livebridge check: connects with the account and the pin, names the retained topics; a wrong password is refused"
    )
    func probe() async throws {
        let broker = try MosquittoBroker(users: ["bridge": "bridgepass1", "publisher": "pubpass123"])
        try await broker.start()
        defer { broker.remove() }
        let pin = broker.certificate.serverCertificateSHA256
        func adapter(password: String) throws -> MQTTSourceAdapter {
            let config = try ConfigLoader.parse(
                text: """
                    { sinks: [], sources: [ { name: "lab", type: "mqtt", host: "127.0.0.1", port: \(broker.port),
                      tls: true, certificateSHA256: "\(pin)", username: "bridge", password: "\(password)",
                      preset: "moonraker", instance: "voron" } ] }
                    """, environment: [:])
            let entry = try #require(config.sources.first)
            return MQTTSourceAdapter(configuration: try #require(MQTTSourceConfiguration.read(entry)))
        }
        let (published, done) = AsyncStream.makeStream(of: Void.self)
        let publisher = try MQTTSession(
            configuration: MQTTSessionConfiguration(
                host: "127.0.0.1", port: broker.port, clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "pub"),
                username: "publisher", password: "pubpass123",
                security: .pinnedCertificate(try CertificateFingerprint(hex: pin))),
            onConnect: { session in
                try? await session.publish(
                    topic: "voron/moonraker/status", text: #"{"server":"online"}"#, qos: .atLeastOnce, retain: true)
                done.yield()
            })
        try publisher.start()
        for await _ in published { break }
        let context = AdapterContext(
            name: "lab", emit: { _ in }, logger: .disabled, clock: SystemClock(), store: MemoryStateStore(),
            health: HealthRegistry().reporter(kind: "source", name: "lab", type: "mqtt", clock: SystemClock()),
            metrics: MetricsRegistry())
        let result = try await adapter(password: "bridgepass1").probe(context)
        await publisher.shutdown()
        #expect(result.ok, "\(result.detail)")
        #expect(result.detail.contains("subscribed to voron/klipper/status voron/moonraker/status for mqtt-lab"))
        #expect(result.detail.contains("retained on voron/moonraker/status"), "\(result.detail)")
        let refused = try await adapter(password: "wrong-password").probe(context)
        #expect(!refused.ok)
        #expect(refused.detail.contains("refused"), "\(refused.detail)")
    }
}

extension MQTTSourceBrokerTests {
    @Test("OctoPrint: events and whole-percent progress over the broker; a pause, a resume and a failure")
    func octoPrint() async throws {
        let rig = try await Rig(#"preset: "octoprint""#)
        do {
            // The plugin's progress topic is retained: there for the source whenever it subscribed.
            try await rig.publish(
                "octoPrint/progress/printing", #"{"location":"local","path":"","progress":0}"#, retain: true)
            let started = try #require(
                await rig.send(
                    "octoPrint/event/PrintStarted",
                    #"{"name":"benchy.gcode","path":"benchy.gcode","origin":"local","_event":"PrintStarted"}"#))
            #expect(started.phase == .active && started.content.state.value == "Printing")
            rig.clock.advance(by: 100)
            let percent = try #require(
                await rig.send(
                    "octoPrint/progress/printing",
                    #"{"path":"benchy.gcode","progress":12,"printer_data":{"progress":{"printTimeLeft":880,"printTime":120}}}"#
                ))
            #expect(percent.progress == 0.12 && percent.progressResolution == 0.01)
            #expect(percent.eta == .remaining(880))
            let paused = try #require(
                await rig.send("octoPrint/event/PrintPaused", #"{"name":"benchy.gcode","_event":"PrintPaused"}"#))
            #expect(paused.phase == .paused)
            rig.clock.advance(by: 300)
            let resumed = try #require(
                await rig.send("octoPrint/event/PrintResumed", #"{"name":"benchy.gcode","_event":"PrintResumed"}"#))
            #expect(resumed.phase == .active && resumed.progress == 0.12)
            let failed = try #require(
                await rig.send(
                    "octoPrint/event/PrintFailed",
                    #"{"name":"benchy.gcode","reason":"error","_event":"PrintFailed"}"#))
            #expect(failed.phase == .ended(.failure) && failed.content.state.value == "Failed")
        } catch {
            await rig.close()
            throw error
        }
        await rig.close()
    }
}

extension MQTTSourceBrokerTests {
    /// Moonraker's JSON-RPC over MQTT for `server.files.metadata`, strict: a request that is not
    /// a JSON-RPC 2.0 call of that method with a file name and a numeric id is a violation.
    final class MoonrakerAPI: Sendable {
        let session: MQTTSession
        let requests = Mutex<[JSONValue]>([])
        let violations = Mutex<[String]>([])
        let task = Mutex<Task<Void, Never>?>(nil)

        init(broker: MosquittoBroker, instance: String, estimates: [String: Double]) async throws {
            var configuration = MQTTSessionConfiguration(
                host: "127.0.0.1", port: broker.port,
                clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "moonraker"), username: "publisher",
                password: "pubpass123",
                security: .pinnedCertificate(
                    try CertificateFingerprint(hex: broker.certificate.serverCertificateSHA256)))
            configuration.subscriptions = [MQTTSubscription("\(instance)/moonraker/api/request", qos: .atLeastOnce)]
            let (ready, subscribed) = AsyncStream.makeStream(of: Void.self)
            session = try MQTTSession(configuration: configuration, onConnect: { _ in subscribed.yield() })
            try session.start()
            for await _ in ready { break }
            task.withLock { $0 = Task { await self.serve(instance: instance, estimates: estimates) } }
        }

        private func serve(instance: String, estimates: [String: Double]) async {
            for await message in session.messages {
                let text = String(decoding: message.payload, as: UTF8.self)
                guard let call = try? JSONParser.parse(text), call["jsonrpc"]?.stringValue == "2.0",
                    call["method"]?.stringValue == "server.files.metadata",
                    let file = call["params"]?["filename"]?.stringValue, let id = call["id"]?.doubleValue
                else {
                    violations.withLock { $0.append(text) }
                    continue
                }
                requests.withLock { $0.append(call) }
                let answer: JSONValue =
                    if let time = estimates[file] {
                        .object([
                            "jsonrpc": "2.0", "id": .number(id),
                            "result": .object(["filename": .string(file), "estimated_time": .number(time)]),
                        ])
                    } else {
                        .object([
                            "jsonrpc": "2.0", "id": .number(id),
                            "error": .object(["code": 404, "message": .string("File \(file) not found")]),
                        ])
                    }
                try? await session.publish(topic: "\(instance)/moonraker/api/response", text: JSONWriter.string(answer))
            }
        }

        func close() async {
            task.withLock { $0?.cancel() }
            await session.shutdown()
        }
    }

    @Test(
        "Moonraker with slicerEstimate: the source asks Moonraker's JSON-RPC over the broker once per print; the answer starts the estimate"
    )
    func moonrakerSlicerEstimate() async throws {
        let rig = try await Rig(#"preset: "moonraker", instance: "voron", slicerEstimate: true"#)
        let api = try await MoonrakerAPI(broker: rig.broker, instance: "voron", estimates: ["cube.gcode": 3000])
        do {
            let topic = "voron/klipper/status"
            let first = try #require(
                await rig.send(
                    topic,
                    #"{"eventtime":1,"status":{"print_stats":{"state":"printing","filename":"cube.gcode","print_duration":0},"display_status":{"progress":0}}}"#
                ))
            #expect(first.phase == .active && first.eta == nil)
            let answered = try #require(await rig.next(), "the answer gives an update")
            #expect(answered.eta == .remaining(3000))
            #expect(answered.observedAt == first.observedAt, "stamped with the status it was computed from")
            rig.clock.advance(by: 600)
            let delta = try #require(
                await rig.send(
                    topic,
                    #"{"eventtime":601,"status":{"print_stats":{"print_duration":600},"display_status":{"progress":0.25}}}"#
                ))
            let blended: Double = 0.75 * (3000 - 600) + 0.25 * (600 / 0.25 - 600)
            #expect(delta.eta == .remaining(blended))
            let asked = api.requests.withLock { $0 }
            #expect(asked.count == 1, "asked once: \(asked)")
            #expect(asked.first?["params"]?["filename"]?.stringValue == "cube.gcode")
            #expect(api.violations.withLock { $0 }.isEmpty)
        } catch {
            await api.close()
            await rig.close()
            throw error
        }
        await api.close()
        await rig.close()
    }
}
