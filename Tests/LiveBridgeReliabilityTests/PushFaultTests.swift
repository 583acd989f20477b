import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// A push service that answers badly: 503 storms, 429 with `Retry-After`, a quota spent in the
/// middle of the month, answers slower than the client's timeout. A 30-minute SABnzbd download
/// (the adapter's real mapping) runs through the real engine and PushWard sink each time.
@Suite("Fault: push service answering badly", .serialized, .timeLimit(.minutes(1)))
struct PushFaultTests {
    static let slug = Recordings.sabnzbdSlug

    /// A 1800 MiB download at 1 MiB/s from one minute after `base`.
    static func download(_ base: Double) throws -> [ActivityUpdate] {
        let job = SABnzbdJobScript(totalMiB: 1800, rateMiBps: 1, start: base + 60)
        return try Recordings.sabnzbd(job, from: base, through: base + 1950)
    }

    /// The end state every test must reach once the service behaves again.
    static func expectCompleted(_ bridge: VirtualBridge, sourceLocation: SourceLocation = #_sourceLocation) async {
        let activity = bridge.pushward.activity(slug)
        #expect(activity?.state == "ended", sourceLocation: sourceLocation)
        #expect(activity?.content["state"] == "Complete", sourceLocation: sourceLocation)
        #expect(await bridge.inSync(slug), "the service shows the latest state", sourceLocation: sourceLocation)
        #expect(bridge.creates(slug) == 1, sourceLocation: sourceLocation)
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)", sourceLocation: sourceLocation)
        for (slug, most) in bridge.maximumPending {
            #expect(most <= VirtualBridge.queueCap, "\(slug) held \(most) frames", sourceLocation: sourceLocation)
        }
    }

    @Test("a storm of 503s: backoff then the circuit breaker; a handful of requests, health says why")
    func serviceUnavailableStorm() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        let storm = 8
        var injected = false
        var healthDuringStorm: ComponentHealth?
        // The storm hits whatever is pushed next (here the job's end) and lasts eight attempts.
        try await bridge.play(Self.download(base), through: base + 2700, step: 2) { t in
            if !injected && t >= base + 300 {
                injected = true
                bridge.pushward.inject(Array(repeating: .status(503), count: storm))
            }
            let unavailable = bridge.pushward.records.filter { $0.status == 503 }.count
            if healthDuringStorm == nil && unavailable >= 6 { healthDuringStorm = bridge.sinkHealth }
        }
        let answered = bridge.pushward.records.filter { $0.status == 503 }
        #expect(answered.count == storm)
        // No retry storm: backoff 1, 2, 4, 8 s (±20 %), then the breaker: 30, 60, 120 s…
        let gaps = zip(answered.dropFirst(), answered).map { $0.time - $1.time }
        for (index, gap) in gaps.enumerated().dropFirst() {
            #expect(gap >= 0.8 * gaps[index - 1] - 2, "gaps \(gaps) shrink at \(index)")
        }
        #expect(gaps.count == storm - 1 && gaps.dropFirst(4).allSatisfy { $0 >= 28 }, "breaker pauses: \(gaps)")
        let span = (answered.last?.time ?? 0) - (answered.first?.time ?? 0)
        let during = try #require(healthDuringStorm)
        #expect(during.status == .degraded)
        #expect(during.details["breaker"] == "open")
        #expect(during.lastError?.contains("circuit open") == true, "\(during.lastError ?? "")")
        await Self.expectCompleted(bridge)
        #expect(bridge.sinkHealth?.status == .ok && bridge.sinkHealth?.details["breaker"] == nil)
        Figures.record(
            "503 storm",
            "\(storm) consecutive 503s answered over \(Int(span)) virtual seconds, gaps \(gaps.map { Int($0.rounded()) }) s"
        )
        await bridge.shutdown()
    }

    @Test("429 with Retry-After: the next request waits exactly that long; a huge Retry-After is clamped")
    func rateLimitRetryAfter() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        var injected = false
        var healthWhileWaiting: ComponentHealth?
        try await bridge.play(Self.download(base), through: base + 2100) { t in
            if !injected && t >= base + 200 {
                injected = true
                bridge.pushward.inject([
                    .rateLimit(retryAfter: 90, inBody: false), .rateLimit(retryAfter: 3600, inBody: true),
                ])
            }
            if healthWhileWaiting == nil, bridge.pushward.records.contains(where: { $0.status == 429 }) {
                healthWhileWaiting = bridge.sinkHealth
            }
        }
        let records = bridge.pushward.records
        let limited = records.enumerated().filter { $0.element.status == 429 }
        #expect(limited.count == 2)
        let first = try #require(limited.first)
        let second = try #require(limited.last)
        #expect(second.offset == first.offset + 1, "nothing in between: the whole sink waited")
        let firstWait = second.element.time - first.element.time
        #expect(firstWait >= 90 && firstWait <= 92, "Retry-After 90 honoured: waited \(firstWait) s")
        let after = try #require(records.dropFirst(second.offset + 1).first)
        let secondWait = after.time - second.element.time
        #expect(secondWait >= 120 && secondWait <= 122, "Retry-After 3600 clamped to 120 s: waited \(secondWait) s")
        let waiting = try #require(healthWhileWaiting)
        #expect(waiting.status == .degraded && waiting.lastError?.contains("rate limited; waiting 90 s") == true)
        await Self.expectCompleted(bridge)
        await bridge.shutdown()
    }

    /// Plays the download with one update left this month from its fifth minute on (the service
    /// then refuses with quota.exceeded until `resetAt`); returns when the refusal came.
    /// `tick` sees each step's time and the refusal's, once there was one.
    static func spendQuota(
        _ bridge: VirtualBridge, resetAt reset: Double, tick: (Double, Double?) -> Void = { _, _ in }
    ) async throws -> Double {
        let base = bridge.clock.now
        var spent = false
        var refusedAt: Double?
        try await bridge.play(Self.download(base), through: base + 2100, step: 2) { t in
            if !spent && t >= base + 300 {
                spent = true
                bridge.pushward.setQuota(limit: 1, used: 0, resetAt: reset)
            }
            if refusedAt == nil, let refused = bridge.pushward.records.first(where: { $0.status == 429 }) {
                refusedAt = refused.time
            }
            tick(t, refusedAt)
        }
        return try #require(refusedAt)
    }

    @Test(
        "quota spent mid-month: one refused request, then no update until reset_at (one GET /auth/me an hour asks whether it was lifted); health says why; then the latest"
    )
    func quotaExhaustedMidMonth() async throws {
        let bridge = try await VirtualBridge()
        let reset = bridge.clock.now + 3 * 3600
        var healthWhileSpent: (ComponentHealth?, String)?
        let refused = try await Self.spendQuota(bridge, resetAt: reset) { t, refusedAt in
            if healthWhileSpent == nil, let refusedAt, t > refusedAt + 60 {
                healthWhileSpent = (bridge.sinkHealth, bridge.healthText)
            }
        }
        // The job ended while the quota was spent: no update was sent, not even retries.
        func updates(after time: Double) -> [FakePushWardServer.Record] {
            bridge.pushward.records.filter { $0.time > time && $0.method != "GET" }
        }
        #expect(updates(after: refused).isEmpty)
        #expect(bridge.pushward.activity(Self.slug)?.state == "ongoing")
        let (health, text) = try #require(healthWhileSpent)
        #expect(health?.status == .degraded)
        #expect(
            health?.lastError?.contains("monthly quota exhausted; holding the latest state until it resets") == true)
        #expect(health?.details["quota"] == "exhausted until 2026-06-15T13:00:00.000Z", "reset_at of the problem")
        #expect(text.contains("quota"))
        // Hours pass; the month's quota resets at reset_at.
        var t = bridge.clock.now
        while t < reset - 1 {
            t = min(reset - 1, t + 600)
            await bridge.advance(to: t)
        }
        #expect(updates(after: refused).isEmpty, "no update before reset_at")
        let checks = bridge.pushward.records.filter { $0.time > refused && $0.method == "GET" }
        #expect(checks.allSatisfy { $0.path == "/auth/me" })
        #expect(checks.count == 2, "one check an hour while the quota stays spent: \(checks.map(\.time))")
        bridge.pushward.setQuota(limit: nil)
        await bridge.advance(to: reset + 1)
        await bridge.advance(to: reset + 10)
        let afterReset = updates(after: refused)
        #expect(afterReset.count <= 2, "the latest state in one or two requests, not a backlog: \(afterReset.count)")
        await Self.expectCompleted(bridge)
        #expect(bridge.sinkHealth?.details["quota"] == nil)
        Figures.record(
            "quota spent mid-month",
            "1 refused request, 0 updates for \(Int((reset - refused) / 60)) virtual minutes "
                + "(\(checks.count) GET /auth/me), \(afterReset.count) request(s) at reset_at carrying the ended job")
        await bridge.shutdown()
    }

    @Test(
        "quota spent, then lifted by an upgrade before its reset: the next hourly check sees it and the latest state goes out then, not on the 1st"
    )
    func quotaLiftedByUpgrade() async throws {
        let bridge = try await VirtualBridge()
        let reset = bridge.clock.now + 20 * 86400
        let refused = try await Self.spendQuota(bridge, resetAt: reset)
        #expect(bridge.pushward.activity(Self.slug)?.state == "ongoing", "held: the job's end not sent")
        // The user upgrades 40 minutes after the refusal; the next check is an hour after it.
        await bridge.advance(to: refused + 2400)
        bridge.pushward.setQuota(limit: nil, used: 1, resetAt: reset)
        await bridge.advance(to: refused + 3599)
        #expect(bridge.pushward.records.filter { $0.time > refused && $0.method != "GET" }.isEmpty)
        await bridge.advance(to: refused + 3600 + 10)
        let sent = bridge.pushward.records.filter { $0.time > refused && $0.method != "GET" }
        #expect(!sent.isEmpty && sent.allSatisfy { $0.time >= refused + 3600 && $0.status < 300 })
        #expect(sent.count <= 2, "the latest state in one or two requests, not a backlog: \(sent.count)")
        await Self.expectCompleted(bridge)
        #expect(bridge.sinkHealth?.details["quota"] == nil)
        #expect(bridge.sinkHealth?.status == .ok)
        Figures.record(
            "quota lifted by an upgrade",
            "the held state went out \(Int((sent.first?.time ?? refused) - refused)) s after the refusal, "
                + "\(Int((reset - refused) / 86400)) days before reset_at")
        await bridge.shutdown()
    }

    @Test("answers slower than the timeout: the client gives up, one request at a time, retries; nothing doubled")
    func slowerThanTimeout() async throws {
        let clock = VirtualClock(start: VirtualBridge.start)
        let pushward = try FakePushWardServer(apiKey: VirtualBridge.apiKey, clock: clock)
        let front = try SlowFront(upstream: pushward.baseURL)
        defer { front.shutdown() }
        let bridge = try await VirtualBridge(clock: clock, pushward: pushward, baseURL: front.baseURL, sinkTimeout: 0.5)
        let base = clock.now
        let slowUntil = base + 120
        var healthWhileSlow: ComponentHealth?
        var slowCounts: (arrived: Int, forwarded: Int, abandoned: Int)?
        let started = ContinuousClock.now
        try await bridge.play(Self.download(base), through: base + 2100) { t in
            if t == base { front.setDelay(2) }
            if t < slowUntil, front.counts.abandoned >= 2, healthWhileSlow == nil {
                healthWhileSlow = bridge.sinkHealth
            }
            if t >= slowUntil, slowCounts == nil {
                slowCounts = front.counts
                front.setDelay(nil)
            }
        }
        let counts = try #require(slowCounts)
        #expect(counts.forwarded == 0, "no slow request reached the service")
        #expect(counts.abandoned >= 3 && counts.abandoned <= 8, "\(counts.abandoned) timed-out attempts in 2 minutes")
        // One request at a time: the next attempt starts only after the client gave up on the last.
        let gaps = front.arrivalGaps
        #expect(gaps.allSatisfy { $0 >= 0.45 }, "arrivals while slow, seconds apart: \(gaps)")
        let slow = try #require(healthWhileSlow)
        #expect(slow.status == .degraded)
        #expect(slow.lastError?.contains("time limit") == true, "\(slow.lastError ?? "")")
        await Self.expectCompleted(bridge)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(20))
        Figures.record(
            "responses slower than the timeout",
            "\(counts.abandoned) attempts timed out (0.5 s each, real) in 2 virtual minutes, none reached the "
                + "service; then delivered normally")
        await bridge.shutdown()
    }
}
