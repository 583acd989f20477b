import LiveBridgeCore
import Testing

@Suite("The one backoff schedule")
struct BackoffTests {
    @Test("the n-th failure waits initial · multiplier^(n−1), capped at the maximum")
    func closedForm() {
        for (initial, maximum, multiplier) in [(1.0, 30.0, 2.0), (3, 60, 2), (0.25, 1, 2), (15, 300, 3), (90, 60, 2)] {
            let backoff = Backoff(initial: initial, maximum: maximum, multiplier: multiplier)
            for n in 1...40 {
                var expected = initial
                for _ in 1..<n { expected *= multiplier }
                #expect(backoff.delay(failure: n) == min(maximum, expected), "\(initial) \(maximum) n=\(n)")
            }
            #expect(backoff.delay(failure: 0) == 0)
        }
    }

    @Test("jitter spreads a delay by at most its share either way, never past the maximum or below 0")
    func jitter() {
        let backoff = Backoff(initial: 1, maximum: 30, jitter: 0.2)
        for n in 1...8 {
            let middle = Backoff(initial: 1, maximum: 30).delay(failure: n)
            let low = backoff.delay(failure: n, random: 0)
            let high = backoff.delay(failure: n, random: 1)
            #expect(abs(low - middle * 0.8) < 1e-12)
            #expect(abs(high - min(30, middle * 1.2)) < 1e-12)
            #expect(backoff.delay(failure: n, random: 0.5) == middle)
        }
    }

    @Test("consecutive failures escalate; a reset and a stable connection start again")
    func counting() {
        var backoff = Backoff(initial: 2, maximum: 16, stableAfter: 60)
        #expect((0..<5).map { _ in backoff.attemptFailed() } == [2, 4, 8, 16, 16])
        backoff.reset()
        #expect(backoff.attemptFailed() == 2)
        #expect(backoff.connectionLost(after: 59) == 4)
        #expect(backoff.connectionLost(after: 60) == 2)
        #expect(backoff.attemptFailed(permanent: true) == 16)
        #expect(backoff.attemptFailed() == 16)
    }

    @Test("delivery's retry delays are the schedule's, with the policy's jitter")
    func retryPolicy() {
        let policy = RetryPolicy()
        for attempt in 1...10 {
            for random in [0.0, 0.3, 0.5, 1.0] {
                var base = policy.initialDelay
                for _ in 1..<attempt { base *= policy.multiplier }
                base = min(policy.maximumDelay, base)
                let expected = min(policy.maximumDelay, max(0, base + base * policy.jitter * (2 * random - 1)))
                #expect(policy.delay(attempt: attempt, random: random) == expected)
            }
        }
    }
}
