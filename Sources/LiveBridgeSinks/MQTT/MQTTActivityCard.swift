public import LiveBridgeCore

/// What the MQTT sink says about one activity: the whole card for the state topic and the
/// event for the event topic, made from a frame alone (no I/O), so subscribers without Home
/// Assistant's discovery read the same fields its entities show.
public struct MQTTActivityCard: Sendable, Hashable {
    /// Where the job is, as subscribers see it.
    public enum Phase: String, Sendable {
        /// Running: the bar moves.
        case active
        /// Paused: the bar holds still; still running.
        case paused
        /// Over, with an outcome.
        case ended
        /// No job right now: the activity ended a while ago (the device stays).
        case idle

        /// True while a job is under way (paused included).
        public var isRunning: Bool { self == .active || self == .paused }
    }

    public var slug: String
    public var name: String
    public var phase: Phase
    /// How the job ended (only when `phase` is `ended`).
    public var outcome: ActivityOutcome?
    /// 0…1, nil when unknown (and while idle).
    public var progress: Double?
    /// The card text ("Drying", "Paused: filament runout", "Complete").
    public var status: String
    public var subtitle: String?
    public var icon: String?
    public var color: String?
    /// When the job should finish (Unix seconds), nil while there is no estimate.
    public var finishesAt: Double?
    /// The Live Activity's own state on the phone (`ongoing`, `ended`), nil while idle.
    public var activityState: String?
    /// The whole generic content of the frame.
    public var content: JSONValue
    /// When the card was made (Unix seconds).
    public var time: Double

    /// The card a frame shows. `outcome` is the job's outcome when the frame does not carry it
    /// (an end after its final frame); the last fallback is the state-object sink's rule: a
    /// full bar is a success, anything else a failure.
    public init(_ frame: ActivityFrame, outcome knownOutcome: ActivityOutcome? = nil) {
        slug = frame.slug
        name = frame.name
        content = frame.content
        time = frame.time
        progress = frame.content["progress"]?.doubleValue
        activityState = frame.kind == .end ? "ended" : (frame.activityState ?? "ongoing")
        subtitle = frame.content["subtitle"]?.stringValue
        icon = frame.content["icon"]?.stringValue
        color = frame.content["accent_color"]?.stringValue
        let ended = frame.kind == .final || frame.kind == .end
        if ended {
            phase = .ended
            outcome = frame.outcome ?? knownOutcome ?? ((progress ?? 0) >= 1 ? .success : .failure)
            finishesAt = nil
        } else {
            phase = frame.paused ? .paused : .active
            outcome = nil
            finishesAt = frame.finishesAt
        }
        let text = frame.content["state"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        status = text ?? Self.defaultStatus(phase, outcome)
    }

    /// The card of a device between jobs.
    public static func idle(slug: String, name: String, at time: Double) -> MQTTActivityCard {
        MQTTActivityCard(slug: slug, name: name, time: time)
    }

    private init(slug: String, name: String, time: Double) {
        self.slug = slug
        self.name = name
        self.time = time
        phase = .idle
        status = Self.defaultStatus(.idle, nil)
        content = .object([:])
    }

    private static func defaultStatus(_ phase: Phase, _ outcome: ActivityOutcome?) -> String {
        switch (phase, outcome) {
        case (.active, _): "Running"
        case (.paused, _): "Paused"
        case (.idle, _): "Idle"
        case (.ended, .failure?): "Failed"
        case (.ended, .cancelled?): "Cancelled"
        case (.ended, _): "Complete"
        }
    }

    /// The whole percent the progress sensor shows, nil when unknown.
    public var percent: Int? { progress.map { Int((min(1, max(0, $0)) * 100).rounded()) } }

    /// The state topic's payload (retained): every field of the card on every frame.
    public var statePayload: JSONValue {
        func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        var object: [String: JSONValue] = [
            "slug": .string(slug), "name": .string(name), "state": .string(activityState ?? "idle"),
            "phase": .string(phase.rawValue), "running": .bool(phase.isRunning),
            "outcome": optional(outcome?.rawValue), "progress": progress.map { .number($0) } ?? .null,
            "percent": percent.map { .int(Int64($0)) } ?? .null, "status": .string(status),
            "subtitle": optional(subtitle), "icon": optional(icon), "color": optional(color),
            "finishes_at": optional(finishesAt.map(Self.timestamp)), "content": content,
            "updated_at": .number(time.rounded()),
        ]
        if phase == .idle { object["content"] = .object([:]) }
        return .object(object)
    }

    /// ISO 8601 with an explicit offset (`2026-06-15T10:25:00+00:00`), as Home Assistant's
    /// timestamp sensors want it.
    public static func timestamp(_ time: Double) -> String {
        String(RFC3339.format(time).dropLast()) + "+00:00"
    }
}

extension MQTTActivityCard {
    /// What happened, for the event topic.
    public enum Event: String, Sendable {
        /// The job started (the activity was created).
        case started
        /// Something on the card changed.
        case updated
        /// The job ended; `outcome` says how.
        case ended
    }

    /// The event topic's payload for `frame` (the card's fields plus the frame's patch and
    /// numbering, so ordering can be checked).
    public func eventPayload(_ event: Event, frame: ActivityFrame) -> JSONValue {
        var object: [String: JSONValue] = [
            "event": .string(event.rawValue), "slug": .string(slug), "name": .string(name),
            "phase": .string(phase.rawValue), "status": .string(status),
            "progress": progress.map { .number($0) } ?? .null, "kind": .string(frame.kind.rawValue),
            "reason": .string(frame.reason.rawValue), "patch": frame.patch, "time": .number(frame.time),
            "sequence": .int(Int64(frame.sequence)),
        ]
        if let outcome { object["outcome"] = .string(outcome.rawValue) }
        if let state = frame.activityState { object["state"] = .string(state) }
        return .object(object)
    }
}
