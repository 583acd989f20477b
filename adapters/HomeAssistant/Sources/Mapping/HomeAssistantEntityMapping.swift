import LiveBridgeCore

/// How one Home Assistant entity becomes one activity (an entry of `entities` in the config).
public struct HomeAssistantEntityMapping: Sendable, Hashable {
    /// The entity whose state starts and ends the activity (`timer.washer`).
    public var entity: String
    /// The activity's slug; default `ha-<entity>` slugified (`ha-timer-washer`).
    public var slug: String
    /// Display name; nil = the entity's `friendly_name`, else its id.
    public var name: String?
    /// States that start the activity (and keep it running).
    public var startStates: Set<String>
    /// States that end it with success.
    public var endStates: Set<String>
    /// States that end it with failure (`error`, `failed`).
    public var failureStates: Set<String>
    /// States that pause it: the card stays, the bar stands still.
    public var pausedStates: Set<String>
    /// Where progress comes from; nil = the timer's own clock, or the remaining time measured
    /// against the remaining time seen when the activity started.
    public var progress: HomeAssistantValueSource?
    /// How the progress number is scaled.
    public var progressScale: HomeAssistantProgressScale
    /// Where the remaining time comes from; nil = a timer's `finishes_at` (or `remaining` while paused).
    public var remaining: HomeAssistantValueSource?
    /// Unit of a plain-number remaining time (`min`); nil = the sensor's own duration unit.
    public var remainingUnit: String?
    /// Text on the card for a state (`{"washing": "Washing"}`); unlisted states are capitalised.
    public var stateLabels: [String: String]
    /// `mdi:` icon or SF Symbol; nil = the entity's `icon` attribute, else a domain icon.
    public var icon: String?
    /// Accent colour (name or `#RRGGBB`).
    public var accentColor: String?
    /// Background colour.
    public var backgroundColor: String?
    /// Text colour.
    public var textColor: String?
    /// Opened when the card is tapped (a Home Assistant dashboard URL).
    public var tapURL: String?
    /// The card's text when the activity ends with success; nil = the end state's label, else "Done".
    public var completionMessage: String?
    /// Lock Screen priority 0…10.
    public var priority: Int?

    /// A mapping with the domain's default states (`HomeAssistantEntityMapping.defaultStates`).
    public init(entity: String, slug: String? = nil) {
        self.entity = entity
        self.slug = slug ?? Self.defaultSlug(for: entity)
        let defaults = Self.defaultStates(forDomain: Self.domain(of: entity))
        startStates = defaults?.start ?? []
        endStates = defaults?.end ?? []
        pausedStates = defaults?.paused ?? []
        failureStates = []
        progressScale = .automatic
        stateLabels = [:]
    }

    /// `ha-` + the entity id slugified: `timer.washer` → `ha-timer-washer`.
    public static func defaultSlug(for entity: String) -> String {
        ContentRules.slugify("ha-" + entity)
    }

    /// The domain of an entity id (`timer`).
    public static func domain(of entity: String) -> String {
        String(entity.prefix { $0 != "." })
    }

    /// Default start, end and pause states per domain; nil for domains whose states say nothing
    /// about a job (`sensor`, `input_select`, …): those must be configured.
    public static func defaultStates(forDomain domain: String) -> (
        start: Set<String>, end: Set<String>, paused: Set<String>
    )? {
        switch domain {
        case "timer": (["active"], ["idle"], ["paused"])
        case "binary_sensor", "switch", "light", "fan", "update", "input_boolean", "automation", "script":
            (["on"], ["off"], [])
        case "climate", "water_heater": (["heating", "cooling"], ["off", "idle"], [])
        case "vacuum", "lawn_mower": (["cleaning", "mowing"], ["docked", "idle"], ["paused"])
        case "media_player": (["playing", "buffering"], ["off", "idle", "standby"], ["paused"])
        case "lock": (["unlocked"], ["locked"], [])
        case "cover", "valve": (["opening", "closing"], ["open", "closed"], [])
        default: nil
        }
    }

    /// Every entity this mapping reads.
    public var entityIDs: Set<String> {
        var ids: Set<String> = [entity]
        if let other = progress?.entity { ids.insert(other) }
        if let other = remaining?.entity { ids.insert(other) }
        return ids
    }

    /// The default card text for `state`: `Running` for an active timer, else the state
    /// capitalised with underscores as spaces (`delayed_start` → `Delayed start`).
    public static func defaultLabel(for state: String, domain: String) -> String {
        if domain == "timer" && state == "active" { return "Running" }
        let spaced = state.replacingUnderscores()
        guard let first = spaced.first else { return state }
        return first.uppercased() + spaced.dropFirst()
    }

    /// Default SF Symbol per domain.
    static func defaultIcon(forDomain domain: String) -> String {
        switch domain {
        case "timer": "timer"
        case "media_player": "play.circle"
        case "vacuum": "fan"
        case "climate", "water_heater": "thermometer.medium"
        case "lock": "lock"
        case "cover": "blinds.vertical.open"
        case "light": "lightbulb"
        default: "house"
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? " " : $0 })
    }
}
