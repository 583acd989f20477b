/// Where a number for an activity comes from: an entity's state or one of its attributes.
public struct HomeAssistantValueSource: Sendable, Hashable {
    /// The entity to read; nil means the mapped entity itself.
    public var entity: String?
    /// The attribute to read; nil means the state string.
    public var attribute: String?

    /// A source; both parts optional.
    public init(entity: String? = nil, attribute: String? = nil) {
        self.entity = entity
        self.attribute = attribute
    }

    /// The entity read, given the mapped one.
    public func entityID(default mapped: String) -> String { entity ?? mapped }
}

/// How a progress number becomes 0…1.
public enum HomeAssistantProgressScale: Sendable, Hashable {
    /// Unit `%` or a value above 1 means 0–100; a fractional value below 1 on a source without
    /// a `%` unit means 0–1. The first decision sticks for the rest of the job, so a 0–1 source
    /// reaching `1` reads as done and a 0–100 source at `1` reads as 1 %.
    case automatic
    /// 0–100.
    case percent
    /// 0–1.
    case fraction
    /// 0–N (a light's `brightness` is 0–255).
    case maximum(Double)
}

/// What a remaining-time source says.
public enum HomeAssistantTimeValue: Sendable, Hashable {
    /// An absolute finish time (Unix seconds): a timer's `finishes_at`, a timestamp sensor.
    case finishesAt(Double)
    /// Seconds left at the time of the observation.
    case remaining(Double)
}
