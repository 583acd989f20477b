import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

/// One bridge, built by `LiveBridgeRuntime` from config text, with every adapter and every sink
/// configured with canary secrets — each also once with a wrong key, a refused connection or a
/// TLS error — driven through real jobs, webhooks and the activities API. No canary may appear
/// in the log, `/health`, `/metrics`, the preview page and its `/api/state`, the console sink's
/// lines, `livebridge check`'s output, configuration error messages, the answers to wrong
/// secrets, or any file of the data directory.
@Suite("Secrets: canaries through every adapter and sink", .serialized, .timeLimit(.minutes(2)))
struct SecretsTests {
    /// Every secret of the config, by the environment variable the config reads it from.
    static let secrets: [String: String] = [
        "PUSHWARD_KEY": "hlk_CANARYpushward0123456789abcdefghij",
        "PUSHWARD_WRONG_KEY": "hlk_CANARYpushwardWRONG789abcdefghij",
        "PUSHWARD_REFUSED_KEY": "hlk_CANARYpushwardREFUSED9abcdefghij",
        "PUSHWARD_TLS_KEY": "hlk_CANARYpushwardTLS456789abcdefghij",
        "STATE_OBJECT_KEY": "sok_CANARYstateobject0123456789",
        "STATE_OBJECT_WRONG_KEY": "sok_CANARYstateobjectWRONG56789",
        "SABNZBD_KEY": "CANARYsabnzbd0123456789abcdef012",
        "SABNZBD_WRONG_KEY": "CANARYsabnzbdWRONG789abcdef0123",
        "SABNZBD_REFUSED_KEY": "CANARYsabnzbdREFUSED9abcdef0123",
        "SABNZBD_TLS_KEY": "CANARYsabnzbdTLS456789abcdef0123",
        "WEBHOOK_SECRET": "CANARYwebhook0123456789",
        "BAMBU_CODE": "CANARYbambu27182",
        "BAMBU_WRONG_CODE": "CANARYbambuWRONG",
        "BAMBU_PIN_CODE": "CANARYbambuPIN31",
        "HA_TOKEN": "CANARYhatoken0123456789abcdef",
        "HA_WRONG_TOKEN": "CANARYhatokenWRONG89abcdef",
        "HA_REFUSED_TOKEN": "CANARYhatokenREFUSED9abcdef",
        "MQTT_PASSWORD": "CANARYmqtt0123456789",
        "MQTT_WRONG_PASSWORD": "CANARYmqttWRONG56789",
        "API_TOKEN": "CANARYapitoken0123456789abcdef",
        // Basic-auth credentials of a reverse proxy, written into URLs (never a config secret).
        "PROXY_PASSWORD": "CANARYproxypassword42",
    ]
    /// Wrong values clients send (never configured, so never registered with the redactor).
    static let guessedWebhookSecret = "CANARYguessedhook0123"
    static let guessedToken = "CANARYguessedtoken0123456789"
    static let serial = "01P00A000000001"

    /// What the test read from every surface, to search for canaries at the end.
    final class Surfaces: Sendable {
        private let texts = Mutex<[(String, String)]>([])
        func add(_ surface: String, _ text: String) { texts.withLock { $0.append((surface, text)) } }
        var all: [(String, String)] { texts.withLock { $0 } }
    }

    /// The standard registry, with the console sink writing into `lines` instead of stdout.
    static func registry(console lines: Surfaces) -> ComponentRegistry {
        var registry = ComponentRegistry.standard
        registry.sinks = registry.sinks.map { kind in
            guard kind.type == "console" else { return kind }
            return SinkDescriptor(type: "console", summary: kind.summary) { entry, services in
                let reader = entry.reader
                let format = reader.choice("format", ConsoleSink.Format.allCases.map(\.rawValue), default: "text")
                reader.finish()
                return ConsoleSink(
                    name: entry.name, format: ConsoleSink.Format(rawValue: format) ?? .text,
                    writer: { lines.add("console sink", $0) }, clock: services.clock)
            }
        }
        return registry
    }

    struct Servers {
        let pushward: FakePushWardServer
        let stateObject: FakeStateObjectServer
        let sab: ScriptedSABnzbd
        let broker: MosquittoBroker
        let home: FakeHomeAssistant
        let refusing: HTTPRawListener
        let fingerprint: String
    }

    static func config(_ servers: Servers, dataDir: String, mqtt: Bool = true) -> String {
        let dead = servers.refusing.port
        let wrongPin = String(repeating: "AB:", count: 31) + "AB"
        let mqttSinks =
            mqtt
            ? """
              { name: "mqtt", type: "mqtt", host: "127.0.0.1", port: \(servers.broker.plainPort ?? 0),
                username: "bridge", password: "${MQTT_PASSWORD}" },
              { name: "mqtt-wrong", type: "mqtt", host: "127.0.0.1", port: \(servers.broker.plainPort ?? 0),
                username: "bridge", password: "${MQTT_WRONG_PASSWORD}" },
            """ : ""
        return """
            {
              dataDir: "\(dataDir)",
              logLevel: "trace",
              server: { listen: "127.0.0.1:0", apiToken: "${API_TOKEN}" },
              // The printer is calibrating when the bridge connects (no minutes left yet): its card
              // appears after `startWait`, not after `estimateWait`.
              economy: { endDisplay: "0.3s", estimateWait: "0s" },
              sinks: [
                { name: "phone", type: "pushward", url: "\(servers.pushward.baseURL)", apiKey: "${PUSHWARD_KEY}" },
                { name: "phone-wrongkey", type: "pushward", url: "\(servers.pushward.baseURL)",
                  apiKey: "${PUSHWARD_WRONG_KEY}" },
                { name: "phone-refused", type: "pushward", url: "http://proxy:${PROXY_PASSWORD}@127.0.0.1:\(dead)",
                  apiKey: "${PUSHWARD_REFUSED_KEY}", timeout: "2s" },
                { name: "phone-tls", type: "pushward", url: "https://proxy:${PROXY_PASSWORD}@127.0.0.1:\(servers.pushward.port)",
                  apiKey: "${PUSHWARD_TLS_KEY}", timeout: "2s" },
                { name: "watch", type: "state-object", url: "\(servers.stateObject.baseURL)",
                  apiKey: "${STATE_OBJECT_KEY}" },
                { name: "watch-wrongkey", type: "state-object", url: "\(servers.stateObject.baseURL)",
                  apiKey: "${STATE_OBJECT_WRONG_KEY}" },
            \(mqttSinks)
                { name: "terminal", type: "console", format: "jsonl" },
                { name: "preview", type: "preview", listen: "127.0.0.1:0" },
              ],
              sources: [
                { name: "sab", type: "sabnzbd", url: "\(servers.sab.baseURL)", apiKey: "${SABNZBD_KEY}",
                  webhookSecret: "${WEBHOOK_SECRET}", activeInterval: "0.3s", idleInterval: "1s", startGrace: "0s",
                  endAfterIdlePolls: 1 },
                { name: "sab-wrongkey", type: "sabnzbd", url: "\(servers.sab.baseURL)", apiKey: "${SABNZBD_WRONG_KEY}" },
                { name: "sab-refused", type: "sabnzbd", url: "http://proxy:${PROXY_PASSWORD}@127.0.0.1:\(dead)", apiKey: "${SABNZBD_REFUSED_KEY}",
                  timeout: "2s" },
                { name: "sab-tls", type: "sabnzbd", url: "https://127.0.0.1:\(servers.sab.port)",
                  apiKey: "${SABNZBD_TLS_KEY}", timeout: "2s" },
                { name: "printer", type: "bambu", host: "127.0.0.1", port: \(servers.broker.port), serial: "\(serial)",
                  accessCode: "${BAMBU_CODE}", fingerprint: "\(servers.fingerprint)" },
                { name: "printer-wrongcode", type: "bambu", host: "127.0.0.1", port: \(servers.broker.port),
                  serial: "\(serial)", accessCode: "${BAMBU_WRONG_CODE}", fingerprint: "\(servers.fingerprint)",
                  slug: "bambu-wrongcode" },
                { name: "printer-wrongpin", type: "bambu", host: "127.0.0.1", port: \(servers.broker.port),
                  serial: "\(serial)", accessCode: "${BAMBU_PIN_CODE}", fingerprint: "\(wrongPin)",
                  slug: "bambu-wrongpin" },
                { name: "home", type: "homeassistant", url: "\(servers.home.url)", token: "${HA_TOKEN}",
                  entities: [ { entity: "timer.washer", slug: "washer" } ] },
                { name: "home-wrongtoken", type: "homeassistant", url: "\(servers.home.url)", token: "${HA_WRONG_TOKEN}",
                  entities: [ { entity: "timer.washer", slug: "washer-wrongtoken" } ] },
                { name: "home-refused", type: "homeassistant", url: "http://proxy:${PROXY_PASSWORD}@127.0.0.1:\(dead)",
                  token: "${HA_REFUSED_TOKEN}", entities: [ { entity: "timer.washer", slug: "washer-refused" } ] },
              ],
            }
            """
    }

    @Test("success and error paths of every adapter and sink: no canary in any output, answer, or file")
    func canariesNeverLeave() async throws {
        let directory = try TemporaryDirectory(prefix: "secrets")
        defer { directory.remove() }
        let broker = try await HTTPBlockingWork.run {
            try MosquittoBroker(
                commonName: Self.serial,
                users: [
                    "bblp": Self.secrets["BAMBU_CODE"]!, "printer-sim": "simsecret",
                    "bridge": Self.secrets["MQTT_PASSWORD"]!,
                ], plainListener: true)
        }
        try await broker.start()
        let simulator = try PrinterSimulator(broker: broker, model: .p1)
        try await simulator.start()
        let finish = (Date().timeIntervalSince1970 + 1800).rounded()
        let servers = Servers(
            pushward: try FakePushWardServer(apiKey: Self.secrets["PUSHWARD_KEY"]!),
            stateObject: try FakeStateObjectServer(apiKey: Self.secrets["STATE_OBJECT_KEY"]!),
            sab: try ScriptedSABnzbd(apiKey: Self.secrets["SABNZBD_KEY"]!, clock: SystemClock()),
            broker: broker,
            home: try FakeHomeAssistant(
                token: Self.secrets["HA_TOKEN"]!,
                states: [
                    "timer.washer": [
                        "s": "active", "a": ["duration": "0:30:00", "finishes_at": .string(RFC3339.format(finish))],
                    ]
                ]),
            refusing: try HTTPRawListener(listening: false),
            fingerprint: try CertificateFingerprint(pemCertificateFile: broker.certificate.serverCertificatePath)
                .colonHex)
        let surfaces = Surfaces()
        do {
            try await Self.exercise(servers, simulator: simulator, directory: directory, surfaces: surfaces)
        } catch {
            Issue.record(error)
        }
        await simulator.shutdown()
        servers.pushward.shutdown()
        servers.stateObject.shutdown()
        servers.sab.shutdown()
        servers.home.stop()
        servers.refusing.close()
        _ = try? await HTTPBlockingWork.run { broker.remove() }

        // Every surface read: not one canary.
        let read = surfaces.all
        #expect(read.count >= 10, "surfaces read: \(read.map(\.0))")
        for (surface, text) in read {
            var rest = Substring(text)
            while let range = rest.range(of: "CANARY") {
                let start = rest.index(range.lowerBound, offsetBy: -60, limitedBy: rest.startIndex) ?? rest.startIndex
                let end = rest.index(range.upperBound, offsetBy: 40, limitedBy: rest.endIndex) ?? rest.endIndex
                Issue.record("a canary secret in \(surface): …\(rest[start..<end])…")
                rest = rest[range.upperBound...]
            }
        }
    }

    static func exercise(
        _ servers: Servers, simulator: PrinterSimulator, directory: TemporaryDirectory, surfaces: Surfaces
    ) async throws {
        let dataDir = directory.file("data")
        let logs = InMemoryLogHandler()
        let config = try ConfigLoader.parse(text: Self.config(servers, dataDir: dataDir), environment: Self.secrets)
        let runtime = try LiveBridgeRuntime(
            config: config, registry: Self.registry(console: surfaces), logHandler: logs)
        let task = Task { await runtime.run() }
        let port = try #require(runtime.port)
        let base = "http://127.0.0.1:\(port)"
        do {
            try await Self.drive(servers, simulator: simulator, runtime: runtime, base: base, surfaces: surfaces)
        } catch {
            Issue.record(error)
        }
        task.cancel()
        await task.value
        for binding in runtime.engine.bindings {
            if let mqtt = binding.sink as? MQTTSink { await mqtt.shutdown() }
        }
        surfaces.add("log", logs.lines.joined(separator: "\n"))
        #expect(logs.lines.count > 100, "a trace-level log of every path")

        // The data directory: nothing in it may hold a key.
        let files = FileManager.default.enumerator(atPath: dataDir)?.compactMap { $0 as? String } ?? []
        #expect(files.contains("trackers.json"))
        for file in files {
            let path = dataDir + "/" + file
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            let data = FileManager.default.contents(atPath: path) ?? Data()
            surfaces.add("data directory file \(file)", String(decoding: data, as: UTF8.self))
        }

        // `livebridge check` over the same setup (the MQTT sinks left out: a probe's session would
        // outlive the command inside this test process; their errors are covered above).
        let checkConfig = directory.file("check.json5")
        try Self.config(servers, dataDir: dataDir, mqtt: false).write(
            toFile: checkConfig, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: checkConfig)
        let checkOutput = Surfaces()
        let status = await LiveBridgeCommand.run(
            ["check", "--config", checkConfig], environment: Self.secrets,
            output: CommandOutput(out: { checkOutput.add("out", $0) }, err: { checkOutput.add("err", $0) }))
        let checkText = checkOutput.all.map(\.1).joined(separator: "\n")
        #expect(status == ExitStatus.unavailable, "the wrong keys fail their probes: \(checkText)")
        #expect(checkText.contains("FAIL") && checkText.contains("ok "))
        surfaces.add("livebridge check output", checkText)

        // Configuration mistakes next to secrets: the messages must not repeat them.
        let broken = directory.file("broken.json5")
        try """
        {
          dataDir: "\(dataDir)",
          server: { listen: "off", apiToken: 12345678 },
          sinks: [
            { name: "p", type: "pushward", apiKey: "${PUSHWARD_KEY}",
              url: "ftp://user:CANARYurlpassword@push.example/x?apikey=CANARYurlquerykey" },
            { name: "s", type: "state-object", url: "htp://user:CANARYsopassword@so.example/", apiKey: "${STATE_OBJECT_KEY}" },
            { name: "q", type: "pushward", apikey: "CANARYtypokey0123" },
          ],
          sources: [
            { name: "b", type: "sabnzbd", url: "http://sab.example:8080/api?apikey=CANARYsabinurl", apiKey: "${SABNZBD_KEY}" },
            { name: "h", type: "homeassistant", url: "http://user:CANARYhapassword@ha.example/api/x", token: "${HA_TOKEN}" },
          ],
        }
        """.write(toFile: broken, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: broken)
        do {
            let brokenConfig = try ConfigLoader.load(path: broken, environment: Self.secrets)
            _ = try ComponentRegistry.standard.build(brokenConfig, services: runtime.services)
            Issue.record("the broken config was accepted")
        } catch {
            surfaces.add("configuration error", "\(error)")
        }
        let runOutput = Surfaces()
        let runStatus = await LiveBridgeCommand.run(
            ["run", "--config", broken], environment: Self.secrets,
            output: CommandOutput(out: { runOutput.add("out", $0) }, err: { runOutput.add("err", $0) }))
        #expect(runStatus == ExitStatus.configuration)
        surfaces.add("livebridge run with a broken config", runOutput.all.map(\.1).joined(separator: "\n"))
    }

    static func drive(
        _ servers: Servers, simulator: PrinterSimulator, runtime: LiveBridgeRuntime, base: String, surfaces: Surfaces
    ) async throws {
        let pushward = servers.pushward
        // SABnzbd: a short download from start to end.
        servers.sab.setScript(SABnzbdJobScript(totalMiB: 20, rateMiBps: 10, start: SystemClock().now))
        // Bambu: the printer goes through preparation into printing.
        for step in SimulatedPrintScript(model: .p1, name: "Canary bracket").steps().prefix(14) {
            try await simulator.play(step)
        }
        // Home Assistant: the washer timer is running (in the snapshot).
        #expect(
            await pushward.waitUntil(timeout: 20) {
                $0.activity("sabnzbd-sab")?.state == "ended" && $0.activity("sabnzbd-sab")?.content["state"] != nil
                    && $0.activity("bambu-\(serial.lowercased())")?.content["state"] != nil
                    && $0.activity("washer")?.state == "ongoing"
            }, "success paths: \(pushward.activities.keys.sorted())")

        // Inbound secrets: webhooks and the activities API, right, wrong and missing.
        func post(_ path: String, headers: HTTPHeaders, body: String) async throws -> HTTPResponse {
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(method: "POST", url: base + path, headers: headers, body: Array(body.utf8), timeout: 5))
            surfaces.add("answer to POST \(path)", response.text)
            return response
        }
        let hook = "/webhook/sab"
        let secret = Self.secrets["WEBHOOK_SECRET"]!
        #expect(try await post(hook, headers: ["X-LiveBridge-Secret": secret], body: "{}").status == 202)
        #expect(
            try await post(hook, headers: ["X-LiveBridge-Secret": Self.guessedWebhookSecret], body: "{}").status == 401)
        #expect(try await post(hook, headers: [:], body: "{}").status == 401)
        let api = "/api/activities/oven"
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        var authorized = json
        authorized.add(name: "Authorization", value: "Bearer \(Self.secrets["API_TOKEN"]!)")
        var guessed = json
        guessed.add(name: "Authorization", value: "Bearer \(Self.guessedToken)")
        let command = #"{"name": "Oven", "state": "Preheating", "progress": 0.2, "remaining": "10m"}"#
        #expect(try await post(api, headers: authorized, body: command).status == 202)
        #expect(try await post(api, headers: guessed, body: command).status == 401)
        #expect(try await post(api, headers: json, body: command).status == 401)
        #expect(await pushward.waitUntil { $0.activity("oven")?.content["state"] == "Preheating" })

        // Error paths: every wrong key, refused connection and TLS failure is reported.
        let failing = [
            "sink/phone-wrongkey", "sink/phone-refused", "sink/phone-tls", "sink/watch-wrongkey", "sink/mqtt-wrong",
            "source/sab-wrongkey", "source/sab-refused", "source/sab-tls", "source/printer-wrongcode",
            "source/printer-wrongpin", "source/home-wrongtoken", "source/home-refused",
        ]
        let health = runtime.services.health
        try await eventually(30, "every failing component reporting its error") {
            let reported = Set(
                health.snapshot.filter { $0.lastError != nil && $0.status != .ok }.map { "\($0.kind)/\($0.name)" })
            return failing.allSatisfy(reported.contains)
        }
        let working = health.snapshot.filter { ["phone", "watch", "mqtt", "sab", "printer", "home"].contains($0.name) }
        #expect(working.allSatisfy { $0.status == .ok }, "\(working.map { "\($0.name): \($0.status)" })")
        #expect(servers.stateObject.activities.count >= 3)

        // What the bridge serves.
        for path in ["/health", "/metrics"] {
            let response = try await HTTPClient.shared.execute(HTTPRequest(url: base + path, timeout: 5))
            surfaces.add(path, response.text)
        }
        let preview = try #require(runtime.engine.bindings.compactMap { $0.sink as? PreviewSink }.first)
        let previewPort = try #require(preview.port)
        for path in ["/", "/api/state"] {
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(url: "http://127.0.0.1:\(previewPort)\(path)", timeout: 5))
            #expect(response.status == 200)
            surfaces.add("preview \(path)", response.text)
        }
    }
}
