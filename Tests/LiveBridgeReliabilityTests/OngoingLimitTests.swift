import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// iOS shows at most five Live Activities per app and PushWard preempts the lowest priority when
/// a sixth goes ongoing: LiveBridge never asks for a sixth. The real engine, delivery queue and
/// PushWard sink on virtual time against the strict fake, which enforces the cap as the service
/// does and records every preemption.
@Suite("At most five at once", .serialized, .timeLimit(.minutes(2)))
struct OngoingLimitTests {
    struct Job {
        var slug: String
        var priority: Int
        var start: Double
        var minutes: Double
    }

    /// Eight downloads of mixed priority, started 20 s apart, 10–45 minutes long.
    static let jobs: [Job] = [
        Job(slug: "a", priority: 0, start: 0, minutes: 30), Job(slug: "b", priority: 5, start: 20, minutes: 45),
        Job(slug: "c", priority: 2, start: 40, minutes: 10), Job(slug: "d", priority: 8, start: 60, minutes: 40),
        Job(slug: "e", priority: 0, start: 80, minutes: 25), Job(slug: "f", priority: 3, start: 100, minutes: 15),
        Job(slug: "g", priority: 10, start: 120, minutes: 35), Job(slug: "h", priority: 1, start: 140, minutes: 20),
    ]

    static func updates(from base: Double) -> [ActivityUpdate] {
        jobs.flatMap { job -> [ActivityUpdate] in
            let duration = job.minutes * 60
            var result: [ActivityUpdate] = []
            var t = 0.0
            while t < duration {
                result.append(
                    ActivityUpdate(
                        slug: job.slug, name: "Job \(job.slug)", phase: .active,
                        content: GenericContent(state: "Downloading", icon: "arrow.down.circle"),
                        progress: t / duration,
                        eta: .remaining(duration - t), priority: job.priority, observedAt: base + job.start + t))
                t += 30
            }
            result.append(
                ActivityUpdate(
                    slug: job.slug, name: "Job \(job.slug)", phase: .ended(.success),
                    content: GenericContent(state: "Complete", icon: "checkmark.circle.fill"), progress: 1,
                    priority: job.priority, observedAt: base + job.start + duration))
            return result
        }
    }

    /// The jobs the phone should show at `time`: the five best ranked of those running.
    static func expected(at time: Double, from base: Double, ended: Set<String>) -> Set<String> {
        let running = jobs.filter { base + $0.start <= time && !ended.contains($0.slug) }
        let ranked = running.sorted { ($0.priority, -$0.start) > ($1.priority, -$1.start) }
        return Set(ranked.prefix(5).map(\.slug))
    }

    @Test("eight jobs, five places: the highest priorities shown, the others wait for free and start within seconds")
    func eightJobsFivePlaces() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        let fake = bridge.pushward
        await bridge.play(Self.updates(from: base), through: base + 50 * 60, step: 5) { t in
            // Every job has started, none has ended: the phone shows the best five.
            if t == base + 300 {
                #expect(fake.ongoing == Self.expected(at: t, from: base, ended: []), "\(fake.ongoing.sorted())")
                #expect(bridge.sinkHealth?.details["shown"] == "5 of 5")
                #expect(bridge.sinkHealth?.details["waiting"] == "3")
                #expect(bridge.metrics.value("livebridge_activities_waiting", ["sink": "phone"]) == 3)
            }
        }
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.preemptions.isEmpty, "the service had to preempt \(fake.preemptions)")
        #expect(fake.peakOngoing == 5)
        let ends = Self.jobs.compactMap { fake.activity($0.slug)?.lifecycles.last?.upperBound }
        var waited: [String: Double] = [:]
        for job in Self.jobs {
            let activity = try #require(fake.activity(job.slug))
            #expect(activity.state == "ended", "\(job.slug)")
            // Shown first when it went ongoing the first time (a displaced job shows twice).
            let shown = try #require(activity.lifecycles.first?.lowerBound, "\(job.slug) never shown")
            waited[job.slug] = shown - (base + job.start)
            // A job that waited started as soon as a place freed: right when another one ended.
            if shown - (base + job.start) > 5 {
                #expect(ends.contains { shown >= $0 && shown - $0 <= 5 }, "\(job.slug) shown at \(shown - base) s")
            }
            // Nothing was spent on it before it was shown.
            let first = try #require(
                fake.records.first { $0.path == "/activities/\(job.slug)" || $0.body?["slug"] == .string(job.slug) })
            #expect(
                first.time >= shown - 1, "\(job.slug): a request at \(first.time - base) s, shown at \(shown - base) s")
        }
        // h (priority 1) waited for c, the first to end; a and e (priority 0) waited longest.
        #expect((waited["h"] ?? 0) > 400 && (waited["a"] ?? 0) == 0 && (waited["g"] ?? .infinity) < 5)
        #expect(bridge.metrics.value("livebridge_activities_shown", ["sink": "phone"]) == 0)
        #expect(bridge.metrics.value("livebridge_activities_waiting", ["sink": "phone"]) == 0)
        await bridge.shutdown()
    }

    /// Another client of the same account starts an activity of priority 3 on the fake.
    static func otherClientStarts(_ fake: FakePushWardServer) async throws {
        func call(_ method: String, _ path: String, _ body: JSONValue, _ type: String) async throws {
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(
                    method: method, url: fake.baseURL + path,
                    headers: ["Authorization": "Bearer \(fake.apiKey)", "Content-Type": type],
                    body: JSONWriter.bytes(body)))
            #expect(response.isSuccess, "\(method) \(path): \(response.status)")
        }
        try await call(
            "POST", "/activities", ["slug": "other-client", "name": "Other", "priority": 3], "application/json")
        try await call(
            "PATCH", "/activities/other-client",
            ["state": "ongoing", "content": ["template": "generic", "progress": 0.1, "state": "Elsewhere"]],
            "application/merge-patch+json")
    }

    @Test(
        "preempted by another client: the job waits instead of taking the place back, and returns when one of ours ends"
    )
    func preemptedWaits() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        let fake = bridge.pushward
        // Five of ours; at 5 minutes another client's activity goes ongoing as a sixth.
        let five = Array(Self.jobs.prefix(5))
        let updates = Self.updates(from: base).filter { update in five.contains { $0.slug == update.slug } }
        try await bridge.play(updates, through: base + 50 * 60, step: 5) { t in
            if t == base + 300 { try await Self.otherClientStarts(fake) }
        }
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        // The service preempted one of ours (priority 0, the oldest update) — and only that one:
        // LiveBridge never took the place back while the other activity held it.
        try #require(fake.preemptions.count == 1, "\(fake.preemptions)")
        let victim = fake.preemptions[0]
        #expect(["a", "e"].contains(victim))
        #expect(fake.activity("other-client")?.state == "ongoing")
        #expect(fake.peakOngoing == 5)
        // It came back once one of ours ended (c, at 10 min 40 s), as a fresh start, and ended.
        let activity = try #require(fake.activity(victim))
        #expect(activity.state == "ended")
        try #require(
            activity.lifecycles.count == 2,
            "\(activity.lifecycles.map { ($0.lowerBound - base, $0.upperBound - base) })")
        #expect(abs(activity.lifecycles[1].lowerBound - (base + 640)) <= 10)
        // Between the preemption and its return: one refused update at most, nothing ongoing.
        let between = fake.records.filter {
            $0.path == "/activities/\(victim)" && $0.time > base + 300 && $0.time < activity.lifecycles[1].lowerBound
        }
        #expect(
            between.filter { $0.method == "PATCH" && $0.status == 200 }.isEmpty,
            "\(between.map { ($0.time - base, $0.status) })")
        await bridge.shutdown()
    }

    @Test("a job waiting for a place still waits after a restart of LiveBridge, and starts when one ends")
    func waitingSurvivesRestart() async throws {
        let clock = VirtualClock(start: VirtualBridge.start)
        let store = MemoryStateStore()
        let fake = try FakePushWardServer(apiKey: VirtualBridge.apiKey, clock: clock)
        defer { fake.shutdown() }
        let base = clock.now
        // Six jobs: f (priority 3) takes e's place (priority 0) at 100 s; e waits.
        let six = Array(Self.jobs.prefix(6))
        let updates = Self.updates(from: base).filter { update in six.contains { $0.slug == update.slug } }
        let first = try await VirtualBridge(clock: clock, pushward: fake, store: store)
        try await first.play(updates.filter { ($0.observedAt ?? 0) < base + 200 }, through: base + 200, step: 5)
        #expect(fake.ongoing == ["a", "b", "c", "d", "f"])
        let before = fake.records.count
        // LiveBridge restarts at 200 s.
        let second = try await VirtualBridge(clock: clock, pushward: fake, store: store)
        await second.deliver()
        #expect(await second.engine.tracker(sink: "phone", slug: "e")?.waiting == true)
        #expect(fake.records.dropFirst(before).allSatisfy { $0.path != "/activities/e" })
        try await second.play(updates.filter { ($0.observedAt ?? 0) >= base + 200 }, through: base + 50 * 60, step: 5)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.preemptions.isEmpty && fake.peakOngoing == 5)
        // e came back when c ended (10 min 40 s), as a fresh start, and ended.
        let lifecycles = fake.activity("e")?.lifecycles ?? []
        try #require(lifecycles.count == 2)
        #expect(abs(lifecycles[1].lowerBound - (base + 645)) <= 10)
        await first.shutdown()
        await second.shutdown()
    }
}
