public import LiveBridgeCore

/// What the preview page shows: per activity, the content PushWard would store, its state, the
/// time of the last push (the anchor of the glide), a push log and counters.
///
/// A value type with no I/O and no clock (every method takes the time), so the service-side
/// semantics — a seed replaces the stored content, later patches merge per RFC 7396, `null`
/// deletes — are tested without a socket. Memory stays bounded: at most `activityLimit`
/// activities (the oldest ended ones go first) and `logLimit` log lines each.
public struct PreviewBoard: Sendable, Hashable {
    /// Activities kept at most.
    public var activityLimit = 32
    /// Push-log lines kept per activity (the newest).
    public var logLimit = 40

    /// Every activity, in the order they first appeared (by slug within the same instant).
    public private(set) var activities: [PreviewActivity] = []
    /// Frames applied, over every activity (also the ones evicted since).
    public private(set) var pushes = 0
    /// Observations the push economy decided were not worth a push.
    public private(set) var skipped = 0
    /// Frames that failed validation and were never sent.
    public private(set) var invalid = 0
    /// Grows with every change, so the page redraws only when something happened.
    public private(set) var version = 0
    /// Skips of slugs with no card yet (a seed waiting for its estimate): the activity starts
    /// with them. At most `activityLimit` slugs.
    private var pendingSkips: [String: Int] = [:]

    /// An empty board.
    public init() {}

    /// The activity with `slug`, if the board has one.
    public func activity(_ slug: String) -> PreviewActivity? {
        activities.first { $0.slug == slug }
    }

    /// Applies a delivered frame as the service would, at `appliedAt` (the push's anchor time).
    public mutating func apply(_ frame: ActivityFrame, at appliedAt: Double) {
        var activity: PreviewActivity
        if let index = activities.firstIndex(where: { $0.slug == frame.slug }) {
            activity = activities.remove(at: index)
            // A seed replaces what was stored; anything else merges into it.
            let base: JSONValue = frame.kind == .seed ? .object([:]) : activity.content
            activity.content = MergePatch.apply(frame.patch, to: base)
        } else {
            // First frame seen for this slug: a seed brings everything; a later frame (this
            // process started mid-activity) carries the full content the service holds after it.
            let content = frame.kind == .seed ? MergePatch.apply(frame.patch, to: .object([:])) : frame.content
            activity = PreviewActivity(slug: frame.slug, name: frame.name, content: content)
            activity.firstSeen = appliedAt
            activity.skipped = pendingSkips.removeValue(forKey: frame.slug) ?? 0
        }
        activity.name = frame.name
        if let state = frame.activityState?.lowercased(), state == "ongoing" || state == "ended" {
            if state == "ongoing" && activity.state == .ended { activity.outcome = nil }
            activity.state = state == "ended" ? .ended : .ongoing
        }
        if let outcome = frame.outcome { activity.outcome = outcome }
        if let priority = frame.priority { activity.priority = priority }
        activity.anchorTime = appliedAt
        activity.updatedAt = appliedAt
        activity.pushes += 1
        activity.appendLog(
            PreviewLogEntry(
                time: appliedAt, event: .push(kind: frame.kind, reason: frame.reason),
                activityState: frame.activityState,
                sequence: frame.sequence, changes: PreviewLogEntry.changes(of: frame.patch)),
            limit: logLimit)
        pushes += 1
        insert(activity)
    }

    /// Counts one observation of `slug` that the push economy skipped.
    public mutating func noteSkipped(slug: String) {
        skipped += 1
        if let index = activities.firstIndex(where: { $0.slug == slug }) {
            activities[index].skipped += 1
        } else if pendingSkips[slug] != nil || pendingSkips.count < activityLimit {
            pendingSkips[slug, default: 0] += 1
        }
        version += 1
    }

    /// Records a frame for `slug` that failed validation and was not sent.
    public mutating func noteInvalid(slug: String, problems: [String], at time: Double) {
        invalid += 1
        if let index = activities.firstIndex(where: { $0.slug == slug }) {
            activities[index].invalid += 1
            activities[index].appendLog(
                PreviewLogEntry(
                    time: time, event: .invalid(problems: problems.map(Redactor.shared.redact)), activityState: nil,
                    sequence: nil, changes: []),
                limit: logLimit)
        }
        version += 1
    }

    private mutating func insert(_ activity: PreviewActivity) {
        let position =
            activities.firstIndex { ($0.firstSeen, $0.slug) > (activity.firstSeen, activity.slug) }
            ?? activities.endIndex
        activities.insert(activity, at: position)
        if activities.count > activityLimit {
            // Evict the least recently updated ended activity, else the least recently updated one.
            let ended = activities.indices.filter { activities[$0].state == .ended }
            let pool = ended.isEmpty ? Array(activities.indices) : ended
            if let victim = pool.min(by: { activities[$0].updatedAt < activities[$1].updatedAt }) {
                activities.remove(at: victim)
            }
        }
        version += 1
    }
}

/// One activity as the preview keeps it: PushWard's stored content and state, and what the
/// preview learned about how it got there.
public struct PreviewActivity: Sendable, Hashable {
    /// The Live Activity's state on the service.
    public enum State: String, Sendable, Hashable {
        /// A Live Activity is running (on the Lock Screen and in the Dynamic Island).
        case ongoing
        /// Ended: the card lingers on the Lock Screen, gone from the Dynamic Island.
        case ended
    }

    /// The activity's slug.
    public var slug: String
    /// Its display name, from the latest frame.
    public var name: String
    /// The generic content after every push so far (what the phone draws from).
    public var content: JSONValue
    /// Ongoing or ended, from the frames' `state`.
    public var state: State = .ongoing
    /// How the job ended, once an end frame said so.
    public var outcome: ActivityOutcome?
    /// Lock Screen priority 0…10: higher cards are listed first, as on the phone.
    public var priority = 0
    /// When the last push was applied: t0 of the glide.
    public var anchorTime: Double = 0
    /// When the first frame arrived.
    public var firstSeen: Double = 0
    /// When the last frame arrived.
    public var updatedAt: Double = 0
    /// Frames applied to this activity.
    public var pushes = 0
    /// Observations the economy skipped for this activity.
    public var skipped = 0
    /// Frames for this activity that failed validation.
    public var invalid = 0
    /// The newest log lines, oldest first.
    public var log: [PreviewLogEntry] = []
    init(slug: String, name: String, content: JSONValue) {
        self.slug = slug
        self.name = name
        self.content = content
    }

    /// The display anchor the phone draws from: stored `progress`, `end_date`, `live_progress`
    /// and the time of the last push.
    public var anchor: DisplayAnchor {
        let progress = content["progress"]?.doubleValue ?? 0
        let endDate = content["end_date"]?.doubleValue
        let live = content["live_progress"]?.boolValue ?? false
        return DisplayAnchor(progress: progress.isFinite ? progress : 0, time: anchorTime, endDate: endDate, live: live)
    }

    /// The bar the phone shows at `t` (the interpolating display model).
    public func shownProgress(at t: Double) -> Double {
        anchor.shown(at: t, model: .interpolating)
    }

    mutating func appendLog(_ entry: PreviewLogEntry, limit: Int) {
        log.append(entry)
        if log.count > limit { log.removeFirst(log.count - limit) }
    }
}

/// One line of an activity's push log.
public struct PreviewLogEntry: Sendable, Hashable {
    /// What happened.
    public enum Event: Sendable, Hashable {
        /// A frame was delivered.
        case push(kind: FrameKind, reason: PushReason)
        /// A frame failed validation and was not sent.
        case invalid(problems: [String])
    }

    /// One member of the pushed patch, with secrets masked; `null` means "deleted".
    public struct Change: Sendable, Hashable {
        /// The content field.
        public var key: String
        /// Its new value (`null` = deleted), secrets masked.
        public var value: JSONValue

        /// A change of `key` to `value`.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// When it happened (for a push: when it was applied).
    public var time: Double
    /// A push or a frame refused by validation.
    public var event: Event
    /// The PATCH `state` the frame carried, if any.
    public var activityState: String?
    /// The frame's sequence number in its tracker.
    public var sequence: Int?
    /// The patch's members sorted by key.
    public var changes: [Change]

    /// The members of `patch`, sorted, with secrets masked.
    static func changes(of patch: JSONValue) -> [Change] {
        let members = patch.objectValue ?? [:]
        return members.keys.sorted().map { key in
            Change(key: key, value: PreviewRedaction.sanitize(members[key]!, key: key))
        }
    }
}

/// Keeps secrets off the preview page: registered secrets and `apikey=`-style carriers are
/// masked in every string, and action `headers` values and `body` (where webhook tokens live)
/// are replaced as a whole.
enum PreviewRedaction {
    static func sanitize(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(Redactor.shared.redact(text))
        case .array(let elements):
            return .array(elements.map { sanitize($0) })
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (name, member) in members {
                if name == "headers", case .object(let headers) = member {
                    result[name] = .object(headers.mapValues { $0.isNull ? .null : .string(Redactor.mask) })
                } else if name == "body", key?.hasSuffix("action") == true, !member.isNull {
                    result[name] = .string(Redactor.mask)
                } else {
                    result[name] = sanitize(member, key: name)
                }
            }
            return .object(result)
        default:
            return value
        }
    }
}
