import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// iOS ends a Live Activity after 8 hours ongoing; a job that runs longer gets a fresh one before
/// that, on the same slug: the real engine, delivery queue and PushWard sink on virtual time,
/// against the strict fake, which flags any request finding an activity ongoing for 8 h or more.
@Suite("iOS's 8-hour limit: renewals", .serialized, .timeLimit(.minutes(2)))
struct LifecycleLimitTests {
    static let slug = "bambu-x1c"

    /// A print at a steady pace, reported every `interval` seconds in whole percent and minutes,
    /// `hours` long, from `start`; paused between `pause` (if any).
    static func print(
        hours: Double, from start: Double, interval: Double = 60, pause: ClosedRange<Double>? = nil
    ) -> [ActivityUpdate] {
        let duration = hours * 3600
        var updates: [ActivityUpdate] = []
        var t = 0.0
        var printed = 0.0
        while printed < duration {
            let paused = pause?.contains(t) ?? false
            let progress = (printed / duration * 100).rounded(.down) / 100
            updates.append(
                ActivityUpdate(
                    slug: slug, name: "Bambu X1C", phase: paused ? .paused : .active,
                    content: GenericContent(state: paused ? "Paused" : "Printing", icon: "printer.fill"),
                    details: GenericContent(subtitle: "Benchy"), progress: progress,
                    eta: paused ? nil : .remaining(((duration - printed) / 60).rounded(.down) * 60),
                    observedAt: start + t, progressResolution: 0.01, etaResolution: 60))
            t += interval
            if !paused { printed += interval }
        }
        updates.append(
            ActivityUpdate(
                slug: slug, name: "Bambu X1C", phase: .ended(.success),
                content: GenericContent(state: "Finished", icon: "checkmark.circle.fill"), progress: 1,
                observedAt: start + t))
        return updates
    }

    /// The PATCHes that started a Live Activity (the whole card, the template with it).
    static func starts(_ fake: FakePushWardServer) -> [FakePushWardServer.Record] {
        fake.records.filter { $0.method == "PATCH" && $0.status == 200 && $0.body?["content"]?["template"] != nil }
    }

    /// The lifecycles the fake saw and the PATCHes each cost.
    static func lifecycles(_ fake: FakePushWardServer) -> (spans: [ClosedRange<Double>], patches: [Int]) {
        let spans = fake.activity(slug)?.lifecycles ?? []
        let patches = spans.map { span in
            fake.records.filter { $0.method == "PATCH" && $0.status == 200 && span.contains($0.time) }.count
        }
        return (spans, patches)
    }

    @Test("a 20-hour print: three Live Activities, each under 8 h, back to back, each renewal two requests")
    func twentyHourPrint() async throws {
        let bridge = try await VirtualBridge()
        let start = bridge.clock.now
        let updates = Self.print(hours: 20, from: start)
        try await bridge.play(updates, through: start + 20 * 3600 + 600, step: 60)
        let fake = bridge.pushward
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let (spans, patches) = Self.lifecycles(fake)
        try #require(spans.count == 3, "\(spans.map { ($0.lowerBound - start, $0.upperBound - start) })")
        for span in spans { #expect(span.upperBound - span.lowerBound < 8 * 3600) }
        // Back to back: each renewal ends one and starts the next within the same minute.
        for (earlier, later) in zip(spans, spans.dropFirst()) {
            #expect(later.lowerBound - earlier.upperBound < 60)
        }
        // Renewed 15 minutes before the limit (the print runs on well past it).
        #expect(abs((spans[0].upperBound - spans[0].lowerBound) - (8 * 3600 - 900)) <= 60)
        // Each renewal is an end and a start with the whole card and a fresh countdown.
        let renewals = Self.starts(fake).dropFirst()
        #expect(renewals.count == 2)
        for renewal in renewals {
            let content = try #require(renewal.body?["content"])
            #expect(content["template"] == "generic" && content["state"] == "Printing")
            #expect(content["subtitle"] == "Benchy" && content["live_progress"] == true)
            let endDate = try #require(content["end_date"]?.doubleValue)
            // The finish as the policy pushes it: the true finish with the pad for the time left
            // (`finishPad`, `finishPadShare`), within the estimate's minutes.
            let trueFinish = start + 20 * 3600
            let progress = content["progress"]?.doubleValue ?? 0
            let expected = EconomyPolicy(settings: EconomySettings(), model: .interpolating).endDate(
                forFinish: trueFinish, progress: progress, fixed: false, frozen: false, at: renewal.time)
            #expect(expected > trueFinish)
            #expect(
                abs(endDate - expected) <= 180,
                "end_date \(endDate - renewal.time) s ahead, \(expected - renewal.time) s expected")
        }
        let total = fake.records.filter { $0.method == "PATCH" && $0.status == 200 }.count
        // Without the limit the same print costs this many; a renewal adds two at most.
        let plain = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates).totalPushes
        #expect(total <= plain + 2 * 2, "\(total) PATCHes, \(plain) without renewals; per lifecycle \(patches)")
        #expect(fake.activity(Self.slug)?.state == "ended")
        await bridge.shutdown()
    }

    @Test("a print that ends before the limit is not renewed, even past the renewal margin")
    func endsInTimeNoRenewal() async throws {
        let bridge = try await VirtualBridge()
        let start = bridge.clock.now
        // 7 h 52 min: past 7 h 45 min, before 7 h 58 min.
        let updates = Self.print(hours: 7 + 52.0 / 60, from: start)
        try await bridge.play(updates, through: start + 8 * 3600 + 600, step: 60)
        let fake = bridge.pushward
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let (spans, _) = Self.lifecycles(fake)
        #expect(spans.count == 1)
        #expect(Self.starts(fake).count == 1)
        await bridge.shutdown()
    }

    @Test("a paused job counts too: renewed while paused, the new card paused, no countdown")
    func pausedJobRenewed() async throws {
        let bridge = try await VirtualBridge()
        let start = bridge.clock.now
        // Two hours of printing, paused for seven (a runout overnight), then two more.
        let updates = Self.print(hours: 4, from: start, pause: 7200...(7200 + 7 * 3600))
        try await bridge.play(updates, through: start + 11 * 3600 + 600, step: 60)
        let fake = bridge.pushward
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let (spans, _) = Self.lifecycles(fake)
        #expect(spans.count == 2)
        let renewal = try #require(Self.starts(fake).dropFirst().first)
        #expect(renewal.time - start < 8 * 3600 && renewal.time - start > 7 * 3600)
        #expect(renewal.body?["content"]?["state"] == "Paused")
        #expect(renewal.body?["content"]?["live_progress"] == .null && renewal.body?["content"]?["end_date"] == .null)
        await bridge.shutdown()
    }

    @Test("LiveBridge down from 7 h 40 min to 7 h 59 min: the renewal it missed goes out at once, before 8 h")
    func restartAtSevenFiftyNine() async throws {
        let clock = VirtualClock(start: VirtualBridge.start)
        let store = MemoryStateStore()
        let pushward = try FakePushWardServer(apiKey: VirtualBridge.apiKey, clock: clock)
        defer { pushward.shutdown() }
        let start = clock.now
        let updates = Self.print(hours: 12, from: start)
        let first = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        try await first.play(
            updates.filter { ($0.observedAt ?? 0) < start + 7 * 3600 + 2400 }, through: start + 7 * 3600 + 2400,
            step: 60)
        #expect(pushward.activity(Self.slug)?.lifecycles.isEmpty == true)
        // The process stops at 7 h 40 min and starts again at 7 h 59 min.
        clock.advance(to: start + 7 * 3600 + 59 * 60)
        let second = try await VirtualBridge(clock: clock, pushward: pushward, store: store)
        await second.deliver()
        let spans = pushward.activity(Self.slug)?.lifecycles ?? []
        try #require(spans.count == 1)
        #expect(spans[0].upperBound - spans[0].lowerBound < 8 * 3600)
        #expect(pushward.activity(Self.slug)?.state == "ongoing")
        try await second.play(
            updates.filter { ($0.observedAt ?? 0) >= start + 7 * 3600 + 59 * 60 }, through: start + 12 * 3600 + 600,
            step: 60)
        #expect(pushward.violations.isEmpty, "\(pushward.violations)")
        #expect(pushward.activity(Self.slug)?.lifecycles.count == 2)
        await first.shutdown()
        await second.shutdown()
    }
}
