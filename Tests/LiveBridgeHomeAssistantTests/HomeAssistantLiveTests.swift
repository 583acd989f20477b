import Foundation
import LiveBridgeCore
import LiveBridgeHomeAssistant
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Against a real Home Assistant 2024.3.3 (PyPI, started per test, ~2–4 s), routed through the
/// real engine and PushWard sink into the strict fake PushWard. Serialised: one HA at a time.
@Suite("Home Assistant integration (real Home Assistant 2024.3.3)", .serialized, .timeLimit(.minutes(3)))
struct HomeAssistantLiveTests {
    /// A running adapter for `entities` against `ha`, delivering into a fresh engine.
    struct Bridge {
        let engine: EngineHarness
        let harness: AdapterHarness
        let task: Task<Void, any Error>

        init(
            _ ha: HomeAssistantInstance, entities: [HomeAssistantEntityMapping],
            mode: HomeAssistantConfiguration.Mode = .websocket, coalesceWindow: Double? = nil
        ) async throws {
            engine = try await EngineHarness(coalesceWindow: coalesceWindow)
            harness = AdapterHarness()
            var configuration = HomeAssistantConfiguration(
                name: "home", url: ha.url, token: ha.token, mode: mode, pollInterval: 0.25, entities: entities)
            configuration.configPath = "sources[0]"
            configuration.reconnect = MQTTReconnectPolicy(
                initialDelay: 0.2, maximumDelay: 1, stableConnectionDuration: 60)
            let adapter = HomeAssistantAdapter(configuration: configuration)
            let context = engine.context(harness)
            task = Task { try await adapter.run(context) }
        }

        /// Waits until the adapter holds a resynced picture (the snapshot's first evaluation).
        func waitUntilSubscribed(_ slug: String) async throws {
            _ = try await harness.next(timeout: .seconds(30)) { $0.slug == slug }
        }

        func stop() async {
            task.cancel()
            await engine.shutdown()
        }

        var pushward: FakePushWardServer { engine.pushward }
    }

    /// Runs `body` with a fresh Home Assistant and a bridge to it; both are stopped however `body` ends.
    func withBridge(
        entities: [HomeAssistantEntityMapping], mode: HomeAssistantConfiguration.Mode = .websocket,
        coalesceWindow: Double? = nil, _ body: (HomeAssistantInstance, Bridge) async throws -> Void
    ) async throws {
        let ha = try await HomeAssistantInstance.start()
        do {
            let bridge = try await Bridge(ha, entities: entities, mode: mode, coalesceWindow: coalesceWindow)
            do {
                try await body(ha, bridge)
            } catch {
                await bridge.stop()
                throw error
            }
            await bridge.stop()
        } catch {
            await ha.remove()
            throw error
        }
        await ha.remove()
    }

    func printer() -> HomeAssistantEntityMapping {
        var printer = HomeAssistantEntityMapping(entity: "input_boolean.printer_running", slug: "printer")
        printer.progress = HomeAssistantValueSource(entity: "input_number.print_progress")
        printer.name = "Printer"
        return printer
    }

    @Test("a timer started through the API: end_date = finishes_at + fixedFinishPad; finishing gives the two-phase end")
    func timer() async throws {
        try await withBridge(entities: [HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer")]) {
            ha, bridge in
            try await bridge.waitUntilSubscribed("washer")
            let started = try await ha.call("timer", "start", ["entity_id": "timer.washer"])
            let finishesAt = try #require(started.arrayValue?.first?["attributes"]?["finishes_at"]?.stringValue)
            let endDate = Int64(try #require(RFC3339.parse(finishesAt))) + Int64(EconomySettings().fixedFinishPad)
            #expect(await bridge.pushward.waitUntil { $0.activity("washer")?.content["end_date"] == .int(endDate) })
            let created = try #require(bridge.pushward.activity("washer"))
            #expect(created.state == "ongoing" && created.content["live_progress"] == true)
            #expect(created.name == "Washer" && created.content["icon"] == "mdi:washing-machine")
            // Restart it with 3 s: it finishes by itself, on time.
            try await ha.call("timer", "start", ["entity_id": "timer.washer", "duration": "00:00:03"])
            #expect(await bridge.pushward.waitUntil(timeout: 20) { $0.activity("washer")?.state == "ended" })
            let patches = bridge.pushward.records.filter { $0.method == "PATCH" && $0.path == "/activities/washer" }
            let final = try #require(patches.dropLast().last)
            #expect(final.body?["state"] == nil && final.body?["content"]?["state"] == "Done")
            #expect(final.body?["content"]?["progress"] == 1)
            #expect(patches.last?.body?["state"] == "ended")
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }

    @Test("an input_number drives progress; the end state ends the activity")
    func inputNumberProgress() async throws {
        try await withBridge(entities: [printer()]) { ha, bridge in
            try await bridge.waitUntilSubscribed("printer")
            try await ha.call("input_boolean", "turn_on", ["entity_id": "input_boolean.printer_running"])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.state == "ongoing" })
            for value in [25, 60] {
                try await ha.call(
                    "input_number", "set_value",
                    ["entity_id": "input_number.print_progress", "value": .int(Int64(value))])
                #expect(
                    await bridge.pushward.waitUntil {
                        $0.activity("printer")?.content["progress"] == .number(Double(value) / 100)
                    })
            }
            try await ha.call("input_boolean", "turn_off", ["entity_id": "input_boolean.printer_running"])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.state == "ended" })
            #expect(bridge.pushward.activity("printer")?.content["state"] == "Done")
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }

    @Test("a custom event from Home Assistant creates, updates and ends an activity")
    func customEvent() async throws {
        try await withBridge(entities: [printer()]) { ha, bridge in
            try await bridge.waitUntilSubscribed("printer")
            try await ha.fire(
                "livebridge",
                [
                    "slug": "oven", "name": "Oven", "progress": 20, "state": "Preheating", "remaining": "0:15:00",
                    "icon": "mdi:stove", "color": "orange",
                ])
            #expect(await bridge.pushward.waitUntil { $0.activity("oven")?.content["state"] == "Preheating" })
            #expect(bridge.pushward.activity("oven")?.content["accent_color"] == "orange")
            try await ha.fire("livebridge", ["slug": "oven", "state": "Baking", "progress": 0.5])
            #expect(await bridge.pushward.waitUntil { $0.activity("oven")?.content["state"] == "Baking" })
            try await ha.fire("livebridge", ["slug": "oven", "end": true, "state": "Ready"])
            #expect(await bridge.pushward.waitUntil { $0.activity("oven")?.state == "ended" })
            #expect(bridge.pushward.activity("oven")?.content["state"] == "Ready")
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }

    @Test("Home Assistant restarted mid-job: reconnect, resubscribe, resync")
    func restartMidJob() async throws {
        try await withBridge(entities: [HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer"), printer()])
        { ha, bridge in
            try await bridge.waitUntilSubscribed("printer")
            try await ha.call("timer", "start", ["entity_id": "timer.washer", "duration": "00:10:00"])
            try await ha.call("input_boolean", "turn_on", ["entity_id": "input_boolean.printer_running"])
            try await ha.call("input_number", "set_value", ["entity_id": "input_number.print_progress", "value": 30])
            #expect(
                await bridge.pushward.waitUntil {
                    $0.activity("washer")?.state == "ongoing" && $0.activity("printer")?.content["progress"] == 0.3
                })
            try await ha.restart()
            // The timer has no `restore: true`: Home Assistant brings it back idle, 10 minutes early.
            // Only the resync after the reconnect can tell.
            #expect(await bridge.pushward.waitUntil(timeout: 30) { $0.activity("washer")?.state == "ended" })
            #expect(bridge.pushward.activity("washer")?.content["state"] == "Cancelled")
            // The printer survived the restart (input_boolean restores its state); the new subscription delivers.
            try await ha.call("input_number", "set_value", ["entity_id": "input_number.print_progress", "value": 70])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.content["progress"] == 0.7 })
            #expect(bridge.pushward.activity("printer")?.state == "ongoing")
            #expect(bridge.harness.metrics.value("livebridge_homeassistant_reconnects_total", ["source": "home"]) >= 1)
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }

    @Test("a wrong token: a clear configuration error, no retry storm; probe says so too")
    func wrongToken() async throws {
        let ha = try await HomeAssistantInstance.start()
        do {
            try await wrongToken(ha)
        } catch {
            await ha.remove()
            throw error
        }
        await ha.remove()
    }

    func wrongToken(_ ha: HomeAssistantInstance) async throws {
        let clock = VirtualClock()
        let harness = AdapterHarness(clock: clock)
        let wrong = "CANARYnotthetoken0987654321"
        Redactor.shared.register(wrong)
        var configuration = HomeAssistantConfiguration(
            name: "home", url: ha.url, token: wrong, entities: [HomeAssistantEntityMapping(entity: "timer.washer")])
        configuration.configPath = "sources[0]"
        let adapter = HomeAssistantAdapter(configuration: configuration)
        let task = Task { try await adapter.run(harness.context) }
        defer { task.cancel() }
        await clock.waitForSleepers(1)
        #expect(try #require(clock.nextDeadline) - clock.now == 600)
        let status = try #require(harness.status)
        #expect(status.status == .error)
        let message = try #require(status.lastError)
        #expect(message.contains("refused the access token (\"Invalid access token or password\")"))
        #expect(message.contains("sources[0].token"))
        let probe = await adapter.probe(harness.context)
        #expect(!probe.ok && probe.detail.contains("HTTP 401"))
        #expect(!(message + probe.detail + harness.logs.lines.joined()).contains("CANARY"))
        // One failed login in Home Assistant's log, not a storm.
        let log = (try? String(contentsOfFile: ha.directory.file("config/home-assistant.log"), encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "Login attempt or request with invalid authentication").count - 1 <= 2)
    }

    @Test("poll mode reads /api/states and drives the same activity")
    func pollMode() async throws {
        try await withBridge(entities: [printer()], mode: .poll) { ha, bridge in
            try await bridge.waitUntilSubscribed("printer")
            try await ha.call("input_boolean", "turn_on", ["entity_id": "input_boolean.printer_running"])
            try await ha.call("input_number", "set_value", ["entity_id": "input_number.print_progress", "value": 40])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.content["progress"] == 0.4 })
            try await ha.call("input_boolean", "turn_off", ["entity_id": "input_boolean.printer_running"])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.state == "ended" })
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }

    @Test("the example automations (examples/homeassistant/livebridge.yaml) work: custom event and rest_command")
    func exampleAutomations() async throws {
        let apiToken = "CANARYapitoken5555"
        let commands = WebSocketTestMailbox<String>(label: "a POST /api/activities request")
        let sink = Mutex<ActivityEngine?>(nil)
        // LiveBridge's POST /api/activities/<slug> as ControlRoutes serves it (bearer token, ActivityCommand).
        let server = try HTTPServer(address: "127.0.0.1:0") { request in
            guard request.headers.first(name: "Authorization") == "Bearer \(apiToken)" else {
                return .text("no", status: 401)
            }
            let slug = request.path.split(separator: "/").last.map(String.init)
            do {
                let update = try ActivityCommand.update(
                    from: try JSONParser.parse(request.body), slug: slug, now: Date().timeIntervalSince1970)
                await sink.withLock { $0 }?.emit(update)
                commands.put(request.text)
                return .json(Array(#"{"status":"accepted"}"#.utf8), status: 202)
            } catch {
                commands.put("refused: \(error)")
                return .text("\(error)", status: 422)
            }
        }
        defer { server.shutdown() }
        let example = try String(
            contentsOfFile: HomeAssistantInstance.toolsPath + "/../../examples/homeassistant/livebridge.yaml",
            encoding: .utf8)
        let ha = try await HomeAssistantInstance.start(
            packages: ["livebridge.yaml": example],
            secrets: [
                "livebridge_activities_url": "http://127.0.0.1:\(server.port)/api/activities/{{ slug }}",
                "livebridge_authorization": "Bearer \(apiToken)",
            ])
        do {
            let bridge = try await Bridge(
                ha, entities: [HomeAssistantEntityMapping(entity: "timer.washer", slug: "washer-timer")])
            sink.withLock { $0 = bridge.engine.engine }
            do {
                try await bridge.waitUntilSubscribed("washer-timer")
                // 1. The custom event automations.
                try await ha.call("input_boolean", "turn_on", ["entity_id": "input_boolean.printer_running"])
                #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.content["state"] == "Printing" })
                #expect(bridge.pushward.activity("printer")?.name == "3D printer")
                try await ha.call(
                    "input_number", "set_value", ["entity_id": "input_number.print_progress", "value": 40])
                #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.content["progress"] == 0.4 })
                try await ha.call("input_boolean", "turn_off", ["entity_id": "input_boolean.printer_running"])
                #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.state == "ended" })
                #expect(bridge.pushward.activity("printer")?.content["state"] == "Print finished")
                // 2. The rest_command automations.
                let started = try await ha.call("timer", "start", ["entity_id": "timer.washer"])
                let finishesAt = try #require(started.arrayValue?.first?["attributes"]?["finishes_at"]?.stringValue)
                let request = try await commands.next(timeout: .seconds(20))
                #expect(request.contains("\"end_date\"") && !request.hasPrefix("refused"), "\(request)")
                #expect(
                    await bridge.pushward.waitUntil {
                        $0.activity("washer")?.content["end_date"]
                            == .int(Int64(RFC3339.parse(finishesAt)!) + Int64(EconomySettings().fixedFinishPad))
                    })
                #expect(bridge.pushward.activity("washer")?.content["state"] == "Washing")
                try await ha.call("timer", "start", ["entity_id": "timer.washer", "duration": "00:00:02"])
                #expect(await bridge.pushward.waitUntil(timeout: 20) { $0.activity("washer")?.state == "ended" })
                #expect(bridge.pushward.activity("washer")?.content["state"] == "Laundry done")
                #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
            } catch {
                await bridge.stop()
                throw error
            }
            await bridge.stop()
        } catch {
            await ha.remove()
            throw error
        }
        await ha.remove()
    }

    @Test("latency: Home Assistant state change → request leaving LiveBridge (median, p99)")
    func latency() async throws {
        // Changes follow each other as fast as they are pushed; the coalescing window would hold
        // each one back by design (the economy tests cover it), so the path is measured without it.
        try await withBridge(entities: [printer()], coalesceWindow: 0) { ha, bridge in
            try await bridge.waitUntilSubscribed("printer")
            try await ha.call("input_boolean", "turn_on", ["entity_id": "input_boolean.printer_running"])
            #expect(await bridge.pushward.waitUntil { $0.activity("printer")?.state == "ongoing" })
            var fromCall: [Double] = []
            var fromChange: [Double] = []
            // Steps of 5 % (above ε), alternating up and down, each waited for before the next.
            for step in 0..<200 {
                let value = step % 2 == 0 ? 50 + (step % 10) * 5 : 10 + (step % 10) * 5
                let target = JSONValue.number(Double(value) / 100)
                let before = bridge.pushward.records.count
                let sent = Date().timeIntervalSince1970
                let changed = try await ha.call(
                    "input_number", "set_value",
                    ["entity_id": "input_number.print_progress", "value": .int(Int64(value))])
                guard
                    await bridge.pushward.waitUntil(
                        timeout: 10,
                        { $0.records.count > before && $0.activity("printer")?.content["progress"] == target })
                else {
                    Issue.record("no push for \(value) %")
                    continue
                }
                let received = bridge.pushward.records.dropFirst(before).first {
                    $0.body?["content"]?["progress"] == target
                }?.time
                guard let received else { continue }
                fromCall.append(received - sent)
                let lastChanged = changed.arrayValue?.first { $0["entity_id"] == "input_number.print_progress" }?[
                    "last_changed"]?
                    .stringValue.flatMap(RFC3339.parse)
                if let lastChanged { fromChange.append(received - lastChanged) }
            }
            func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
            func percentile(_ values: [Double], _ p: Double) -> Double {
                let sorted = values.sorted()
                return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
            }
            print(
                "Home Assistant latency over \(fromCall.count) changes: set_value call → PushWard receipt median "
                    + "\(ms(percentile(fromCall, 0.5))), p99 \(ms(percentile(fromCall, 0.99))), max \(ms(fromCall.max() ?? 0)); "
                    + "HA last_changed → receipt median \(ms(percentile(fromChange, 0.5))), "
                    + "p99 \(ms(percentile(fromChange, 0.99)))")
            #expect(fromCall.count >= 190)
            #expect(percentile(fromChange, 0.99) < 2.0)
            #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        }
    }
}
