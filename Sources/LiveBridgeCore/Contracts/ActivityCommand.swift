/// An activity described directly by its owner — a Home Assistant automation's custom event or
/// a `POST /api/activities/<slug>` from `rest_command` — rather than derived from a source.
///
/// `{"slug": "oven", "name": "Oven", "progress": 0.4, "state": "Preheating", "remaining": "12m",
///   "subtitle": "…", "icon": "mdi:stove", "color": "orange", "end": true, "outcome": "failure"}`
public enum ActivityCommand {
    /// Keys accepted in a command.
    public static let keys = [
        "slug", "name", "progress", "state", "remaining", "end_date", "subtitle", "icon", "color", "end", "outcome",
        "phase", "paused", "priority", "url", "background_color", "text_color",
    ]

    /// Turns a command into an update; `slug` from the URL wins over the body's.
    public static func update(from json: JSONValue, slug pathSlug: String?, now: Double) throws(ContentValidationError)
        -> ActivityUpdate
    {
        guard case .object(let members) = json else {
            throw ContentValidationError(problems: ["body: expected a JSON object"])
        }
        var problems: [String] = []
        for key in members.keys.sorted() where !keys.contains(key) {
            problems.append("\(key): unknown key (known: \(keys.joined(separator: ", ")))")
        }
        let slug = pathSlug ?? members["slug"]?.stringValue ?? ""
        if !ContentRules.isValidSlug(slug) {
            problems.append("slug: \"\(slug)\" must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
        }
        func string(_ key: String) -> String? {
            guard let value = members[key], !value.isNull else { return nil }
            if let text = value.stringValue { return text }
            if let number = value.doubleValue { return JSONWriter.format(number) }
            problems.append("\(key): expected a string")
            return nil
        }
        var progress: Double?
        if let value = members["progress"], !value.isNull {
            if let number = value.lenientDouble {
                progress = number > 1 && number <= 100 ? number / 100 : number
                if !(0...1).contains(progress!) { problems.append("progress: \(number) is outside 0…1 (or 0…100)") }
            } else {
                problems.append("progress: expected a number")
            }
        }
        var eta: ActivityETA?
        // An end that is not a number or lies past 9999-12-31 cannot become an `end_date`.
        func checkFinish(_ key: String, _ candidate: ActivityETA, _ value: JSONValue) {
            let finish = candidate.finish(observedAt: now)
            if case .remaining(let seconds) = candidate, !seconds.isFinite {
                problems.append("\(key): \(JSONWriter.string(value)) is not a number of seconds")
            } else if !(finish.isFinite && (0...ActivityETA.latestFinish).contains(finish)) {
                let what = key == "remaining" ? "would end after the year 9999" : "is not a time between 1970 and 9999"
                problems.append("\(key): \(JSONWriter.string(value)) \(what)")
            } else {
                eta = candidate
            }
        }
        if let value = members["remaining"], !value.isNull {
            if let seconds = value.doubleValue {
                checkFinish("remaining", .remaining(seconds), value)
            } else if let text = value.stringValue, let seconds = DurationText.parse(text) ?? ClockText.seconds(text) {
                checkFinish("remaining", .remaining(seconds), value)
            } else {
                problems.append("remaining: expected seconds, \"30m\" or \"H:MM:SS\"")
            }
        }
        if let value = members["end_date"], !value.isNull {
            if let seconds = value.doubleValue {
                checkFinish("end_date", .finishesAt(seconds > 1e12 ? seconds / 1000 : seconds), value)
            } else if let text = value.stringValue, let date = RFC3339.parse(text) ?? Double(text) {
                checkFinish("end_date", .finishesAt(date), value)
            } else {
                problems.append("end_date: expected Unix seconds or an RFC 3339 time")
            }
        }
        var phase = ActivityPhase.active
        if members["paused"]?.boolValue == true { phase = .paused }
        if let text = string("phase") {
            if let parsed = ActivityPhase(text: text) {
                phase = parsed
            } else {
                problems.append("phase: \"\(text)\" is not active, paused or ended")
            }
        }
        if members["end"]?.boolValue == true || members["end"]?.stringValue == "true" {
            let outcome = string("outcome").flatMap { ActivityOutcome(rawValue: $0.lowercased()) } ?? .success
            phase = .ended(outcome)
        }
        var content = GenericContent()
        content.state = Field(string("state"))
        content.subtitle = Field(string("subtitle"))
        content.icon = Field(string("icon"))
        content.accentColor = Field(string("color"))
        content.backgroundColor = Field(string("background_color"))
        content.textColor = Field(string("text_color"))
        if let url = string("url") { content.tapAction = .value(ActionObject(url: url)) }
        if case .ended(let outcome) = phase {
            if content.state.value == nil {
                content.state = .value(outcome == .success ? "Done" : outcome == .failure ? "Failed" : "Cancelled")
            }
            if content.accentColor.value == nil {
                content.accentColor = .value(outcome == .success ? "green" : outcome == .failure ? "red" : "orange")
            }
        }
        do {
            try content.validateAsCard()
        } catch {
            problems += error.problems
        }
        if !problems.isEmpty { throw ContentValidationError(problems: problems) }
        let name = string("name") ?? slug
        var update = ActivityUpdate(
            slug: slug, name: name, phase: phase, content: content, progress: progress ?? (eta == nil ? nil : nil),
            eta: eta, priority: members["priority"]?.intValue, observedAt: now)
        update.immediate = true
        return update
    }
}

/// `H:MM:SS`, `D:HH:MM:SS` and `MM:SS` clock texts (SABnzbd `timeleft`, Home Assistant durations).
public enum ClockText {
    /// Seconds, or nil when the text is not a clock.
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        var days = 0.0
        var clock = Substring(trimmed)
        // Home Assistant writes "1 day, 2:03:04".
        if let comma = clock.firstIndex(of: ",") {
            let dayPart = clock[..<comma].split(separator: " ").first.flatMap { Double($0) }
            guard let dayPart else { return nil }
            days = dayPart
            clock = clock[clock.index(after: comma)...].drop { $0 == " " }
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...4).contains(parts.count) else { return nil }
        var values: [Double] = []
        for part in parts {
            guard !part.isEmpty, let value = Double(part), value >= 0 else { return nil }
            values.append(value)
        }
        var total = days * 86400
        switch values.count {
        case 2: total += values[0] * 60 + values[1]
        case 3: total += values[0] * 3600 + values[1] * 60 + values[2]
        default: total += values[0] * 86400 + values[1] * 3600 + values[2] * 60 + values[3]
        }
        return total
    }
}
