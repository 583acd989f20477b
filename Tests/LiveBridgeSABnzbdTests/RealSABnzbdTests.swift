import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

/// End to end against a real SABnzbd 4.5 downloading real articles from the project's news
/// server: the adapter → the real engine and tracker → the PushWard sink → the strict fake
/// PushWard. Small jobs at a few MiB/s keep each test to seconds.
@Suite("Real SABnzbd end to end", .serialized)
struct RealSABnzbdTests {
    static let pushwardKey = "hlk_sabnzbdIT0123456789abcdefghijklmn"
    static let slug = "sabnzbd-home"

    /// The bridge between one real SABnzbd and the fake PushWard.
    final class Bridge: Sendable {
        /// Seconds between the final content and `ended` (short: the tests wait for the end).
        static let endDisplay = 1.0
        let sab: RealSABnzbd
        let fake: FakePushWardServer
        let engine: ActivityEngine
        let queue: DeliveryQueue
        let harness = AdapterHarness()
        let adapter: SABnzbdAdapter
        let frames = Mutex<[ActivityFrame]>([])
        let webhooks: AsyncStream<WebhookEvent>
        let inbox: AsyncStream<WebhookEvent>.Continuation

        init(rate: Int, idleInterval: Double = 1) async throws {
            (webhooks, inbox) = AsyncStream.makeStream(of: WebhookEvent.self)
            sab = try await RealSABnzbd(rate: rate)
            fake = try FakePushWardServer(apiKey: RealSABnzbdTests.pushwardKey)
            let clock = SystemClock()
            let sink = PushWardSink(
                configuration: .init(
                    name: "phone", baseURL: fake.baseURL, apiKey: RealSABnzbdTests.pushwardKey, timeout: 20,
                    keyPath: "sinks[0].apiKey"),
                transport: HTTPClient.shared, clock: clock)
            let metrics = MetricsRegistry()
            queue = DeliveryQueue(sink: sink, clock: clock, logger: .disabled, metrics: metrics, health: .detached())
            var settings = EconomySettings()
            settings.endDisplay = Bridge.endDisplay
            engine = ActivityEngine(
                bindings: [
                    .init(
                        sink: sink, queue: queue,
                        ledger: BudgetLedger(sink: "phone", limit: nil, store: MemoryStateStore()))
                ],
                settings: settings, clock: clock, store: MemoryStateStore(), logger: .disabled, metrics: metrics)
            adapter = SABnzbdAdapter(
                configuration: SABnzbdConfiguration(
                    name: "home", url: sab.baseURL, apiKey: RealSABnzbd.apiKey, idleInterval: idleInterval,
                    activeInterval: 0.5, timeout: 20))
        }

        /// Runs the adapter until the activity has ended on the fake PushWard; `step` may act
        /// on SABnzbd as updates arrive. Returns the adapter's updates.
        func run(
            timeout: Double = 60, step: @escaping @Sendable ([ActivityUpdate]) -> Void = { _ in }
        ) async throws -> [ActivityUpdate] {
            await engine.start()
            let engine = self.engine
            let driver = Task { await engine.run() }
            defer { driver.cancel() }
            let tick = harness.tick
            await engine.addListener { [self] event in
                if case .pushed(let frame) = event.kind {
                    self.frames.withLock { $0.append(frame) }
                    tick.yield()
                }
            }
            let context = harness.context(clock: SystemClock(), store: MemoryStateStore(), webhooks: webhooks) {
                update in
                await engine.emit(update)
            }
            let ended = await harness.run(adapter, context: context, fake: nil, timeout: timeout) { harness in
                step(harness.updates)
                return self.frames.withLock { $0.contains { $0.kind == .end } }
            }
            _ = await queue.waitUntilIdle(deadline: Date().timeIntervalSince1970 + 10)
            await engine.shutdown(endActivities: false)
            let log = harness.lines.suffix(12).joined(separator: "\n")
            #expect(
                ended, "the activity did not end within \(timeout) s: \(harness.updates.map(\.stateText)); log: \(log)")
            return harness.updates
        }

        /// Adds jobs one after the other and then, when `notify`, posts what SABnzbd's Apprise
        /// notification would (`NZB added to queue`) to the adapter's webhook inbox.
        func add(_ jobs: [(name: String, bytes: Int)], missingAll: Bool = false, notify: Bool = true) {
            let sab = self.sab
            let inbox = self.inbox
            Task {
                for job in jobs {
                    do {
                        _ = try await sab.addJob(job.name, bytes: job.bytes, missingAll: missingAll)
                    } catch {
                        Issue.record("adding \(job.name) failed: \(error)")
                    }
                }
                guard notify, let name = jobs.first?.name else { return }
                let body =
                    #"{"version": "1.0", "title": "NZB added to queue", "message": "\#(name).nzb", "type": "info"}"#
                inbox.yield(WebhookEvent(body: Array(body.utf8), contentType: "application/json", receivedAt: 0))
            }
        }

        func stop() async {
            fake.shutdown()
            await sab.stop()
        }

        /// The lifecycle every session must show on the service: created and seeded ongoing,
        /// updated, a final ongoing frame, then ended — with nothing the strict fake objects to.
        func expectLifecycle(sourceLocation: SourceLocation = #_sourceLocation) throws -> FakePushWardServer.Activity {
            #expect(fake.violations.isEmpty, "\(fake.violations)", sourceLocation: sourceLocation)
            let activity = try #require(fake.activity(RealSABnzbdTests.slug), sourceLocation: sourceLocation)
            #expect(activity.state == "ended" && activity.creates == 1, sourceLocation: sourceLocation)
            let sent = frames.withLock { $0 }
            let kinds = sent.map(\.kind)
            #expect(kinds.first == .seed && kinds.last == .end, "\(kinds)", sourceLocation: sourceLocation)
            // The final content goes out once — as the two-phase end's final frame, or earlier, when
            // the card showed it while the session waited for more jobs — and `ended` follows it
            // after `endDisplay`, carrying the outcome when no final frame did.
            if let end = sent.last, let shown = sent.dropLast().last {
                #expect(shown.content["state"] == end.content["state"], sourceLocation: sourceLocation)
                #expect(end.time - shown.time >= Bridge.endDisplay - 1e-6, sourceLocation: sourceLocation)
                #expect((shown.kind == .final ? shown.outcome : end.outcome) != nil, sourceLocation: sourceLocation)
            }
            let records = fake.records
            #expect(
                records.first?.method == "POST" && records.first?.path == "/activities", sourceLocation: sourceLocation)
            #expect(records.last?.body?["state"] == "ended", sourceLocation: sourceLocation)
            #expect(records.allSatisfy { $0.status < 300 }, sourceLocation: sourceLocation)
            return activity
        }
    }

    @Test("a single download, woken by a webhook: seed, progress, green summary, ended")
    func singleDownload() async throws {
        // The idle poller sleeps 60 s after its first look: only the webhook can start it in time.
        let bridge = try await Bridge(rate: 2 << 20, idleInterval: 60)
        let added = Mutex(false)
        let updates = try await bridge.run(timeout: 45) { _ in
            guard !added.withLock({ $0 }) else { return }
            added.withLock { $0 = true }
            bridge.add([("Single.Job.A", 4 << 20)])
        }
        await bridge.stop()
        let activity = try bridge.expectLifecycle()
        #expect(updates.contains { $0.stateText == "Downloading" && $0.subtitleText == "Single.Job.A" })
        #expect(activity.content["state"] == "Complete" && activity.content["accent_color"] == "green")
        let summary = activity.content["subtitle"]?.stringValue ?? ""
        #expect(summary.hasPrefix("1 job · 4.1 MB · "), "\(summary)")
        #expect(activity.content["end_date"] == nil && activity.content["live_progress"] == nil)
        #expect(activity.content["progress"] == 1)
    }

    @Test("two queued jobs: one activity, X/Y counter, a two-job summary")
    func twoJobs() async throws {
        let bridge = try await Bridge(rate: 3 << 20, idleInterval: 60)
        let added = Mutex(false)
        let updates = try await bridge.run(timeout: 45) { _ in
            guard !added.withLock({ $0 }) else { return }
            added.withLock { $0 = true }
            bridge.add([("First.Job.B1", 3 << 20), ("Second.Job.B2", 3 << 20)])
        }
        await bridge.stop()
        let activity = try bridge.expectLifecycle()
        #expect(updates.contains { $0.subtitleText == "1/2 · First.Job.B1" })
        #expect(updates.contains { $0.subtitleText == "2/2 · Second.Job.B2" })
        let progress = updates.filter { !$0.isEnd }.compactMap(\.progress)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.1 >= $0.0 - 1e-9 }, "\(progress)")
        #expect(activity.content["state"] == "Complete")
        #expect(activity.content["subtitle"]?.stringValue?.hasPrefix("2 jobs · 6.2 MB · ") == true)
    }

    @Test("pause and resume: the card says Paused (phase paused, no end date), then downloads to completion")
    func pauseResume() async throws {
        let bridge = try await Bridge(rate: 2 << 20)
        let sab = bridge.sab
        let stage = Mutex(0)
        let updates = try await bridge.run(timeout: 60) { updates in
            let current = stage.withLock { $0 }
            switch current {
            case 0:
                stage.withLock { $0 = 1 }
                // No webhook: the 1 s idle poll finds it.
                bridge.add([("Pause.Job.C", 8 << 20)], notify: false)
            case 1 where updates.last.map { $0.stateText == "Downloading" && ($0.progress ?? 0) >= 0.15 } == true:
                stage.withLock { $0 = 2 }
                Task { _ = try? await sab.call("pause") }
            case 2 where updates.last?.stateText == "Paused":
                stage.withLock { $0 = 3 }
                Task {
                    try? await Task.sleep(nanoseconds: 1_500_000_000)
                    _ = try? await sab.call("resume")
                }
            default:
                break
            }
        }
        await bridge.stop()
        let activity = try bridge.expectLifecycle()
        #expect(
            updates.stateSequence.starts(with: ["Downloading", "Paused", "Downloading"]), "\(updates.stateSequence)")
        #expect(updates.filter { $0.stateText == "Paused" }.allSatisfy { $0.phase == .paused && $0.eta == nil })
        let pausedFrame = bridge.frames.withLock { $0.first { $0.content["state"] == "Paused" } }
        #expect(pausedFrame?.content["end_date"] == nil && pausedFrame?.content["live_progress"] == nil)
        #expect(activity.content["state"] == "Complete" && activity.content["accent_color"] == "green")
    }

    @Test("a job with every article missing fails: red, SABnzbd's fail message, ended as a failure")
    func failedJob() async throws {
        // SABnzbd gives up on such a job within a second: sooner than an idle poll would look, so
        // SABnzbd's notification wakes the poller, as Apprise does.
        let bridge = try await Bridge(rate: 2 << 20, idleInterval: 60)
        let added = Mutex(false)
        let updates = try await bridge.run(timeout: 45) { _ in
            guard !added.withLock({ $0 }) else { return }
            added.withLock { $0 = true }
            bridge.add([("Failed.Job.D", 2 << 20)], missingAll: true)
        }
        await bridge.stop()
        let activity = try bridge.expectLifecycle()
        #expect(updates.last?.phase == .ended(.failure))
        #expect(activity.content["state"] == "Failed" && activity.content["accent_color"] == "red")
        #expect(activity.content["subtitle"]?.stringValue?.contains("Aborted, cannot be completed") == true)
        let outcome = bridge.frames.withLock { $0.first { $0.outcome != nil }?.outcome }
        #expect(outcome == .failure)
    }
}
