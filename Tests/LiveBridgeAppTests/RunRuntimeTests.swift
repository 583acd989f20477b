import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeTestSupport
import Synchronization
import Testing

/// A source for tests: emits a scripted job, one update per `interval`, then ends and idles.
struct ScriptedAdapter: Adapter {
    let name: String
    let type = "scripted"
    let steps: Int
    let interval: Double

    func run(_ context: AdapterContext) async throws {
        for step in 0...steps {
            let progress = Double(step) / Double(steps)
            let phase: ActivityPhase = step == steps ? .ended(.success) : .active
            await context.emit(
                ActivityUpdate(
                    slug: "scripted-\(name)", name: "Scripted \(name)", phase: phase,
                    content: GenericContent(state: step == steps ? "Complete" : "Working", icon: "gearshape"),
                    progress: progress, eta: .remaining(Double(steps - step) * interval * 100)))
            context.health.noteEvent()
            try await context.clock.sleep(for: interval)
        }
        try await context.clock.sleep(for: 3600)
    }
}

@Suite("livebridge run", .serialized)
struct RunRuntimeTests {
    let key = "hlk_CANARYrun00000000000000000000000000"

    func config(_ fake: FakePushWardServer, dataDir: String, extra: String = "", sink: String = "") throws
        -> LiveBridgeConfig
    {
        try ConfigLoader.parse(
            text: """
                {
                  dataDir: "\(dataDir)",
                  server: { listen: "127.0.0.1:0", apiToken: "CANARYtoken123456" },
                  economy: { endDisplay: "0.2s" },
                  sinks: [ { name: "phone", type: "pushward", url: "\(fake.baseURL)", apiKey: "${KEY}"\(sink) } ],
                  sources: [ { name: "one", type: "scripted" } ],
                  \(extra)
                }
                """, environment: ["KEY": key])
    }

    var registry: ComponentRegistry {
        var registry = ComponentRegistry.standard
        registry.sources.append(
            SourceDescriptor(type: "scripted", summary: "test") { entry, _ in
                entry.reader.finish()
                return SourceInstance(adapter: ScriptedAdapter(name: entry.name, steps: 5, interval: 0.05))
            })
        return registry
    }

    @Test("keeps the fake in sync, serves health and metrics, ends the job, persists state")
    func endToEnd() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let directory = try TemporaryDirectory(prefix: "run")
        defer { directory.remove() }
        let logs = InMemoryLogHandler()
        let runtime = try LiveBridgeRuntime(
            config: try config(fake, dataDir: directory.path), registry: registry, logHandler: logs)
        let task = Task { await runtime.run() }
        let port = try #require(runtime.port)
        // Wait (bounded) until the end reached the fake: the activity is ended there.
        #expect(
            await fake.waitUntil {
                $0.activity("scripted-one")?.state == "ended" && $0.activity("scripted-one")?.updates ?? 0 > 0
            })
        let activity = try #require(fake.activity("scripted-one"))
        #expect(activity.state == "ended")
        #expect(activity.content["state"] == "Complete" && activity.content["live_progress"] == nil)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let health = try await HTTPClient.shared.execute(
            HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/health"))
        #expect(health.status == 200)
        let healthJSON = try JSONParser.parse(health.body)
        #expect(
            healthJSON["components"]?.arrayValue?.contains { $0["name"] == "phone" && $0["status"] == "ok" } == true)
        let metrics = try await HTTPClient.shared.execute(
            HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/metrics"))
        #expect(metrics.text.contains("livebridge_pushes_sent_total{sink=\"phone\",slug=\"scripted-one\"}"))
        #expect(metrics.headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        task.cancel()
        await task.value
        #expect(FileManager.default.fileExists(atPath: directory.file("trackers.json")))
        let everything = logs.lines.joined() + health.text + metrics.text
        #expect(!everything.contains("CANARY"))
    }

    @Test("a job end notifies through the sink's notify, in its source's thread, counted in /metrics")
    func notifiesJobEnd() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let directory = try TemporaryDirectory(prefix: "run")
        defer { directory.remove() }
        let runtime = try LiveBridgeRuntime(
            config: try config(
                fake, dataDir: directory.path, sink: #", notify: { on: ["success"], level: "passive" }"#),
            registry: registry, logHandler: InMemoryLogHandler())
        let task = Task { await runtime.run() }
        let port = try #require(runtime.port)
        #expect(await fake.waitUntil { $0.activity("scripted-one")?.state == "ended" && !$0.notifications.isEmpty })
        let sent = try #require(fake.notifications.first)
        #expect(fake.notifications.count == 1)
        #expect(sent["title"] == "Scripted one: finished" && sent["body"] == "Complete")
        #expect(sent["thread_id"] == "one" && sent["level"] == "passive" && sent["activity_slug"] == "scripted-one")
        let metrics = try await HTTPClient.shared.execute(
            HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/metrics"))
        #expect(
            metrics.text.contains(#"livebridge_notifications_total{result="sent",sink="phone"} 1"#), "\(metrics.text)")
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        task.cancel()
        await task.value
    }

    @Test("the activities API creates and ends an activity with a bearer token")
    func activitiesAPI() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let directory = try TemporaryDirectory(prefix: "api")
        defer { directory.remove() }
        var config = try config(fake, dataDir: directory.path)
        config.sources = []
        let runtime = try LiveBridgeRuntime(config: config, registry: registry, logHandler: InMemoryLogHandler())
        let task = Task { await runtime.run() }
        defer { task.cancel() }
        let base = "http://127.0.0.1:\(try #require(runtime.port))/api/activities/oven"
        func post(_ body: String, token: String = "CANARYtoken123456") async throws -> HTTPResponse {
            try await HTTPClient.shared.execute(
                HTTPRequest(
                    method: "POST", url: base,
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: Array(body.utf8)))
        }
        #expect(try await post(#"{"progress": 0.2}"#, token: "wrong").status == 401)
        #expect(try await post(#"{"progres": 0.2}"#).status == 422)
        #expect(try await post("not json").status == 400)
        #expect(
            try await post(
                #"{"name": "Oven", "progress": 20, "state": "Preheating", "remaining": "10m", "icon": "mdi:stove"}"#
            ).status == 202)
        #expect(try await post(#"{"end": true, "state": "Ready"}"#).status == 202)
        #expect(
            await fake.waitUntil {
                $0.activity("oven")?.content["state"] == "Ready" && $0.activity("oven")?.state == "ended"
            })
        #expect(fake.activity("oven")?.state == "ended")
        #expect(fake.activity("oven")?.content["state"] == "Ready")
        #expect(fake.records.contains { $0.body?["content"]?["icon"] == "mdi:stove" })
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test("webhooks need the configured secret")
    func webhookSecret() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let directory = try TemporaryDirectory(prefix: "hook")
        defer { directory.remove() }
        var registry = self.registry
        let (deliveries, delivered) = AsyncStream.makeStream(of: Int.self)
        struct HookAdapter: Adapter {
            let name = "hooked"
            let type = "hook"
            let received: @Sendable (Int) -> Void
            func run(_ context: AdapterContext) async throws {
                for await event in context.webhooks { received(event.body.count) }
            }
        }
        registry.sources.append(
            SourceDescriptor(type: "hook", summary: "test") { entry, _ in
                entry.reader.finish()
                return SourceInstance(
                    adapter: HookAdapter(received: { delivered.yield($0) }), webhookSecret: "CANARYhook999",
                    acceptsWebhooks: true)
            })
        var config = try config(fake, dataDir: directory.path)
        config = try ConfigLoader.parse(
            text: """
                { dataDir: "\(directory.path)", server: { listen: "127.0.0.1:0" },
                  sinks: [ { name: "phone", type: "pushward", url: "\(fake.baseURL)", apiKey: "k1234" } ],
                  sources: [ { name: "sab", type: "hook" } ] }
                """, environment: [:])
        let runtime = try LiveBridgeRuntime(config: config, registry: registry, logHandler: InMemoryLogHandler())
        let task = Task { await runtime.run() }
        defer { task.cancel() }
        let url = "http://127.0.0.1:\(try #require(runtime.port))/webhook/sab"
        func post(secret: String?) async throws -> Int {
            var headers = HTTPHeaders()
            if let secret { headers.add(name: "X-LiveBridge-Secret", value: secret) }
            return try await HTTPClient.shared.execute(
                HTTPRequest(method: "POST", url: url, headers: headers, body: Array("{}".utf8))
            ).status
        }
        #expect(try await post(secret: nil) == 401)
        #expect(try await post(secret: "CANARYhook99") == 401)
        #expect(try await post(secret: "CANARYhook999") == 202)
        let unknown = try await HTTPClient.shared.execute(
            HTTPRequest(method: "POST", url: url.replacingOccurrences(of: "/sab", with: "/nope"), body: []))
        #expect(unknown.status == 404)
        var iterator = deliveries.makeAsyncIterator()
        #expect(await iterator.next() == 2)
    }
}
