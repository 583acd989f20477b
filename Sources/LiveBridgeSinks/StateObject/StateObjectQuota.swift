import LiveBridgeCore

/// The state-object free tier's monthly call limit, which the sink owns (`Sink.keepsOwnQuota`):
/// once the service answers `FREE_TIER_LIMIT_REACHED`, no call is made until the next month
/// (UTC), across restarts (the sink saves `until` in its account), and the sink's `/health` entry
/// says so — this is the entry's one writer of `quota`.
struct StateObjectQuota {
    let name: String
    let logger: Logger
    let health: HealthReporter?
    /// The reset, while the limit is reached.
    private(set) var until: Double?

    /// `remembered`: the reset saved before a restart; still ahead of `now`, it holds again.
    init(name: String, remembered: Double?, now: Double, logger: Logger, health: HealthReporter?) {
        self.name = name
        self.logger = logger
        self.health = health
        if let remembered, remembered > now {
            until = remembered
            say(remembered)
        }
    }

    func isExhausted(at now: Double) -> Bool { (until ?? -.infinity) > now }

    /// Throws while the limit holds; when its month is over, clears it and returns true (the
    /// account is saved again).
    mutating func check(at now: Double) throws(SinkError) -> Bool {
        guard let until else { return false }
        if until > now {
            throw SinkError(
                .quotaExhausted(until: until), code: "FREE_TIER_LIMIT_REACHED", status: 402,
                message: Self.message(name: name, until: until))
        }
        self.until = nil
        health?.setDetail("quota", nil)
        logger.info("free tier month over; sending again")
        return true
    }

    /// The service said the limit is reached, until `reset` (nil: the start of the next month).
    mutating func reached(until reset: Double?, now: Double) {
        let reset = QuotaReset.resume(stated: reset, now: now)
        if until == nil { logger.error("free tier limit reached; no calls until it resets", ["sink": name]) }
        until = reset
        say(reset)
    }

    private func say(_ reset: Double) {
        health?.set(.degraded, Self.message(name: name, until: reset))
        health?.setDetail("quota", "free tier limit reached; no calls until \(RFC3339.format(reset))")
    }

    static func message(name: String, until: Double) -> String {
        "\(name): the state-object free tier's monthly call limit is reached; no calls until "
            + "\(RFC3339.format(until)) (the latest state is sent then)"
    }
}
