import Foundation
import Glibc
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// The WebSocket session against `FakeHomeAssistant` replaying the real transcripts.
@Suite("Home Assistant session (fake Home Assistant)")
struct HomeAssistantSessionTests {
    static let token = "CANARYhatoken0123456789abcdef"

    /// The snapshot of the recorded `subscribe_entities` session (`a` of its first event).
    static func recordedSnapshot() throws -> [String: JSONValue] {
        let first = try Fixture.inbound("subscribe_entities.jsonl").first { $0["event"]?["a"] != nil }
        return first?["event"]?["a"]?.objectValue ?? [:]
    }

    /// The recorded events after the snapshot.
    static func recordedChanges(_ name: String = "subscribe_entities.jsonl") throws -> [JSONValue] {
        func change(_ message: JSONValue) -> Bool { message["type"] == "event" && message["event"]?["a"] == nil }
        return try Fixture.inbound(name).compactMap { message in
            guard let elements = message.arrayValue else { return change(message) ? message : nil }
            let changes = elements.filter(change)
            return changes.isEmpty ? nil : .array(changes)
        }
    }

    static func configuration(_ home: FakeHomeAssistant, token: String = token) -> HomeAssistantConfiguration {
        var printer = HomeAssistantEntityMapping(entity: "input_boolean.printer_running", slug: "printer")
        printer.progress = HomeAssistantValueSource(entity: "input_number.print_progress")
        var configuration = HomeAssistantConfiguration(
            name: "home", url: home.url, token: token,
            entities: [HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer"), printer])
        configuration.configPath = "sources[0]"
        configuration.reconnect = MQTTReconnectPolicy(
            initialDelay: 0.05, maximumDelay: 0.2, stableConnectionDuration: 60)
        return configuration
    }

    @Test("authenticates, subscribes to exactly the configured entities and the custom event, maps the recorded stream")
    func recordedStream() async throws {
        let home = try FakeHomeAssistant(token: Self.token, states: try Self.recordedSnapshot())
        defer { home.stop() }
        let harness = AdapterHarness()
        let adapter = HomeAssistantAdapter(configuration: Self.configuration(home))
        let task = Task { try await adapter.run(harness.context) }
        defer { task.cancel() }
        let session = try await home.nextSession()
        #expect(try await session.authenticated())
        try await session.waitForSubscription("entities")
        try await session.waitForSubscription("livebridge")
        let sent = session.received
        #expect(sent.first == ["type": "auth", "access_token": .string(Self.token)])
        #expect(sent.contains { $0["type"] == "supported_features" && $0["features"]?["coalesce_messages"] == 1 })
        let subscribe = try #require(sent.first { $0["type"] == "subscribe_entities" })
        #expect(
            subscribe["entity_ids"] == ["input_boolean.printer_running", "input_number.print_progress", "timer.washer"])
        #expect(session.idViolations.isEmpty)
        session.replay(try Self.recordedChanges())
        let started = try await harness.next { $0.slug == "washer" && $0.phase == .active }
        #expect(started.eta == .finishesAt(RFC3339.parse("2026-11-30T00:43:11+00:00")!))
        let printing = try await harness.next { $0.slug == "printer" && $0.progress == 0.42 }
        #expect(printing.phase == .active)
        _ = try await harness.next { $0.slug == "washer" && $0.phase == .paused }
        _ = try await harness.next { $0.slug == "printer" && $0.progress == 1 }
        _ = try await harness.next { $0.slug == "washer" && $0.phase.isEnded }
        #expect(harness.status?.status == .ok)
        #expect(harness.status?.details["haVersion"] == "2024.3.3")
        #expect(!harness.logs.lines.joined().contains("CANARY"))
    }

    @Test("coalesced frames (JSON arrays) are handled like single messages")
    func coalesced() async throws {
        var snapshot = try Self.recordedSnapshot()
        snapshot["input_boolean.printer_running"] = ["s": "on", "a": [:]]
        let home = try FakeHomeAssistant(token: Self.token, states: snapshot)
        defer { home.stop() }
        let harness = AdapterHarness()
        let task = Task { try await HomeAssistantAdapter(configuration: Self.configuration(home)).run(harness.context) }
        defer { task.cancel() }
        let session = try await home.nextSession()
        try await session.waitForSubscription("entities")
        try await session.waitForSubscription("livebridge")
        _ = try await harness.next { $0.slug == "printer" && $0.phase == .active }
        session.replay(try Self.recordedChanges("coalesce_messages.jsonl"))
        var seen: [Double] = []
        while seen.last != 0.5 {
            let update = try await harness.next { $0.slug == "printer" }
            if let progress = update.progress { seen.append(progress) }
        }
        #expect(seen == [0.1, 0.2, 0.3, 0.4, 0.5])
    }

    @Test("a wrong token is a clear configuration error: one attempt, then a long wait, no retry storm")
    func wrongToken() async throws {
        let home = try FakeHomeAssistant(token: Self.token)
        defer { home.stop() }
        let clock = VirtualClock()
        let harness = AdapterHarness(clock: clock)
        let wrong = "CANARYwrongtoken42"
        Redactor.shared.register(wrong)
        let adapter = HomeAssistantAdapter(configuration: Self.configuration(home, token: wrong))
        let task = Task { try await adapter.run(harness.context) }
        defer { task.cancel() }
        let session = try await home.nextSession()
        #expect(try await session.authenticated() == false)
        try await session.waitUntilClosed()
        // The adapter now sleeps on the injected clock: the retry is 10 minutes away.
        await clock.waitForSleepers(1)
        let wait = try #require(clock.nextDeadline) - clock.now
        #expect(wait == 600)
        let status = try #require(harness.status)
        #expect(status.status == .error)
        let message = try #require(status.lastError)
        #expect(message.contains("refused the access token"))
        #expect(message.contains("sources[0].token") && message.contains("profile page"))
        #expect(!message.contains("CANARY") && !harness.logs.lines.joined().contains("CANARY"))
        #expect(home.connectionCount == 1)
        // Only after the wait does it try again.
        clock.advance(by: 600)
        let retry = try await home.nextSession()
        #expect(try await retry.authenticated() == false)
        #expect(home.connectionCount == 2)
    }

    @Test("after Home Assistant drops the connection: reconnect with backoff, resubscribe, resync")
    func reconnectAndResync() async throws {
        let running: [String: JSONValue] = [
            "timer.washer": [
                "s": "active",
                "a": [
                    "duration": "0:30:00", "finishes_at": .string(RFC3339.format(Date().timeIntervalSince1970 + 1200)),
                ],
            ]
        ]
        let home = try FakeHomeAssistant(token: Self.token, states: running)
        defer { home.stop() }
        let harness = AdapterHarness()
        let task = Task { try await HomeAssistantAdapter(configuration: Self.configuration(home)).run(harness.context) }
        defer { task.cancel() }
        let first = try await home.nextSession()
        try await first.waitForSubscription("entities")
        _ = try await harness.next { $0.slug == "washer" && $0.phase == .active }
        // Home Assistant restarts; the non-restored timer comes back idle.
        home.setStates(["timer.washer": ["s": "idle", "a": ["duration": "0:30:00"]]])
        first.drop()
        let second = try await home.nextSession()
        try await second.waitForSubscription("entities")
        let ended = try await harness.next { $0.slug == "washer" }
        #expect(ended.phase == .ended(.cancelled))
        // A fresh connection starts its ids at 1 again and subscribes again.
        #expect(second.received.dropFirst().first?["id"] == 1)
        #expect(second.received.contains { $0["type"] == "subscribe_entities" })
        #expect(home.connectionCount == 2)
        #expect(harness.metrics.value("livebridge_homeassistant_reconnects_total", ["source": "home"]) == 1)
    }

    @Test("keepalive: a Home Assistant that stops answering pings is dropped and reconnected")
    func keepalive() async throws {
        let home = try FakeHomeAssistant(token: Self.token)
        defer { home.stop() }
        var configuration = Self.configuration(home)
        configuration.keepaliveInterval = 0.2
        let harness = AdapterHarness()
        let task = Task { try await HomeAssistantAdapter(configuration: configuration).run(harness.context) }
        defer { task.cancel() }
        let first = try await home.nextSession()
        try await first.waitForSubscription("livebridge")
        first.setAnswersPings(false)
        try await first.waitUntilClosed()
        #expect(first.received.contains { $0["type"] == "ping" })
        let second = try await home.nextSession()
        #expect(try await second.authenticated())
        #expect(harness.status?.lastError?.contains("did not answer a ping") == true)
    }

    @Test("without subscribe_entities: state_changed events plus get_states")
    func stateChangedFallback() async throws {
        let home = try FakeHomeAssistant(
            token: Self.token,
            states: ["input_boolean.printer_running": ["s": "on", "a": ["friendly_name": "Printer running"]]],
            supportsSubscribeEntities: false)
        defer { home.stop() }
        let harness = AdapterHarness()
        let task = Task { try await HomeAssistantAdapter(configuration: Self.configuration(home)).run(harness.context) }
        defer { task.cancel() }
        let session = try await home.nextSession()
        try await session.waitForSubscription("state_changed")
        let resynced = try await harness.next { $0.slug == "printer" }
        #expect(resynced.phase == .active && resynced.name == "Printer running")
        #expect(session.received.contains { $0["type"] == "get_states" })
        // The recorded state_changed stream: print progress 42 reaches the printer activity.
        session.replay(try Fixture.inbound("subscribe_events_state_changed.jsonl").filter { $0["type"] == "event" })
        let progress = try await harness.next { $0.slug == "printer" && $0.progress == 0.42 }
        #expect(progress.phase == .active)
        let washer = try await harness.next { $0.slug == "washer" && $0.phase.isEnded }
        #expect(washer.phase == .ended(.success))
    }

    @Test("poll mode: states by REST, unknown entities reported, a refused token waits 10 minutes; probe")
    func pollMode() async throws {
        let refuse = Mutex(false)
        let server = try HTTPServer(address: "127.0.0.1:0") { request in
            if refuse.withLock({ $0 }) || request.headers.first(name: "Authorization") != "Bearer \(Self.token)" {
                return .text("401: Unauthorized", status: 401)
            }
            switch request.path {
            case "/api/":
                return .json(Array(#"{"message": "API running."}"#.utf8))
            case "/api/states/input_boolean.printer_running":
                return .json(
                    Array(#"{"entity_id": "input_boolean.printer_running", "state": "on", "attributes": {}}"#.utf8))
            case "/api/states/input_number.print_progress":
                return .json(
                    Array(
                        #"{"entity_id": "input_number.print_progress", "state": "42.0", "attributes": {"unit_of_measurement": "%"}}"#
                            .utf8))
            default:
                return .json(Array(#"{"message": "Entity not found."}"#.utf8), status: 404)
            }
        }
        defer { server.shutdown() }
        var printer = HomeAssistantEntityMapping(entity: "input_boolean.printer_running", slug: "printer")
        printer.progress = HomeAssistantValueSource(entity: "input_number.print_progress")
        var configuration = HomeAssistantConfiguration(
            name: "home", url: "http://127.0.0.1:\(server.port)", token: Self.token, mode: .poll, pollInterval: 5,
            entities: [printer, HomeAssistantEntityMapping(entity: "timer.washr", slug: "typo")])
        configuration.configPath = "sources[0]"
        let clock = VirtualClock()
        let harness = AdapterHarness(clock: clock)
        let adapter = HomeAssistantAdapter(configuration: configuration)
        #expect(await adapter.probe(harness.context).ok)
        let task = Task { try await adapter.run(harness.context) }
        defer { task.cancel() }
        let update = try await harness.next { $0.slug == "printer" }
        #expect(update.phase == .active && update.progress == 0.42)
        await clock.waitForSleepers(1)
        #expect(try #require(clock.nextDeadline) - clock.now == 5)
        #expect(harness.logs.lines.contains { $0.contains("timer.washr does not exist in Home Assistant (404)") })
        refuse.withLock { $0 = true }
        // advance() wakes the poller and empties the sleeper list; the next sleeper is its wait.
        clock.advance(by: 5)
        await clock.waitForSleepers(1)
        #expect(try #require(clock.nextDeadline) - clock.now == 600)
        #expect(harness.status?.status == .error)
        #expect(harness.status?.lastError?.contains("refused the access token (HTTP 401") == true)
        let probe = await adapter.probe(harness.context)
        #expect(!probe.ok && probe.detail.contains("sources[0].token"))
    }

    @Test("https with an SPKI pin: the right pin connects, a wrong one is refused and waits the maximum")
    func pinnedTLS() async throws {
        let directory = try TemporaryDirectory(prefix: "ha-pin")
        defer { directory.remove() }
        let (cert, key, fifo) = (directory.file("cert.pem"), directory.file("key.pem"), directory.file("ready"))
        // Processes via posix_spawn, not Foundation's Process (see HomeAssistantInstanceProcess).
        try await HomeAssistantInstanceProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj",
                "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], log: directory.file("openssl.log"))
        try await HomeAssistantInstanceProcess.run(
            "sh",
            [
                "-c",
                "openssl x509 -in \"$1\" -pubkey -noout | openssl pkey -pubin -outform der "
                    + "| openssl dgst -sha256 -binary | base64 > \"$2\"", "pin", cert, directory.file("pin"),
            ], log: directory.file("openssl.log"))
        let pin =
            "sha256//"
            + (try String(contentsOfFile: directory.file("pin"), encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard mkfifo(fifo, 0o600) == 0 else { throw HomeAssistantInstanceError("mkfifo failed") }
        let server = try HomeAssistantInstanceProcess.spawn(
            "python3", [Fixture.directory.appendingPathComponent("silent_wss_server.py").path, cert, key, fifo],
            log: directory.file("server.log"))
        do {
            // Blocks (on a thread of its own) until the server has written its port.
            let line = try await HTTPBlockingWork.run { () -> String in
                let fd = open(fifo, O_RDONLY)
                guard fd >= 0 else { throw HomeAssistantInstanceError("cannot open \(fifo)") }
                defer { close(fd) }
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = read(fd, &bytes, bytes.count)
                return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
            }
            let port = try #require(Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)))
            try await pinnedTLS(port: port, pin: pin)
        } catch {
            await server.terminate()
            throw error
        }
        await server.terminate()
    }

    func pinnedTLS(port: Int, pin rightPin: String) async throws {
        func run(pin: String) async throws -> (ComponentHealth, Double) {
            let clock = VirtualClock()
            let harness = AdapterHarness(clock: clock)
            var configuration = HomeAssistantConfiguration(
                name: "home", url: "https://127.0.0.1:\(port)", token: Self.token,
                tls: TLSOptions(pinnedPublicKey: pin), entities: [])
            configuration.setupTimeout = 0.3
            configuration.reconnect = MQTTReconnectPolicy(
                initialDelay: 1, maximumDelay: 60, stableConnectionDuration: 60)
            let task = Task { try await HomeAssistantAdapter(configuration: configuration).run(harness.context) }
            defer { task.cancel() }
            await clock.waitForSleepers(1)
            return (try #require(harness.status), try #require(clock.nextDeadline) - clock.now)
        }
        // The echo server speaks TLS and WebSocket but not Home Assistant: with the right pin the
        // connection is up and the session times out waiting for auth_required.
        let (connected, retry) = try await run(pin: rightPin)
        #expect(connected.lastError?.contains("did not finish authentication") == true, "\(connected)")
        #expect(connected.status == .degraded && retry == 1)
        let (refused, wait) = try await run(pin: "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        #expect(refused.status == .error && wait == 60)
        #expect(refused.lastError?.lowercased().contains("pin") == true, "\(refused)")
    }

    @Test("the custom event creates, updates and ends an activity through the real engine into PushWard")
    func customEventEndToEnd() async throws {
        let home = try FakeHomeAssistant(token: Self.token)
        defer { home.stop() }
        let engine = try await EngineHarness()
        let harness = AdapterHarness()
        let task = Task {
            try await HomeAssistantAdapter(configuration: Self.configuration(home)).run(engine.context(harness))
        }
        let session = try await home.nextSession()
        try await session.waitForSubscription("livebridge")
        session.fire(
            "livebridge",
            data: [
                "slug": "oven", "name": "Oven", "progress": 0.2, "state": "Preheating", "remaining": "0:10:00",
                "icon": "mdi:stove",
            ])
        #expect(await engine.pushward.waitUntil { $0.activity("oven")?.content["state"] == "Preheating" })
        let created = try #require(engine.pushward.activity("oven"))
        #expect(created.content["live_progress"] == true && created.content["end_date"] != nil)
        session.fire("livebridge", data: ["slug": "oven", "progres": 3])
        session.fire("livebridge", data: ["slug": "oven", "end": true, "state": "Ready"])
        #expect(await engine.pushward.waitUntil { $0.activity("oven")?.state == "ended" })
        #expect(engine.pushward.activity("oven")?.content["state"] == "Ready")
        let refused = harness.logs.lines.filter { $0.contains("livebridge event refused") }
        #expect(refused.count == 1 && refused.first?.contains("progres: unknown key") == true, "\(refused)")
        #expect(engine.pushward.violations.isEmpty, "\(engine.pushward.violations)")
        task.cancel()
        await engine.shutdown()
    }
}
