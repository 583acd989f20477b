/// When a spent monthly quota lets calls through again, from the reset a service states.
///
/// A monthly quota resets within a month, so a stated reset past the start of the month after
/// next is not one (a garbled date, a year 2500): it is held to that start rather than trusted
/// until a restart. A reset at or before now (the service's clock behind this one's, or a reset
/// it has not applied yet) is checked again `recheck` seconds on, not at once: every call would
/// be refused again, in a loop of requests as fast as the service answers.
public enum QuotaReset {
    /// How long after a stated reset that has already passed the quota is tried again.
    public static let recheck: Double = 300

    /// The time to hold calls until for a reset stated as `stated` (Unix seconds) at `now`; when
    /// the service states none, the start of the next month (UTC).
    public static func resume(stated: Double?, now: Double) -> Double {
        guard let stated else { return CivilTime(unixSeconds: now).startOfNextMonth }
        return resume(stated: stated, now: now)
    }

    /// The time to hold calls until for a reset stated as `stated` (Unix seconds) at `now`.
    public static func resume(stated: Double, now: Double) -> Double {
        let latest = CivilTime(unixSeconds: CivilTime(unixSeconds: now).startOfNextMonth).startOfNextMonth
        guard stated > now else { return now + recheck }
        return min(stated, latest)
    }
}
