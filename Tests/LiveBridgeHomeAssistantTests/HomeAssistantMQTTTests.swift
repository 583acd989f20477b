import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// What a subscriber received, in order.
final class MessageLog: Sendable {
    private let storage = Mutex<[MQTTMessage]>([])

    func append(_ message: MQTTMessage) { storage.withLock { $0.append(message) } }

    var messages: [MQTTMessage] { storage.withLock { $0 } }
}

/// The MQTT sink as Home Assistant users meet it: the real `livebridge run` publishing to a real
/// mosquitto, and the real Home Assistant 2024.3.3 with its MQTT integration (set up through the
/// config flow) making devices and entities from the discovery configs.
@Suite("MQTT sink in the real Home Assistant 2024.3.3", .serialized, .timeLimit(.minutes(4)))
struct HomeAssistantMQTTTests {
    static let apiToken = "lbtok_HAMQTT0123456789abcdef"
    static let bridgePassword = "HAMQTTbridge-pass1"
    static let homeAssistantPassword = "HAMQTTha-pass1"
    static let entities = [
        "sensor.livebridge_dryer_progress", "sensor.livebridge_dryer_status", "sensor.livebridge_dryer_finishes_at",
        "binary_sensor.livebridge_dryer_running",
    ]

    /// `livebridge run` with one MQTT sink (discovery on) and the activities API, on `directory`.
    struct Bridge {
        let directory: TemporaryDirectory
        let apiPort: Int
        var configPath: String { directory.file("livebridge.json5") }
        var dataDir: String { directory.file("data") }

        init(brokerPort: Int, retainDevices: String) throws {
            directory = try TemporaryDirectory(prefix: "ha-mqtt")
            apiPort = try HomeAssistantInstance.freePort()
            let config = """
                // Written by HomeAssistantMQTTTests.
                {
                  dataDir: "\(directory.file("data"))",
                  server: { listen: "127.0.0.1:\(apiPort)", apiToken: "${LB_API_TOKEN}" },
                  logLevel: "debug",
                  economy: { endDisplay: "0.3s", endedTTL: "2s", dismissalTTL: "2s", staticMinimumInterval: "0s" },
                  sinks: [ { name: "home", type: "mqtt", host: "127.0.0.1", port: \(brokerPort), username: "bridge",
                             password: "${MQTT_PASSWORD}", discovery: true, retainDevices: "\(retainDevices)" } ],
                }
                """
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: configPath)
        }

        func start() async throws -> ChildProcess {
            try await LiveBridgeBinary.run(
                config: configPath,
                environment: [
                    "LB_API_TOKEN": HomeAssistantMQTTTests.apiToken,
                    "MQTT_PASSWORD": HomeAssistantMQTTTests.bridgePassword,
                ])
        }

        /// `POST /api/activities/<slug>` (retried while the bridge is still starting); the status.
        func send(_ slug: String, _ body: JSONValue) async throws {
            let request = HTTPRequest(
                method: "POST", url: "http://127.0.0.1:\(apiPort)/api/activities/\(slug)",
                headers: [
                    "Authorization": "Bearer \(HomeAssistantMQTTTests.apiToken)", "Content-Type": "application/json",
                ],
                body: JSONWriter.bytes(body))
            let deadline = ContinuousClock.now + .seconds(20)
            var response = try? await HTTPClient.shared.execute(request)
            while response == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))  // poll interval while the API comes up
                response = try? await HTTPClient.shared.execute(request)
            }
            let status = response?.status ?? 0
            #expect(status == 202, "POST /api/activities/\(slug): \(response?.text ?? "no answer")")
        }

        /// The devices the sink keeps in the data directory.
        var persistedDevices: [String: JSONValue]? {
            guard let data = FileManager.default.contents(atPath: dataDir + "/mqtt/home/devices.json"),
                let json = try? JSONParser.parse(Array(data))
            else { return nil }
            return json["devices"]?.objectValue
        }
    }

    /// Polls `GET /api/states` until `condition` holds for the states by entity id (bounded).
    func waitForStates(
        _ ha: HomeAssistantInstance, _ what: String, timeout: Double = 30,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([String: JSONValue]) -> Bool
    ) async throws -> [String: JSONValue] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var latest: [String: JSONValue] = [:]
        while ContinuousClock.now < deadline {
            latest = [:]
            for state in try await ha.states() {
                if let id = state["entity_id"]?.stringValue { latest[id] = state }
            }
            if condition(latest) { return latest }
            try await Task.sleep(for: .milliseconds(100))  // poll interval of a bounded wait
        }
        let shown = Self.entities.map { "\($0) = \(latest[$0].map { JSONWriter.string($0) } ?? "absent")" }
        Issue.record("timed out waiting for \(what): \(shown.joined(separator: "; "))", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// The state of `entity` (or one of its attributes) as text; "null" for a JSON null, nil when absent.
    static func text(_ states: [String: JSONValue], _ entity: String, _ attribute: String? = nil) -> String? {
        guard let state = states[entity] else { return nil }
        let value: JSONValue? = attribute.map { state["attributes"]?[$0] ?? .null } ?? state["state"]
        guard let value else { return nil }
        if value.isNull { return "null" }
        return value.stringValue ?? JSONWriter.string(value)
    }

    /// The four entities of the dryer, one line each (for the log of the run).
    func excerpt(_ states: [String: JSONValue]) -> String {
        Self.entities.compactMap { id in
            states[id].map { state -> String in
                var line: [String: JSONValue] = ["entity_id": .string(id)]
                line["state"] = state["state"]
                line["attributes"] = state["attributes"]
                return JSONWriter.string(.object(line))
            }
        }.joined(separator: "\n")
    }

    @Test("a device whose entities follow the activity, end, idle, go unavailable when killed, expire after restart")
    func activityDevice() async throws {
        let broker = try MosquittoBroker(
            users: ["bridge": Self.bridgePassword, "homeassistant": Self.homeAssistantPassword], plainListener: true)
        defer { broker.remove() }
        try await broker.start()
        let brokerPort = try #require(broker.plainPort)
        let online = "binary_sensor.livebridge_online"
        let (progress, status) = ("sensor.livebridge_dryer_progress", "sensor.livebridge_dryer_status")
        let (finish, running) = ("sensor.livebridge_dryer_finishes_at", "binary_sensor.livebridge_dryer_running")
        let ha = try await HomeAssistantInstance.start()
        let bridge = try Bridge(brokerPort: brokerPort, retainDevices: "40s")
        var processes: [ChildProcess] = []
        defer {
            for process in processes { process.kill() }
            bridge.directory.remove()
        }
        do {
            let entry = try await ha.setUpMQTT(
                host: "127.0.0.1", port: brokerPort, username: "homeassistant", password: Self.homeAssistantPassword)
            #expect(entry["state"] == "loaded", "\(entry)")
            let viewer = try MQTTSession(
                configuration: MQTTSessionConfiguration(
                    host: "127.0.0.1", port: brokerPort,
                    clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "viewer"),
                    username: "homeassistant", password: Self.homeAssistantPassword, security: .plaintext,
                    subscriptions: [MQTTSubscription("livebridge/#", qos: .atLeastOnce)]))
            try viewer.start()
            let seen = MessageLog()
            let collector = Task { for await message in viewer.messages { seen.append(message) } }
            defer { collector.cancel() }

            processes.append(try await bridge.start())
            _ = try await waitForStates(ha, "LiveBridge online") { Self.text($0, online) == "on" }

            // Started: the card of the issue.
            try await bridge.send(
                "dryer",
                ["name": "Dryer", "progress": 0.4, "state": "Drying", "remaining": "25m", "icon": "mdi:tumble-dryer"])
            let started = SystemClock().now
            let before = try await waitForStates(ha, "the four entities of the dryer") { states in
                let shown = [Self.text(states, progress), Self.text(states, status), Self.text(states, running)]
                return shown == ["40", "Drying", "on"] && Self.text(states, finish).flatMap(RFC3339.parse) != nil
            }
            print("GET /api/states while the dryer runs:\n\(excerpt(before))")
            #expect(Self.text(before, status, "card_icon") == "mdi:tumble-dryer")
            #expect(Self.text(before, status, "phase") == "active")
            #expect(Self.text(before, status, "friendly_name") == "Dryer Status")
            #expect(Self.text(before, progress, "unit_of_measurement") == "%")
            #expect(Self.text(before, progress, "state_class") == "measurement")
            #expect(Self.text(before, finish, "device_class") == "timestamp")
            let finishesAt = try #require(Self.text(before, finish).flatMap(RFC3339.parse))
            #expect(abs(finishesAt - (started + 25 * 60)) < 90, "finishes_at \(Self.text(before, finish) ?? "")")
            #expect(Self.text(before, running, "outcome") == "null")

            // Updates change the entities; a pause keeps the job running.
            try await bridge.send(
                "dryer",
                ["name": "Dryer", "progress": 0.7, "state": "Cooling", "remaining": "5m", "subtitle": "Low heat"])
            _ = try await waitForStates(ha, "the update") { states in
                [Self.text(states, progress), Self.text(states, status), Self.text(states, status, "subtitle")]
                    == ["70", "Cooling", "Low heat"]
            }
            try await bridge.send("dryer", ["progress": 0.7, "state": "Paused: door open", "paused": true])
            _ = try await waitForStates(ha, "the pause") { states in
                [Self.text(states, status, "phase"), Self.text(states, running)] == ["paused", "on"]
            }

            // Ended: running off with the outcome, the card's final text, no finish time.
            try await bridge.send("dryer", ["end": true])
            let after = try await waitForStates(ha, "the end") { states in
                let shown = [
                    Self.text(states, running), Self.text(states, running, "outcome"), Self.text(states, status),
                    Self.text(states, progress), Self.text(states, finish),
                ]
                return shown == ["off", "success", "Done", "100", "unknown"]
            }
            print("GET /api/states after the dryer ended:\n\(excerpt(after))")
            let messages = seen.messages
            let events = messages.filter { $0.topic == "livebridge/dryer/event" }.compactMap {
                try? JSONParser.parse($0.payload)
            }
            let kinds = events.compactMap { $0["event"]?.stringValue }
            #expect(kinds.first == "started")
            #expect(kinds.filter { $0 == "ended" }.count == 1 && kinds.last == "ended")
            #expect(events.last?["outcome"]?.stringValue == "success")
            let lastState = try #require(messages.last { $0.topic == "livebridge/dryer/state" })
            let lastName = try JSONParser.parse(lastState.payload)["name"]?.stringValue
            #expect(lastName == "Dryer", "the name survives the end")

            // The engine forgets the ended activity (endedTTL 2 s): the device stays, idle.
            _ = try await waitForStates(ha, "idle") { states in
                [Self.text(states, status), Self.text(states, progress), Self.text(states, running)]
                    == ["Idle", "unknown", "off"]
            }

            // Killed: the broker publishes the last will, every entity goes unavailable.
            processes[0].kill()
            _ = try await waitForStates(ha, "unavailable after SIGKILL") { states in
                Self.entities.allSatisfy { Self.text(states, $0) == "unavailable" }
                    && Self.text(states, online) == "off"
            }
            #expect(bridge.persistedDevices?["dryer"] != nil, "the device is remembered in the data directory")

            // Started again: available (idle) again, and the restarted bridge removes the device once
            // it was not seen for retainDevices, though this process never saw the slug itself.
            processes.append(try await bridge.start())
            _ = try await waitForStates(ha, "available again after the restart") { states in
                [Self.text(states, status), Self.text(states, online)] == ["Idle", "on"]
            }
            _ = try await waitForStates(ha, "the device removed after retainDevices", timeout: 60) { states in
                Self.entities.allSatisfy { states[$0] == nil }
            }
            // The sink writes its device list after it has published the removal: HA may see the
            // removal first.
            let written = ContinuousClock.now + .seconds(10)
            while bridge.persistedDevices?["dryer"] != nil, ContinuousClock.now < written {
                try await Task.sleep(for: .milliseconds(100))  // poll interval of a bounded wait
            }
            #expect(bridge.persistedDevices?["dryer"] == nil)
            #expect(bridge.persistedDevices != nil)

            // Stopped cleanly: offline (a clean disconnect sends no will, the bridge says so itself).
            processes[1].terminate()
            _ = try await waitForStates(ha, "offline after SIGTERM") {
                Self.text($0, online) == "off"
            }
            await viewer.shutdown()
            for process in processes {
                #expect(
                    !process.outputText.contains(Self.bridgePassword) && !process.outputText.contains(Self.apiToken))
            }
        } catch {
            for process in processes { print(process.outputText.suffix(4000)) }
            await ha.remove()
            throw error
        }
        await ha.remove()
    }
}
