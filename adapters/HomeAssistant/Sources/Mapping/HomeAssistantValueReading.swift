import FoundationEssentials
public import LiveBridgeCore

/// A state or attribute value that cannot be used as progress or remaining time.
public struct HomeAssistantValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong and what to configure instead.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The rules that turn Home Assistant states and attributes into progress and remaining time.
///
/// Pure functions; see `docs/homeassistant.md` for the rules in prose.
public enum HomeAssistantValueReading {
    /// Seconds per `unit_of_measurement` of a duration.
    public static let durationUnits: [String: Double] = ["d": 86400, "h": 3600, "min": 60, "s": 1, "ms": 0.001]

    // MARK: - Progress

    /// Progress 0…1 from `raw`, scaled per `scale`; `decidedPercent` carries the automatic scale's
    /// decision between calls (nil = not decided yet). Nil (no error) for an empty value.
    public static func progress(
        _ raw: JSONValue, unit: String?, scale: HomeAssistantProgressScale, decidedPercent: inout Bool?
    ) throws(HomeAssistantValueError) -> Double? {
        if case .null = raw { return nil }
        guard let number = raw.lenientDouble else {
            throw HomeAssistantValueError("\(raw) is not a number")
        }
        guard number.isFinite else { return nil }
        let fraction: Double
        switch scale {
        case .percent:
            fraction = number / 100
        case .fraction:
            fraction = number
        case .maximum(let maximum):
            fraction = maximum > 0 ? number / maximum : 0
        case .automatic:
            if unit == "%" || number > 1 {
                decidedPercent = true
            } else if decidedPercent == nil, number > 0, number < 1, number.rounded() != number {
                decidedPercent = false
            }
            fraction = decidedPercent == false ? number : number / 100
        }
        return min(1, max(0, fraction))
    }

    // MARK: - Remaining time

    /// Remaining time from `raw` by the rules, in order: a timestamp (device class `timestamp`
    /// or an ISO date-time string) is an absolute finish; a text with `:` is `H:MM:SS`; an ISO
    /// 8601 `P…` duration; a number is converted by `unit` (`d`, `h`, `min`, `s`, `ms`, or
    /// `timestamp` for Unix seconds). A plain number without a unit is an error, not a guess.
    ///
    /// `absoluteShift` is added to every absolute time (replays move recordings in time).
    public static func remaining(
        _ raw: JSONValue, deviceClass: String?, unit: String?, absoluteShift: Double = 0
    ) throws(HomeAssistantValueError) -> HomeAssistantTimeValue? {
        switch raw {
        case .null:
            return nil
        case .string(let text):
            let trimmed = text.trimmingWhitespace()
            if trimmed.isEmpty || HomeAssistantEntityState.unavailableStates.contains(trimmed) { return nil }
            if let date = timestamp(trimmed) { return .finishesAt(date + absoluteShift) }
            if deviceClass == "timestamp" {
                throw HomeAssistantValueError("\"\(trimmed)\" is not an ISO 8601 timestamp with an offset")
            }
            if trimmed.contains(":") {
                guard let seconds = ClockText.seconds(trimmed) else {
                    throw HomeAssistantValueError("\"\(trimmed)\" is not a duration like H:MM:SS")
                }
                return .remaining(seconds)
            }
            if trimmed.hasPrefix("P") || trimmed.hasPrefix("-P") {
                guard let seconds = isoDuration(trimmed) else {
                    throw HomeAssistantValueError("\"\(trimmed)\" is not an ISO 8601 duration like PT25M")
                }
                return .remaining(max(0, seconds))
            }
            guard let number = Double(trimmed) else {
                throw HomeAssistantValueError("\"\(trimmed)\" is neither a time, a duration nor a number")
            }
            return try remaining(number: number, unit: unit, absoluteShift: absoluteShift)
        case .int, .double:
            return try remaining(number: raw.doubleValue ?? 0, unit: unit, absoluteShift: absoluteShift)
        default:
            throw HomeAssistantValueError("\(raw) is not a time or a duration")
        }
    }

    static func remaining(number: Double, unit: String?, absoluteShift: Double) throws(HomeAssistantValueError)
        -> HomeAssistantTimeValue?
    {
        guard number.isFinite else { return nil }
        guard let unit else {
            throw HomeAssistantValueError(
                "a plain number without a unit (no device_class duration); set remaining.unit to d, h, min, s, ms "
                    + "or timestamp")
        }
        if unit == "timestamp" {
            return .finishesAt((number > 1e12 ? number / 1000 : number) + absoluteShift)
        }
        guard let factor = durationUnits[unit] else {
            throw HomeAssistantValueError(
                "unknown duration unit \"\(unit)\"; expected d, h, min, s or ms (set remaining.unit)")
        }
        return .remaining(max(0, number * factor))
    }

    /// Unix seconds of an ISO 8601 time with offset (fraction optional); nil otherwise.
    public static func timestamp(_ text: String) -> Double? {
        guard text.count >= 20, text.utf8.count > 10 else { return nil }
        let bytes = Array(text.utf8)
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        var normalized = bytes
        normalized[10] = UInt8(ascii: "T")
        return RFC3339.parse(String(decoding: normalized, as: UTF8.self))
    }

    /// Seconds in an ISO 8601 duration (`PT25M`, `P1DT2H`, `PT1.5S`); nil when malformed.
    public static func isoDuration(_ text: String) -> Double? {
        var rest = Substring(text)
        var sign = 1.0
        if rest.hasPrefix("-") {
            sign = -1
            rest = rest.dropFirst()
        }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var number = ""
        var inTime = false
        var sawComponent = false
        for character in rest {
            if character.isNumber || character == "." || character == "," {
                number.append(character == "," ? "." : character)
                continue
            }
            if character == "T" {
                guard number.isEmpty, !inTime else { return nil }
                inTime = true
                continue
            }
            guard let amount = Double(number) else { return nil }
            let factor: Double
            switch (character, inTime) {
            case ("W", false): factor = 604_800
            case ("D", false): factor = 86400
            case ("H", true): factor = 3600
            case ("M", true): factor = 60
            case ("S", true): factor = 1
            default: return nil
            }
            total += amount * factor
            number = ""
            sawComponent = true
        }
        guard number.isEmpty, sawComponent else { return nil }
        return sign * total
    }

    // MARK: - Timers

    /// A timer's progress: `1 − left/duration`, where `left` is `finishes_at − now` while active
    /// and the `remaining` attribute while paused (it does not tick while the timer runs).
    public static func timerProgress(duration: Double?, secondsLeft: Double?) -> Double? {
        guard let duration, duration > 0, let secondsLeft else { return nil }
        return min(1, max(0, 1 - secondsLeft / duration))
    }
}
