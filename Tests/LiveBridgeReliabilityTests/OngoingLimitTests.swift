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
        try await bridge.play(Self.updates(from: base), through: base + 50 * 60, step: 5) { t in
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
}
