public import LiveBridgeCore

/// How the sink renders what the generic template cannot say: countdown options and button styling.
public struct StateObjectRenderOptions: Sendable, Hashable {
    /// Timer-like activities (a fixed finish time and no progress source) use the countdown layout.
    public var countdown: Bool = true
    /// `countdownStyle`: `hms`, `days`, `hours`, `months`, `years` or `auto`.
    public var countdownStyle: String = "hms"
    /// `completionText`: what replaces the clock when the countdown reaches its target.
    public var completionText: String = "Done"
    /// Colour the action button with the accent colour (`actionColorHex`); a free plan refuses
    /// it, and the sink then turns this off by itself.
    public var buttonStyling: Bool = true

    public init() {}
}

/// Renders a frame's generic content into the service's state object (the `progress` layout,
/// or `countdown` for timers): pure, so replay and tests use it without sockets.
///
/// The rules (documented in `docs/sinks.md`): `primaryText` is the activity's name, `stage` the
/// generic `state` text, `secondaryText` the generic `subtitle`, `accessoryText` the percentage,
/// `endIcon` the generic SF Symbol `icon`, `estimatedMinutes` the whole minutes left (rounded
/// up; absent = hidden), colours as `#RRGGBB`, `headerIconUrl` from an https `image_url`, the
/// button from a link-style `url_action`, and `isComplete` only on a successful end.
public enum StateObjectMapping {
    /// State fields that only the countdown layout reads; they are left alone (not cleared) when
    /// the layout changes away from countdown, so switching back is cheap.
    static let countdownFields: Set<String> = ["countdownTo", "countdownStyle", "completionText"]

    /// The whole desired state for `frame` at `now` (fields without a value are absent).
    ///
    /// `outcome` is how the activity ended, for `.final` and `.end` frames (the tracker's `.end`
    /// frame of a two-phase end carries none; the sink passes the one it remembered).
    public static func state(
        for frame: ActivityFrame, at now: Double, outcome: ActivityOutcome?, options: StateObjectRenderOptions
    ) -> JSONValue {
        let content = frame.content
        let ending = frame.kind == .final || frame.kind == .end
        let endDate = content["end_date"]?.doubleValue
        let countdown =
            options.countdown && !ending && frame.fixedFinish && frame.truthProgress == nil && endDate != nil
        var state: [String: JSONValue] = ["layout": .string(countdown ? "countdown" : "progress")]

        let stateText = nonEmpty(content["state"]?.stringValue)
        let subtitle = nonEmpty(content["subtitle"]?.stringValue)
        state["primaryText"] = .string(nonEmpty(frame.name) ?? stateText ?? frame.slug)
        if let subtitle { state["secondaryText"] = .string(subtitle) }
        if let stage = stateText ?? (ending ? outcome.map(stageLabel) : nil) { state["stage"] = .string(stage) }

        if countdown, let endDate {
            state["countdownTo"] = .int(Int64(endDate.rounded()))
            state["countdownStyle"] = .string(options.countdownStyle)
            state["completionText"] = .string(options.completionText)
            if subtitle == nil, let stateText { state["secondaryText"] = .string(stateText) }
        } else {
            let progress = min(1, max(0, content["progress"]?.doubleValue ?? 0))
            state["progress"] = .number((progress * 10000).rounded() / 10000)
            if frame.truthProgress != nil || ending {
                state["accessoryText"] = .string("\(Int((progress * 100).rounded(.down)))%")
            }
            if !ending, let minutes = estimatedMinutes(content: content, at: now) {
                state["estimatedMinutes"] = .int(Int64(minutes))
            }
        }
        if let icon = nonEmpty(content["icon"]?.stringValue), !icon.contains(":") {
            state["endIcon"] = .string(icon)
        }
        let accent = content["accent_color"]?.stringValue.flatMap(ContentRules.hexColor)
        if let accent { state["accentColorHex"] = .string(accent) }
        if let background = content["background_color"]?.stringValue.flatMap(ContentRules.hexColor) {
            state["backgroundColorHex"] = .string(background)
        }
        if let image = content["image_url"]?.stringValue, image.lowercased().hasPrefix("https://") {
            state["headerIconUrl"] = .string(image)
        }
        if let action = content["url_action"], let link = link(action) {
            state["actionURL"] = .string(link.url)
            state["actionLabel"] = .string(link.label)
            if options.buttonStyling, let accent { state["actionColorHex"] = .string(accent) }
        }
        if ending && outcome == .success { state["isComplete"] = true }
        return .object(state)
    }

    /// Whole minutes left, rounded up, from `end_date − now` (else `remaining_time`); nil when
    /// nothing is left or nothing is known (the label is then hidden).
    static func estimatedMinutes(content: JSONValue, at now: Double) -> Int? {
        let seconds: Double
        if let endDate = content["end_date"]?.doubleValue {
            seconds = endDate - now
        } else if let remaining = content["remaining_time"]?.doubleValue {
            seconds = remaining
        } else {
            return nil
        }
        guard seconds > 0 else { return nil }
        return Int((seconds / 60).rounded(.up))
    }

    /// A generic action the button can express: a link opened in the foreground. Silent
    /// webhooks (method, headers or body without `foreground: true`) cannot be, and are skipped.
    static func link(_ action: JSONValue) -> (url: String, label: String)? {
        guard let url = nonEmpty(action["url"]?.stringValue) else { return nil }
        let silent = action["method"] != nil || action["headers"] != nil || action["body"] != nil
        if silent && action["foreground"]?.boolValue != true { return nil }
        return (url, nonEmpty(action["title"]?.stringValue) ?? "Open")
    }

    static func stageLabel(_ outcome: ActivityOutcome) -> String {
        switch outcome {
        case .success: "Complete"
        case .failure: "Failed"
        case .cancelled: "Cancelled"
        }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = Substring(text).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
        return trimmed.isEmpty ? nil : String(trimmed.reversed())
    }
}

/// The service's merge rule, and the smallest partial state that turns one state into another.
public enum StateObjectMerge {
    /// `partial` merged into `state`: top-level fields replace, `versus` merges one level down,
    /// arrays (`segments`) and everything else are replaced whole.
    public static func apply(_ partial: JSONValue, to state: JSONValue) -> JSONValue {
        guard case .object(let changes) = partial else { return state }
        var merged = state.objectValue ?? [:]
        for (key, value) in changes {
            if key == "versus", case .object(let inner) = value, case .object(var stored)? = merged[key] {
                for (innerKey, innerValue) in inner { stored[innerKey] = innerValue }
                merged[key] = .object(stored)
            } else {
                merged[key] = value
            }
        }
        return .object(merged)
    }

    /// The fields to send so that the service's `stored` state shows `desired`.
    ///
    /// Changed fields are sent (`versus` only with its changed members); a field the desired
    /// state no longer has is reset to its neutral value (`""`, `0`, `false`), because the
    /// service has no way to unset one — except the countdown-only fields, which are kept when
    /// the desired layout is not countdown.
    public static func changes(from stored: JSONValue, to desired: JSONValue) -> JSONValue {
        let old = stored.objectValue ?? [:]
        let new = desired.objectValue ?? [:]
        var changes: [String: JSONValue] = [:]
        for (key, value) in new where old[key] != value {
            if key == "versus", case .object(let inner) = value, case .object(let storedInner)? = old[key] {
                var innerChanges: [String: JSONValue] = [:]
                for (innerKey, innerValue) in inner where storedInner[innerKey] != innerValue {
                    innerChanges[innerKey] = innerValue
                }
                if !innerChanges.isEmpty { changes[key] = .object(innerChanges) }
            } else {
                changes[key] = value
            }
        }
        let countdownLayout = (new["layout"] ?? old["layout"])?.stringValue == "countdown"
        for (key, value) in old where new[key] == nil {
            if !countdownLayout && StateObjectMapping.countdownFields.contains(key) { continue }
            guard let neutral = neutralValue(of: value), neutral != value else { continue }
            changes[key] = neutral
        }
        return .object(changes)
    }

    /// The value that shows nothing for a field of this type.
    static func neutralValue(of value: JSONValue) -> JSONValue? {
        switch value {
        case .string: ""
        case .int, .double: 0
        case .bool: false
        case .array: []
        case .null, .object: nil
        }
    }
}
