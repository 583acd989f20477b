public import LiveBridgeCore

/// What the mapper made of one input: updates for the engine and problems to report.
public struct HomeAssistantMapperOutput: Sendable {
    /// Observations, in order.
    public var updates: [ActivityUpdate] = []
    /// Values or events that could not be used (each said once until it changes).
    public var problems: [String] = []

    /// An empty output.
    public init() {}

    mutating func append(_ other: HomeAssistantMapperOutput) {
        updates += other.updates
        problems += other.problems
    }
}

/// Turns Home Assistant's entity states and custom events into activity updates: one activity
/// per configured entity, plus the activities automations describe with the custom event.
///
/// Pure and clock-free: the session (WebSocket or REST poll) and the replay feed it messages
/// with the time they arrived, and it answers with `ActivityUpdate`s. It never decides when to
/// push or computes `end_date` — it states the truth (phase, progress, remaining time) and the
/// desired card; the tracker does the rest.
///
/// Rules: a start state starts (or resumes after a LiveBridge restart), a paused state pauses a
/// running activity, an end state ends a running one (and, on the first observation after a
/// start, ends one a previous LiveBridge run left open), other states update a running activity
/// and are ignored otherwise; `unavailable`/`unknown` never start, end or update anything.
public struct HomeAssistantActivityMapper: Sendable {
    struct Run: Sendable {
        enum Phase: Sendable { case unknown, idle, active, paused }
        var phase: Phase = .unknown
        /// When the relative remaining time in `lastTime` was reported: it counts down from then,
        /// not from whenever another entity of the activity changes.
        var remainingAt: Double?
        var startRemaining: Double?
        var decidedPercent: Bool?
        var lastProgress: Double?
        var lastTime: HomeAssistantTimeValue?
        var timerFinish: Double?
        var lastProblem: String?
    }

    /// The configured entities.
    public let mappings: [HomeAssistantEntityMapping]
    /// The custom event type automations fire (`livebridge`).
    public let eventType: String
    /// Added to every absolute time read from Home Assistant (replays move recordings in time).
    public var absoluteShift: Double
    /// A timer that goes idle more than this many seconds before `finishes_at` was cancelled.
    public var timerCancelMargin: Double = 5
    /// The current states.
    public private(set) var table: HomeAssistantStateTable
    private var runs: [String: Run] = [:]
    private var expectingSnapshot = true
    private var reportedMissing: Set<String> = []

    /// A mapper for `mappings`; `eventType` is the custom event's type.
    public init(mappings: [HomeAssistantEntityMapping], eventType: String = "livebridge", absoluteShift: Double = 0) {
        self.mappings = mappings
        self.eventType = eventType
        self.absoluteShift = absoluteShift
        table = HomeAssistantStateTable(watched: Set(mappings.flatMap(\.entityIDs)))
    }

    /// Every entity id to subscribe to, sorted.
    public var watchedEntityIDs: [String] { (table.watched ?? []).sorted() }

    /// The next `subscribe_entities` event is a full snapshot that replaces every state (call
    /// right before (re)subscribing).
    public mutating func expectSnapshot() {
        expectingSnapshot = true
    }

    // MARK: - Inputs

    /// Handles one decoded message received at `now`.
    public mutating func receive(_ message: HomeAssistantMessage, at now: Double) -> HomeAssistantMapperOutput {
        guard case .event(_, let event) = message else { return HomeAssistantMapperOutput() }
        switch event {
        case .entities(let changes):
            let snapshot = expectingSnapshot
            expectingSnapshot = false
            let touched = table.apply(changes, snapshot: snapshot)
            var output = evaluate(snapshot ? nil : touched, at: now)
            if snapshot { output.problems += missingEntities() }
            return output
        case .stateChanged(let entityID, let state):
            return evaluate(table.set(entityID, state), at: now)
        case .fired(let type, let data, _):
            guard type == eventType else { return HomeAssistantMapperOutput() }
            return command(data, at: now)
        }
    }

    /// Replaces every state (a `get_states` answer after a reconnect, or one REST poll) and
    /// re-evaluates every activity.
    public mutating func replaceStates(_ states: [HomeAssistantEntityState], at now: Double)
        -> HomeAssistantMapperOutput
    {
        _ = table.replaceAll(states)
        expectingSnapshot = false
        var output = evaluate(nil, at: now)
        output.problems += missingEntities()
        return output
    }

    /// Watched entities Home Assistant does not know (a typo, or an integration still loading),
    /// each said once until it appears.
    private mutating func missingEntities() -> [String] {
        let missing = Set(watchedEntityIDs).subtracting(table.states.keys)
        defer { reportedMissing = missing }
        return missing.subtracting(reportedMissing).sorted().map {
            "\($0) is not (yet) known to Home Assistant; check the entity id in the source's entities"
        }
    }

    /// An automation's custom event (or any `ActivityCommand` JSON).
    public mutating func command(_ data: JSONValue, at now: Double) -> HomeAssistantMapperOutput {
        var output = HomeAssistantMapperOutput()
        do throws(ContentValidationError) {
            output.updates.append(try ActivityCommand.update(from: data, slug: nil, now: now))
        } catch {
            output.problems.append("\(eventType) event refused: \(error.problems.joined(separator: "; "))")
        }
        return output
    }

    // MARK: - Evaluation

    /// Re-evaluates the activities reading any of `touched` (nil = all).
    mutating func evaluate(_ touched: Set<String>?, at now: Double) -> HomeAssistantMapperOutput {
        var output = HomeAssistantMapperOutput()
        for mapping in mappings {
            if let touched, mapping.entityIDs.isDisjoint(with: touched) { continue }
            var run = runs[mapping.slug] ?? Run()
            let (update, problem) = evaluate(mapping, run: &run, touched: touched, at: now)
            if let problem, problem != run.lastProblem {
                output.problems.append("\(mapping.entity): \(problem)")
            }
            run.lastProblem = problem
            runs[mapping.slug] = run
            if let update { output.updates.append(update) }
        }
        return output
    }

    private enum StateKind { case start, paused, end, failure, other }

    private func evaluate(
        _ mapping: HomeAssistantEntityMapping, run: inout Run, touched: Set<String>?, at now: Double
    ) -> (ActivityUpdate?, String?) {
        guard let main = table[mapping.entity], !main.isUnavailable else { return (nil, nil) }
        let state = main.state
        let kind: StateKind =
            mapping.failureStates.contains(state)
            ? .failure
            : mapping.endStates.contains(state)
                ? .end
                : mapping.startStates.contains(state) ? .start : mapping.pausedStates.contains(state) ? .paused : .other
        let wasRunning = run.phase == .active || run.phase == .paused
        switch kind {
        case .start:
            if !wasRunning {
                let problem = run.lastProblem
                run = Run()
                run.lastProblem = problem
            }
            run.phase = .active
        case .paused:
            guard wasRunning else { return (nil, nil) }
            run.phase = .paused
        case .other:
            guard wasRunning else { return (nil, nil) }
            run.phase = .active
        case .end, .failure:
            guard run.phase != .idle else { return (nil, nil) }
            let outcome: ActivityOutcome
            if kind == .failure {
                outcome = .failure
            } else if main.domain == "timer", mapping.remaining == nil,
                run.phase == .paused || (run.timerFinish ?? -.infinity) > now + timerCancelMargin
            {
                outcome = .cancelled
            } else {
                outcome = .success
            }
            let update = endUpdate(mapping, main: main, outcome: outcome, run: run, at: now)
            run.phase = .idle
            return (update, nil)
        }

        var problem: String?
        let paused = run.phase == .paused
        // Remaining time.
        var time: HomeAssistantTimeValue?
        var resolution = 0.0
        if let source = mapping.remaining {
            let entity = source.entityID(default: mapping.entity)
            do throws(HomeAssistantValueError) {
                if let value = try readRemaining(source, mapping: mapping) {
                    // A value is true when its entity reported it: a report in this diff is true
                    // now; a snapshot or a poll carries Home Assistant's own time of the report.
                    if touched?.contains(entity) == true {
                        run.remainingAt = now
                    } else if value != run.lastTime || run.remainingAt == nil {
                        run.remainingAt = table[entity]?.lastUpdated.map { min(now, $0 + absoluteShift) } ?? now
                    }
                    run.lastTime = value
                }
                resolution = remainingResolution(source, mapping: mapping, value: run.lastTime)
            } catch {
                problem = "remaining time from \(describe(source, mapping)): \(error.message)"
            }
            time = run.lastTime
        } else if main.domain == "timer" {
            if paused {
                time = main.attributes["remaining"]?.stringValue.flatMap(ClockText.seconds).map { .remaining($0) }
            } else if let finish = main.attributes["finishes_at"]?.stringValue.flatMap(
                HomeAssistantValueReading.timestamp)
            {
                time = .finishesAt(finish + absoluteShift)
                run.timerFinish = finish + absoluteShift
            }
        }
        var eta: ActivityETA?
        var secondsLeft: Double?
        switch time {
        case .finishesAt(let finish):
            eta = .finishesAt(finish)
            secondsLeft = max(0, finish - now)
        case .remaining(let seconds):
            // Paused, the remaining time holds still; running, it counts down from its report.
            let left = paused ? seconds : max(0, (run.remainingAt ?? now) + seconds - now)
            eta = .remaining(left)
            secondsLeft = left
        case nil:
            break
        }

        // Progress.
        var progress: Double?
        var progressResolution: Double?
        if let source = mapping.progress {
            do throws(HomeAssistantValueError) {
                if let value = try readProgress(source, mapping: mapping, decided: &run.decidedPercent) {
                    run.lastProgress = value
                }
            } catch {
                problem = "progress from \(describe(source, mapping)): \(error.message)"
            }
            // A value re-sent with a newer time would look fresher than it is: only a report of the
            // source itself (or a start, or a resync) carries it.
            let source = source.entityID(default: mapping.entity)
            let fresh = touched?.contains(source) ?? true
            progress = fresh || !wasRunning ? run.lastProgress : nil
        } else if main.domain == "timer", mapping.remaining == nil {
            let duration = main.attributes["duration"]?.stringValue.flatMap(ClockText.seconds)
            progress = HomeAssistantValueReading.timerProgress(duration: duration, secondsLeft: secondsLeft)
        } else if let secondsLeft {
            // Measured against the remaining time seen when the activity started.
            let start = max(run.startRemaining ?? secondsLeft, secondsLeft)
            run.startRemaining = start
            progress = start > 0 ? 1 - secondsLeft / start : nil
            if start > 0 { progressResolution = resolution / start }
        }
        if mapping.progress == nil, let progress { run.lastProgress = progress }

        let label =
            mapping.stateLabels[state]
            ?? (kind == .paused ? "Paused" : HomeAssistantEntityMapping.defaultLabel(for: state, domain: main.domain))
        var update = ActivityUpdate(
            slug: mapping.slug, name: name(mapping, main), phase: paused ? .paused : .active,
            content: content(mapping, main: main, label: label, accent: mapping.accentColor), progress: progress,
            eta: eta, priority: mapping.priority, observedAt: now,
            progressResolution: progressResolution.flatMap { $0 > 0 ? $0 : nil },
            etaResolution: resolution > 0 ? resolution : nil)
        // A remaining-time entity, or a timer's own finish, states one (a washer's remaining time
        // may only be reported a minute after its program starts).
        update.statesFinish = mapping.remaining != nil || main.domain == "timer"
        return (update, problem)
    }

    private func endUpdate(
        _ mapping: HomeAssistantEntityMapping, main: HomeAssistantEntityState, outcome: ActivityOutcome, run: Run,
        at now: Double
    ) -> ActivityUpdate {
        let label: String
        let accent: String
        switch outcome {
        case .success:
            label = mapping.completionMessage ?? mapping.stateLabels[main.state] ?? "Done"
            accent = mapping.accentColor ?? "green"
        case .failure:
            label = mapping.stateLabels[main.state] ?? "Failed"
            accent = "red"
        case .cancelled:
            label = "Cancelled"
            accent = "orange"
        }
        return ActivityUpdate(
            slug: mapping.slug, name: name(mapping, main), phase: .ended(outcome),
            content: content(mapping, main: main, label: label, accent: accent),
            progress: outcome == .success ? 1 : run.lastProgress, priority: mapping.priority, observedAt: now)
    }

    private func name(_ mapping: HomeAssistantEntityMapping, _ main: HomeAssistantEntityState) -> String {
        let name = mapping.name ?? main.friendlyName ?? mapping.entity
        return name.isEmpty ? mapping.entity : String(name.prefix(256))
    }

    private func content(
        _ mapping: HomeAssistantEntityMapping, main: HomeAssistantEntityState, label: String, accent: String?
    ) -> GenericContent {
        var content = GenericContent()
        content.state = .value(String(label.prefix(ContentRules.maximumTextLength)))
        let icon =
            mapping.icon ?? main.attributes["icon"]?.stringValue
            ?? HomeAssistantEntityMapping.defaultIcon(forDomain: main.domain)
        content.icon = .value(String(icon.prefix(ContentRules.maximumIconLength)))
        content.accentColor = Field(accent)
        content.backgroundColor = Field(mapping.backgroundColor)
        content.textColor = Field(mapping.textColor)
        if let url = mapping.tapURL { content.tapAction = .value(ActionObject(url: url)) }
        return content
    }

    // MARK: - Reading sources

    private func describe(_ source: HomeAssistantValueSource, _ mapping: HomeAssistantEntityMapping) -> String {
        let entity = source.entityID(default: mapping.entity)
        return source.attribute.map { "\(entity) attribute \($0)" } ?? entity
    }

    private func readProgress(
        _ source: HomeAssistantValueSource, mapping: HomeAssistantEntityMapping, decided: inout Bool?
    ) throws(HomeAssistantValueError) -> Double? {
        guard let state = table[source.entityID(default: mapping.entity)] else { return nil }
        if let attribute = source.attribute {
            return try HomeAssistantValueReading.progress(
                state.attributes[attribute] ?? .null, unit: nil, scale: mapping.progressScale, decidedPercent: &decided)
        }
        guard !state.isUnavailable else { return nil }
        return try HomeAssistantValueReading.progress(
            .string(state.state), unit: state.unit, scale: mapping.progressScale, decidedPercent: &decided)
    }

    /// How precisely a relative remaining time is stated: a whole number of minutes (or hours,
    /// or days) says no more than its unit; seconds, clock texts and fractions are exact.
    private func remainingResolution(
        _ source: HomeAssistantValueSource, mapping: HomeAssistantEntityMapping, value: HomeAssistantTimeValue?
    ) -> Double {
        guard case .remaining(let seconds) = value, let state = table[source.entityID(default: mapping.entity)]
        else { return 0 }
        let unitSeconds: Double
        switch Self.remainingUnit(source, mapping: mapping, state: state) {
        case "min": unitSeconds = 60
        case "h": unitSeconds = 3600
        case "d": unitSeconds = 86400
        default: return 0
        }
        let count = seconds / unitSeconds
        return abs(count - count.rounded()) < 1e-9 ? unitSeconds : 0
    }

    private func readRemaining(_ source: HomeAssistantValueSource, mapping: HomeAssistantEntityMapping)
        throws(HomeAssistantValueError) -> HomeAssistantTimeValue?
    {
        guard let state = table[source.entityID(default: mapping.entity)] else { return nil }
        if let attribute = source.attribute {
            return try HomeAssistantValueReading.remaining(
                state.attributes[attribute] ?? .null, deviceClass: nil,
                unit: Self.remainingUnit(source, mapping: mapping, state: state), absoluteShift: absoluteShift)
        }
        guard !state.isUnavailable else { return nil }
        if state.domain == "input_datetime", mapping.remainingUnit == nil {
            // Its state is local time without an offset; the `timestamp` attribute is exact.
            guard state.attributes["has_date"]?.boolValue != false else {
                throw HomeAssistantValueError("a time-only input_datetime is not a finish time; give it a date")
            }
            return try HomeAssistantValueReading.remaining(
                state.attributes["timestamp"] ?? .null, deviceClass: nil, unit: "timestamp",
                absoluteShift: absoluteShift)
        }
        return try HomeAssistantValueReading.remaining(
            .string(state.state), deviceClass: state.deviceClass,
            unit: Self.remainingUnit(source, mapping: mapping, state: state), absoluteShift: absoluteShift)
    }

    /// The unit a plain-number remaining time is read in: the configured one, else (for the
    /// entity's own state) its `device_class: duration` unit.
    private static func remainingUnit(
        _ source: HomeAssistantValueSource, mapping: HomeAssistantEntityMapping, state: HomeAssistantEntityState
    ) -> String? {
        if source.attribute != nil { return mapping.remainingUnit }
        return mapping.remainingUnit ?? (state.deviceClass == "duration" ? state.unit : nil)
    }
}
