/// Where a job is in its life, as an adapter sees it.
public enum ActivityPhase: Sendable, Hashable, CustomStringConvertible {
    /// Running: the bar moves.
    case active
    /// Paused or stalled on purpose: the bar holds still.
    case paused
    /// Finished, one way or another.
    case ended(ActivityOutcome)

    /// True for `.ended`.
    public var isEnded: Bool {
        if case .ended = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .active: "active"
        case .paused: "paused"
        case .ended(let outcome): "ended(\(outcome.rawValue))"
        }
    }

    /// Parses `active`, `paused`, `ended`, `success`, `failure`, `cancelled`, `ended(failure)`.
    public init?(text: String) {
        switch text.lowercased() {
        case "active", "running", "ongoing": self = .active
        case "paused": self = .paused
        case "ended", "success", "ended(success)", "complete", "completed": self = .ended(.success)
        case "failure", "failed", "ended(failure)": self = .ended(.failure)
        case "cancelled", "canceled", "ended(cancelled)": self = .ended(.cancelled)
        default: return nil
        }
    }
}

/// How an ended job ended.
public enum ActivityOutcome: String, Sendable, Hashable, Codable {
    case success, failure, cancelled
}

/// The best estimate of when a job finishes.
public enum ActivityETA: Sendable, Hashable {
    /// Seconds left, measured at the update's observation time.
    case remaining(Double)
    /// An absolute finish time in Unix seconds that never drifts (a Home Assistant timer's
    /// `finishes_at`, a timestamp sensor); used as `end_date` unchanged.
    case finishesAt(Double)

    /// Latest finish an `end_date` can carry: 9999-12-31T23:59:59Z, the last time RFC 3339 writes.
    public static let latestFinish: Double = 253_402_300_799

    /// The finish time in Unix seconds given the observation time.
    public func finish(observedAt time: Double) -> Double {
        switch self {
        case .remaining(let seconds): time + max(0, seconds)
        case .finishesAt(let date): date
        }
    }
}

/// What an adapter saw, translated into the generic template: one value per observation.
///
/// Adapters say what is true and what the card should say; they never decide when to push and
/// never compute `end_date` — the tracker does, per sink.
public struct ActivityUpdate: Sendable, Hashable {
    /// The activity's slug (`sabnzbd-home`), unique per service account.
    public var slug: String
    /// Display name (`SABnzbd (home)`).
    public var name: String
    public var phase: ActivityPhase
    /// The desired card: state text, icon, subtitle, colours, actions. `progress`, `end_date`,
    /// `live_progress` and `remaining_time` are ignored here; the tracker derives them.
    public var content: GenericContent
    /// Volatile details (a subtitle with the current speed, temperatures): they ride along with
    /// pushes that happen anyway and never cause one on their own.
    public var details: GenericContent
    /// The truth: progress 0…1, nil when the source does not know.
    public var progress: Double?
    /// The truth: when the job should finish, nil when unknown.
    public var eta: ActivityETA?
    /// Lock Screen priority 0…10 (service-side eviction order).
    public var priority: Int?
    /// When the source observed this (Unix seconds); nil means "now".
    public var observedAt: Double?
    /// When `progress` was true, if earlier than `observedAt` (a Home Assistant sensor's
    /// `last_changed` when another entity's change brought this update); nil: at `observedAt`.
    public var progressObservedAt: Double?
    /// The step the source reports progress in (0.01 for a whole-percent value), nil if fine.
    public var progressResolution: Double?
    /// How precisely the source states its remaining time, seconds (60 for whole minutes).
    public var etaResolution: Double?
    /// A person or an automation asked for this card (the activities API, `livebridge send`): its
    /// start is pushed at once, never held for an estimate (`EconomySettings.startWait`).
    public var immediate: Bool = false
    /// The source states a finish of its own (a remaining-time sensor, SABnzbd's `timeleft`, a
    /// printer's minutes left), though this update may not carry one yet: a job's first frame
    /// without it waits for the source's next report (`EconomySettings.estimateWait`).
    public var statesFinish: Bool = false
    /// The progress stands for this stage: the source no longer moves it (SABnzbd's post-processing,
    /// after the download part is over). The bar shows it as it is, with no glide or countdown,
    /// instead of where a glide through its last steps would have it.
    public var progressHolds: Bool = false
    /// The configured source that reported it (`sources[].name`), set by the runtime; nil for a
    /// card from the activities API. Sinks use it to group and to pick per-source settings.
    public var source: String?

    public init(
        slug: String, name: String, phase: ActivityPhase, content: GenericContent = GenericContent(),
        details: GenericContent = GenericContent(), progress: Double? = nil, eta: ActivityETA? = nil,
        priority: Int? = nil, observedAt: Double? = nil, progressObservedAt: Double? = nil,
        progressResolution: Double? = nil, etaResolution: Double? = nil
    ) {
        self.progressObservedAt = progressObservedAt
        self.progressResolution = progressResolution
        self.etaResolution = etaResolution
        self.slug = slug
        self.name = name
        self.phase = phase
        self.content = content
        self.details = details
        self.progress = progress
        self.eta = eta
        self.priority = priority
        self.observedAt = observedAt
    }
}
