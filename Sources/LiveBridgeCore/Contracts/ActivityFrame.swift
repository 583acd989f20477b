/// The role of a frame in an activity's life.
public enum FrameKind: String, Sendable, Hashable, Codable {
    /// Create (idempotent upsert) and seed the full content with `state: ongoing`.
    case seed
    /// A merge patch of changed content while ongoing.
    case update
    /// The last ongoing frame of a two-phase end (final text, anchors cleared).
    case final
    /// `state: ended` (with the final content when it carries one).
    case end
}

/// Why the tracker pushed: logged, counted and shown in the preview's push log.
public enum PushReason: String, Sendable, Hashable, Codable {
    case start, resync, structural, displayError, etaMoved, deadline, heartbeat, details, final, end, restart
    /// The Live Activity is ended and started afresh before iOS ends it for its age (8 h ongoing).
    case renewal
    /// A job of higher priority took this one's place on the phone (`Sink.maxOngoing`); it waits.
    case displaced
}

/// Service-side lifetimes, in seconds (nil = leave as the service has it).
public struct ActivityTTLs: Sendable, Hashable, Codable {
    public var stale: Int?
    public var ended: Int?
    public var dismissal: Int?

    public init(stale: Int? = nil, ended: Int? = nil, dismissal: Int? = nil) {
        self.stale = stale
        self.ended = ended
        self.dismissal = dismissal
    }
}

/// One thing to send to one sink for one activity: what the tracker decided.
///
/// It carries both the minimal merge patch (what PushWard wants) and the full content after it
/// (what a sink that keeps its own model, or recreates after a 404, needs).
public struct ActivityFrame: Sendable, Hashable {
    public var slug: String
    public var name: String
    public var kind: FrameKind
    /// The PATCH `state` field: `"ongoing"`, `"ended"` or nil (keep).
    public var activityState: String?
    /// RFC 7396 patch of the generic content (a JSON object).
    public var patch: JSONValue
    /// The whole content after `patch` (a JSON object).
    public var content: JSONValue
    public var ttls: ActivityTTLs
    public var priority: Int?
    public var outcome: ActivityOutcome?
    /// The truth behind the frame, for sinks that render time themselves.
    public var truthProgress: Double?
    /// Absolute finish time (Unix seconds) the frame anchors to, if any.
    public var finishesAt: Double?
    /// True when the finish time is a fixed timestamp from the source (a timer).
    public var fixedFinish: Bool
    /// When the tracker made the frame (Unix seconds).
    public var time: Double
    public var reason: PushReason
    /// Monotonic per tracker, so sinks and fakes can check ordering.
    public var sequence: Int
    /// A frame that starts or ends the activity (the seed, its first glide, the end frames):
    /// the monthly budget reserves room for these and never skips them.
    public var essential: Bool = false
    /// The job was paused when the frame was made (the bar holds still), for sinks that say so.
    public var paused: Bool = false
    /// The configured source whose job this is (see `ActivityUpdate.source`), nil for the API.
    public var source: String?

    public init(
        slug: String, name: String, kind: FrameKind, activityState: String?, patch: JSONValue, content: JSONValue,
        ttls: ActivityTTLs = ActivityTTLs(), priority: Int? = nil, outcome: ActivityOutcome? = nil,
        truthProgress: Double? = nil, finishesAt: Double? = nil, fixedFinish: Bool = false, time: Double,
        reason: PushReason, sequence: Int
    ) {
        self.slug = slug
        self.name = name
        self.kind = kind
        self.activityState = activityState
        self.patch = patch
        self.content = content
        self.ttls = ttls
        self.priority = priority
        self.outcome = outcome
        self.truthProgress = truthProgress
        self.finishesAt = finishesAt
        self.fixedFinish = fixedFinish
        self.time = time
        self.reason = reason
        self.sequence = sequence
    }

    /// True when this frame ends the activity.
    public var isEnd: Bool { kind == .end }

    /// Folds a newer frame for the same slug into this waiting one, when one request can carry
    /// both: the newer content wins, patches compose, and an end is never merged away.
    public func merging(_ newer: ActivityFrame) -> ActivityFrame? {
        guard slug == newer.slug, kind != .end else { return nil }
        if kind == .seed && newer.kind == .end { return nil }
        guard let composed = MergePatch.compose(patch, newer.patch) else { return nil }
        var merged = newer
        merged.patch = composed
        if kind == .seed { merged.kind = .seed }
        merged.activityState = newer.activityState ?? activityState
        merged.ttls = ActivityTTLs(
            stale: newer.ttls.stale ?? ttls.stale, ended: newer.ttls.ended ?? ttls.ended,
            dismissal: newer.ttls.dismissal ?? ttls.dismissal)
        merged.priority = newer.priority ?? priority
        // A final frame's outcome survives an end folded onto it (the end itself carries none).
        merged.outcome = newer.outcome ?? outcome
        merged.essential = essential || newer.essential
        return merged
    }
}
