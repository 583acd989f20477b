/// What delivery knows about one sink's faults, as a state machine: each result goes in, the
/// frame's verdict and the actions to perform (health, logs) come out. Pure (the time and the
/// error are arguments, the jitter is its own seeded source), so every path is tested without a
/// sink; `DeliveryQueue` performs the actions.
///
/// The sink may be called when no gate is closed: an open circuit breaker (after
/// `breakerThreshold` unavailable faults in a row; its cooldown doubles while the service stays
/// down, up to `breakerMaximumCooldown`), a 429's wait, a spent quota until its reset, an
/// authentication pause. Any accepted frame opens every gate.
struct DeliveryFaults: Sendable {
    /// What happens to the frame that failed.
    enum Verdict: Equatable, Sendable {
        /// Send it again at this time.
        case retry(at: Double)
        /// Keep it at the head until the gates open (a spent quota resets the frame's attempts).
        case hold(resettingAttempts: Bool)
        /// Give it up and report it (refused for good, or out of attempts).
        case drop
    }

    /// What the queue does about it, in order.
    enum Action: Equatable, Sendable {
        case health(HealthStatus, String?)
        case detail(String, String?)
        case log(LogLevel, String, [String: String])
    }

    let policy: RetryPolicy
    let sink: String
    /// The sink says its own quota (`Sink.keepsOwnQuota`): the gate holds, the saying is its.
    let sinkKeepsQuota: Bool
    /// The sink can say whether a spent quota was lifted (`Sink.reportsQuota`).
    let sinkReportsQuota: Bool
    private(set) var consecutiveFaults = 0
    private(set) var breakerOpenUntil: Double?
    private(set) var breakerCooldown: Double
    private(set) var quotaUntil: Double?
    /// When the sink is next asked whether the spent quota was lifted (before `quotaUntil`).
    private(set) var quotaCheckAt: Double?
    private(set) var authenticationUntil: Double?
    private(set) var rateLimitedUntil: Double?
    private var jitter: JitterSource

    init(
        policy: RetryPolicy, sink: String, jitter: JitterSource, sinkKeepsQuota: Bool = false,
        sinkReportsQuota: Bool = false
    ) {
        self.policy = policy
        self.sink = sink
        self.sinkKeepsQuota = sinkKeepsQuota
        self.sinkReportsQuota = sinkReportsQuota
        self.jitter = jitter
        breakerCooldown = policy.breakerCooldown
    }

    /// When the sink may next be called at all, if not now.
    var gate: Double? {
        [quotaUntil, authenticationUntil, breakerOpenUntil, rateLimitedUntil].compactMap { $0 }.max()
    }

    /// When delivery next has something to do about the gates: the gate itself, or the spent
    /// quota's next check before it.
    var nextLook: Double? {
        guard let gate else { return nil }
        guard let check = quotaCheckAt, let quota = quotaUntil, check < quota else { return gate }
        let others = [authenticationUntil, breakerOpenUntil, rateLimitedUntil].compactMap { $0 }.max()
        return max(check, others ?? check)
    }

    /// True (and the check taken) when the spent quota's check is due at `now`.
    mutating func takeQuotaCheck(now: Double) -> Bool {
        guard let check = quotaCheckAt, check <= now, let quota = quotaUntil, quota > now else { return false }
        quotaCheckAt = nil
        return true
    }

    /// The sink answered the quota's check at `now`: lifted (an upgrade), the quota's gate opens;
    /// still spent, or no answer, it is asked again `quotaRecheck` later if that is before the reset.
    mutating func quotaChecked(available: Bool?, now: Double) -> [Action] {
        guard let quota = quotaUntil else { return [] }
        guard available == true else {
            scheduleQuotaCheck(now: now, until: quota)
            return []
        }
        quotaUntil = nil
        quotaCheckAt = nil
        var actions: [Action] = [
            .log(.info, "quota available again before its reset; sending", ["sink": sink])
        ]
        if gate == nil, consecutiveFaults == 0 { actions.append(.health(.ok, nil)) }
        if !sinkKeepsQuota { actions.append(.detail("quota", nil)) }
        return actions
    }

    private mutating func scheduleQuotaCheck(now: Double, until quota: Double) {
        let check = now + policy.quotaRecheck
        quotaCheckAt = sinkReportsQuota && check < quota ? check : nil
    }

    /// The service accepted a frame: every gate opens.
    mutating func accepted() -> [Action] {
        var actions: [Action] = []
        if breakerOpenUntil != nil || consecutiveFaults > 0 || (quotaUntil != nil && !sinkKeepsQuota) {
            actions.append(.log(.info, "push service accepting again", ["sink": sink]))
        }
        consecutiveFaults = 0
        breakerOpenUntil = nil
        breakerCooldown = policy.breakerCooldown
        quotaUntil = nil
        quotaCheckAt = nil
        authenticationUntil = nil
        rateLimitedUntil = nil
        actions += [.health(.ok, nil), .detail("breaker", nil)]
        if !sinkKeepsQuota { actions.append(.detail("quota", nil)) }
        return actions
    }

    /// A frame for `slug` failed with `error` on its `attempt`-th try (1-based) at `now`.
    mutating func failed(_ error: SinkError, slug: String, attempt: Int, now: Double) -> (Verdict, [Action]) {
        let outOfAttempts = policy.maximumAttempts.map { attempt >= $0 } ?? false
        switch error.kind {
        case .unavailable:
            consecutiveFaults += 1
            if outOfAttempts { return (.drop, []) }
            let delay = policy.delay(attempt: attempt, random: jitter.next())
            guard consecutiveFaults >= policy.breakerThreshold else {
                return (
                    .retry(at: now + delay),
                    [
                        .health(.degraded, "\(sink): \(error); retrying in \(Int(delay.rounded())) s"),
                        .log(
                            .warning, "delivery failed, retrying",
                            [
                                "sink": sink, "slug": slug, "error": error.description,
                                "retry_in_s": String(Int(delay.rounded())),
                            ]),
                    ]
                )
            }
            let wasOpen = breakerOpenUntil != nil
            breakerOpenUntil = now + breakerCooldown
            var actions: [Action] = [
                .health(
                    .degraded, "\(sink): service unavailable (\(error)); circuit open for \(Int(breakerCooldown)) s"),
                .detail("breaker", "open"),
            ]
            if !wasOpen {
                actions.append(.log(.warning, "circuit breaker open", ["sink": sink, "error": error.description]))
            }
            breakerCooldown = min(policy.breakerMaximumCooldown, breakerCooldown * 2)
            return (.retry(at: now + delay), actions)
        case .rateLimited(let retryAfter):
            if outOfAttempts { return (.drop, []) }
            let wait = min(policy.rateLimitCap, max(0, retryAfter))
            rateLimitedUntil = now + wait
            return (
                .retry(at: now + wait),
                [
                    .health(.degraded, "\(sink): rate limited; waiting \(Int(wait.rounded())) s"),
                    .log(.warning, "rate limited", ["sink": sink, "wait_s": String(Int(wait.rounded()))]),
                ]
            )
        case .quotaExhausted(let until):
            let resume = QuotaReset.resume(stated: until, now: now)
            quotaUntil = resume
            scheduleQuotaCheck(now: now, until: resume)
            let actions: [Action] =
                sinkKeepsQuota
                ? []
                : [
                    .health(.degraded, "\(sink): monthly quota exhausted; holding the latest state until it resets"),
                    .detail("quota", "exhausted until \(LogRecord.formatTime(resume))"),
                    .log(
                        .error, "quota exhausted; not sending until reset",
                        ["sink": sink, "reset": LogRecord.formatTime(resume)]),
                ]
            return (policy.maximumAttempts != nil ? .drop : .hold(resettingAttempts: true), actions)
        case .authentication:
            authenticationUntil = now + policy.authenticationPause
            let actions: [Action] = [
                .health(.error, "\(sink): \(error.message)"),
                .log(.error, "authentication failed; sink paused", ["sink": sink, "error": error.description]),
            ]
            return (policy.maximumAttempts != nil ? .drop : .hold(resettingAttempts: false), actions)
        case .rejected:
            return (.drop, [])
        }
    }
}
