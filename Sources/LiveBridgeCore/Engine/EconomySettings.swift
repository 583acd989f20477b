/// The push economy's knobs (`economy` in the config).
public struct EconomySettings: Sendable, Hashable {
    /// ε: the largest difference between the bar on the phone and the truth before a push.
    public var maxDisplayError: Double = 0.03
    /// An ETA moving by more than max(this, `etaToleranceFraction` × remaining) is pushed.
    public var etaToleranceMinimum: Double = 60
    /// See `etaToleranceMinimum`.
    public var etaToleranceFraction: Double = 0.10
    /// Seconds between the final `ongoing` frame and `state: ended` in a two-phase end.
    public var endDisplay: Double = 4
    /// 2 = final frame then `ended` after `endDisplay`; 1 = one request (final content with
    /// `state: ended`). Nil = automatic: 1 when a monthly budget is set, else 2.
    public var endFrames: Int?
    /// Volatile details (speed, temperatures) are refreshed on a push at most this often.
    public var detailInterval: Double = 600
    /// Updates allowed per calendar month (UTC) per sink; nil = unlimited.
    public var monthlyBudget: Int?
    /// Lower bound of the `stale_ttl` derived from the ETA.
    public var staleTTLMinimum: Double = 3600
    /// Upper bound of the derived `stale_ttl` (iOS ends a Live Activity after 8 h anyway).
    public var staleTTLMaximum: Double = 28800
    /// `stale_ttl` when the ETA is unknown (paused, no estimate).
    public var staleTTLUnknown: Double = 14400
    /// With a monthly budget, card-text changes within a phase wait for the next push once the
    /// month's projection has widened ε by this factor.
    public var labelDeferralWidening: Double = 1.5
    /// `ended_ttl` sent on create.
    public var endedTTL: Int = 900
    /// `dismissal_ttl` sent on create.
    public var dismissalTTL: Int = 900
    /// Re-anchor this many seconds before `end_date` passes while the job still runs (the bar
    /// would otherwise fall back to the pushed progress).
    public var deadlineLead: Double = 3
    /// `end_date` is set this much after the estimated finish (at most, and never more than keeps
    /// the glide within 0.3 ε of the truth), so a job finishing on time ends before the bar
    /// would fall back and no re-anchor is needed.
    public var finishPad: Double = 10
    /// Glide only when the finish is at least this far ahead; shorter tails stand still.
    public var liveMinimumWindow: Double = 20
    /// A fixed finish time (a timer) is pushed unchanged; if the job still runs this long after
    /// it, the bar is frozen at the truth.
    public var fixedFinishGrace: Double = 10
    /// A truth older than this is not extrapolated; the bar is frozen at it instead.
    public var truthMaximumAge: Double = 120
    /// An ETA deviation beyond the tolerance must last this long (seconds) before it is pushed.
    public var etaPersistence: Double = 30
    /// A source's ETA moving is pushed only when the pace measured since the last push agrees it
    /// moved; the pace needs this many seconds of progress to be judged.
    public var etaTrendMinimum: Double = 60
    /// Static sinks (no interpolation on the device): ε. Every correction of a static bar is a
    /// push, so the default is wider than the interpolating one.
    public var staticMaxDisplayError: Double = 0.05
    /// Static sinks: at least this many seconds between two non-structural pushes.
    public var staticMinimumInterval: Double = 60
    /// Static sinks: the "N min" label is corrected when off by more than max(this, fraction ×
    /// remaining).
    public var staticETAToleranceMinimum: Double = 120
    /// See `staticETAToleranceMinimum`.
    public var staticETAToleranceFraction: Double = 0.25

    public init() {}

    /// The effective number of end frames.
    public var effectiveEndFrames: Int { endFrames ?? (monthlyBudget == nil ? 2 : 1) }
}
