import Testing

@testable import LiveBridgeCore

/// The fault state machine on its own: each result in, the verdict and the actions out.
@Suite("Delivery faults as a state machine")
struct DeliveryFaultsTests {
    static func machine(_ configure: (inout RetryPolicy) -> Void = { _ in }) -> DeliveryFaults {
        var policy = RetryPolicy()
        policy.jitter = 0
        configure(&policy)
        return DeliveryFaults(policy: policy, sink: "pushward", jitter: JitterSource(seed: 7))
    }

    static let unavailable = SinkError(.unavailable, status: 503, message: "service unavailable")

    @Test("unavailable: backs off per attempt; the breaker opens at the threshold, its cooldown doubles to the cap")
    func breaker() {
        var faults = Self.machine {
            $0.breakerThreshold = 3
            $0.breakerCooldown = 30
            $0.breakerMaximumCooldown = 100
        }
        let (first, firstActions) = faults.failed(Self.unavailable, slug: "a", attempt: 1, now: 1000)
        #expect(first == .retry(at: 1001))
        #expect(firstActions.first == .health(.degraded, "pushward: \(Self.unavailable); retrying in 1 s"))
        #expect(faults.gate == nil, "one fault closes no gate")
        _ = faults.failed(Self.unavailable, slug: "b", attempt: 1, now: 1000)
        let (third, opened) = faults.failed(Self.unavailable, slug: "a", attempt: 2, now: 1002)
        #expect(third == .retry(at: 1004))
        #expect(opened.contains(.detail("breaker", "open")))
        #expect(opened.contains { if case .log(.warning, "circuit breaker open", _) = $0 { true } else { false } })
        #expect(faults.breakerOpenUntil == 1032 && faults.gate == 1032)
        // Still down: the cooldown doubles (60, then capped at 100); the warning is said once.
        let (_, again) = faults.failed(Self.unavailable, slug: "a", attempt: 3, now: 1032)
        #expect(faults.breakerOpenUntil == 1092)
        #expect(!again.contains { if case .log = $0 { true } else { false } })
        _ = faults.failed(Self.unavailable, slug: "a", attempt: 4, now: 1092)
        #expect(faults.breakerOpenUntil == 1192)
        _ = faults.failed(Self.unavailable, slug: "a", attempt: 5, now: 1192)
        #expect(faults.breakerOpenUntil == 1292, "capped at breakerMaximumCooldown")
        // Accepted: every gate opens, the cooldown starts over, and the recovery is said.
        let recovered = faults.accepted()
        #expect(recovered.first == .log(.info, "push service accepting again", ["sink": "pushward"]))
        #expect(recovered.contains(.health(.ok, nil)) && recovered.contains(.detail("breaker", nil)))
        #expect(faults.gate == nil && faults.consecutiveFaults == 0 && faults.breakerCooldown == 30)
        #expect(faults.accepted().first == .health(.ok, nil), "nothing to recover from: no log line")
    }

    @Test("a 429 waits its Retry-After, capped; a spent quota holds until the reset; authentication pauses")
    func gates() {
        var faults = Self.machine { $0.rateLimitCap = 120 }
        let (limited, _) = faults.failed(
            SinkError(.rateLimited(retryAfter: 42), status: 429, message: "slow down"), slug: "a", attempt: 1, now: 0)
        #expect(limited == .retry(at: 42) && faults.gate == 42)
        let (capped, _) = faults.failed(
            SinkError(.rateLimited(retryAfter: 86_400), status: 429, message: "slow down"), slug: "a", attempt: 2,
            now: 50)
        #expect(capped == .retry(at: 170))
        let reset = 1_800_000.0  // 1970-01-21, within a month of the test's clock
        let (quota, quotaActions) = faults.failed(
            SinkError(.quotaExhausted(until: reset), status: 429, message: "quota"), slug: "a", attempt: 3, now: 60)
        #expect(quota == .hold(resettingAttempts: true))
        #expect(faults.gate == reset)
        #expect(quotaActions.contains(.detail("quota", "exhausted until \(LogRecord.formatTime(reset))")))
        // Without a stated reset: the start of the next month (UTC).
        var monthly = Self.machine()
        _ = monthly.failed(SinkError(.quotaExhausted(until: nil), message: "quota"), slug: "a", attempt: 1, now: 0)
        #expect(monthly.quotaUntil == CivilTime(unixSeconds: 0).startOfNextMonth)
        var refused = Self.machine { $0.authenticationPause = 900 }
        let (auth, authActions) = refused.failed(
            SinkError(.authentication, status: 401, message: "bad token"), slug: "a", attempt: 1, now: 10)
        #expect(auth == .hold(resettingAttempts: false))
        #expect(refused.gate == 910)
        #expect(authActions.first == .health(.error, "pushward: bad token"))
    }

    @Test("a sink that keeps its own quota: delivery holds on it but leaves the health entry's quota to the sink")
    func sinkKeepsQuota() {
        var faults = DeliveryFaults(
            policy: RetryPolicy(), sink: "watch", jitter: JitterSource(seed: 7), sinkKeepsQuota: true)
        let (verdict, actions) = faults.failed(
            SinkError(.quotaExhausted(until: 5000), status: 402, message: "free tier"), slug: "a", attempt: 1, now: 0)
        #expect(verdict == .hold(resettingAttempts: true))
        #expect(faults.gate == 5000, "the gate still holds")
        #expect(actions.isEmpty, "the sink says it: \(actions)")
        let accepted = faults.accepted()
        #expect(!accepted.contains(.detail("quota", nil)))
        #expect(!accepted.contains { if case .log = $0 { true } else { false } })
        var says = Self.machine()
        _ = says.failed(SinkError(.quotaExhausted(until: 5000), message: "q"), slug: "a", attempt: 1, now: 0)
        #expect(says.accepted().contains(.detail("quota", nil)))
    }

    @Test(
        "a spent quota is asked about once per quotaRecheck when the sink can say: lifted, its gate opens and says so; still spent or no answer, the next check an hour on; never past the reset, never for a sink that cannot say"
    )
    func quotaChecks() {
        let reset = 4 * 3600.0
        let refusal = SinkError(.quotaExhausted(until: reset), status: 429, message: "quota")
        var faults = DeliveryFaults(
            policy: RetryPolicy(), sink: "pushward", jitter: JitterSource(seed: 7), sinkReportsQuota: true)
        _ = faults.failed(refusal, slug: "a", attempt: 1, now: 60)
        #expect(faults.gate == reset, "frames still hold until the reset")
        #expect(faults.nextLook == 3660, "…but delivery looks again in an hour")
        let early = faults.takeQuotaCheck(now: 3659)
        #expect(!early)
        let due = faults.takeQuotaCheck(now: 3660)
        #expect(due)
        let again = faults.takeQuotaCheck(now: 3660)
        #expect(!again, "one check at a time")
        let stillSpent = faults.quotaChecked(available: false, now: 3661).isEmpty
        #expect(stillSpent)
        #expect(faults.nextLook == 7261)
        let secondDue = faults.takeQuotaCheck(now: 7261)
        #expect(secondDue)
        let unanswered = faults.quotaChecked(available: nil, now: 7261).isEmpty
        #expect(unanswered, "no answer: asked again later")
        #expect(faults.nextLook == 10861)
        let thirdDue = faults.takeQuotaCheck(now: 10861)
        #expect(thirdDue)
        let lastBeforeReset = faults.quotaChecked(available: false, now: 10861).isEmpty
        #expect(lastBeforeReset)
        #expect(faults.quotaCheckAt == nil, "the next check would fall after the reset")
        #expect(faults.nextLook == reset)

        var upgraded = DeliveryFaults(
            policy: RetryPolicy(), sink: "pushward", jitter: JitterSource(seed: 7), sinkReportsQuota: true)
        _ = upgraded.failed(refusal, slug: "a", attempt: 1, now: 0)
        let upgradedDue = upgraded.takeQuotaCheck(now: 3600)
        #expect(upgradedDue)
        let lifted = upgraded.quotaChecked(available: true, now: 3600)
        #expect(upgraded.gate == nil && upgraded.quotaUntil == nil)
        #expect(lifted.contains(.health(.ok, nil)) && lifted.contains(.detail("quota", nil)))
        #expect(lifted.contains(.log(.info, "quota available again before its reset; sending", ["sink": "pushward"])))

        var silent = Self.machine()
        _ = silent.failed(refusal, slug: "a", attempt: 1, now: 0)
        #expect(silent.quotaCheckAt == nil && silent.nextLook == reset, "a sink that cannot say holds to the reset")
    }

    @Test("drops: a refusal at once; with maximumAttempts, the last attempt and any quota or authentication failure")
    func drops() {
        var faults = Self.machine()
        #expect(
            faults.failed(SinkError(.rejected, status: 422, message: "invalid"), slug: "a", attempt: 1, now: 0).0
                == .drop)
        var bounded = Self.machine { $0.maximumAttempts = 2 }
        #expect(bounded.failed(Self.unavailable, slug: "a", attempt: 1, now: 0).0 == .retry(at: 1))
        #expect(bounded.failed(Self.unavailable, slug: "a", attempt: 2, now: 1).0 == .drop)
        #expect(
            bounded.failed(SinkError(.rateLimited(retryAfter: 5), message: "slow"), slug: "a", attempt: 2, now: 2).0
                == .drop)
        #expect(
            bounded.failed(SinkError(.quotaExhausted(until: 99), message: "q"), slug: "a", attempt: 1, now: 3).0
                == .drop)
        #expect(bounded.failed(SinkError(.authentication, message: "no"), slug: "a", attempt: 1, now: 4).0 == .drop)
    }
}
