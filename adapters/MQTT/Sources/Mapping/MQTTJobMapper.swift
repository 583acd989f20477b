public import LiveBridgeCore

/// One job of an MQTT source as a state machine: the messages of its topics in, the activity's
/// updates out. Pure (the time is an argument), so recorded sessions replay exactly.
///
/// Payloads are merged into one document (Moonraker sends only what changed; OctoPrint spreads a
/// job over its progress and event topics), and the mapping's paths read that document. A job
/// starts when its state means `active` or `paused` (or, without a state, when its start
/// threshold has held), ends when its state means an end (or the end threshold has held: a
/// washer's soak pause below the threshold for less than the hold does not end it). A value that
/// cannot be read keeps the last good one and is reported once per change of the problem.
public struct MQTTJobMapper: Sendable {
    public let mapping: MQTTJobMapping
    /// Seconds offline (the source's availability topic) before a running card says so.
    public var offlineGrace: Double

    /// What one input produced.
    public struct Output: Sendable, Hashable {
        public var updates: [ActivityUpdate] = []
        /// A new problem with the input (nil: none, or the same as last time).
        public var problem: String?
        /// After a run that ended well: the durations of the past runs, this one last (for
        /// `past-runs` estimates; the adapter keeps them across restarts).
        public var pastRuns: [Double]?
        /// Messages to publish (a request for the slicer's estimate).
        public var requests: [Request] = []
    }

    /// A message the job publishes to its source.
    public struct Request: Sendable, Hashable {
        public var topic: String
        public var payload: String
    }

    private(set) var document: JSONValue = .object([:])
    public private(set) var running = false
    private var startedAt: Double?
    private var meaning: MQTTJobMapping.Meaning = .idle
    private var label: String?
    /// Since when the start (not running) or end (running) threshold has held.
    private var thresholdSince: Double?
    private var lastProgress: Double?
    private var lastProblem: String?
    private var offlineSince: Double?
    private var offlineShown = false
    /// Durations of past runs that ended well, newest last (at most `pastRunsKept`).
    public private(set) var pastRuns: [Double]
    /// When the document's values were true (its last message).
    private var documentAt: Double?
    /// The slicer's estimates of whole prints by file name (at most `slicerTimesKept`).
    private var slicerTimes: [String: Double] = [:]
    /// The file whose estimate this run asked for (asked once, again after a reconnection).
    private var askedFor: String?
    /// Requests not yet answered: JSON-RPC id → file name.
    private var pending: [Int: String] = [:]
    private var nextRequestID: Int

    static let slicerTimesKept = 16

    static let pastRunsKept = 10
    /// Runs needed before `past-runs` gives an estimate.
    static let pastRunsNeeded = 3

    /// `requestIDs`: where this job's JSON-RPC ids start (the adapter picks a random base, so
    /// two bridges on one printer do not take each other's answers for their own).
    public init(mapping: MQTTJobMapping, offlineGrace: Double = 60, pastRuns: [Double] = [], requestIDs: Int = 0) {
        self.mapping = mapping
        self.offlineGrace = offlineGrace
        self.pastRuns = Array(pastRuns.suffix(Self.pastRunsKept))
        nextRequestID = requestIDs + 1
    }

    /// True when `topic` is one of this job's.
    public func follows(_ topic: String) -> Bool {
        topic == mapping.slicerEstimate?.responseTopic
            || mapping.topics.contains { MQTTTopicFilter.matches($0, topic: topic) }
    }

    // MARK: - Inputs

    /// A message on one of the job's topics.
    public mutating func receive(topic: String, payload: [UInt8], at t: Double) -> Output {
        guard follows(topic) else { return Output() }
        if topic == mapping.slicerEstimate?.responseTopic { return answer(payload, at: t) }
        let json: JSONValue
        do {
            json = try JSONParser.parse(String(decoding: payload, as: UTF8.self))
        } catch {
            return report("\(topic): the payload is not JSON")
        }
        guard json.objectValue != nil else {
            return report("\(topic): expected a JSON object, got \(Self.kind(of: json))")
        }
        for (path, expected) in mapping.match where path.value(in: json) != expected { return Output() }
        document = Self.merged(document, json)
        documentAt = t
        offlineSince = nil
        offlineShown = false
        return evaluate(at: t, problems: [])
    }

    /// Time passed: a threshold may have held long enough, an offline source may need saying so.
    public mutating func tick(at t: Double) -> Output {
        var output = Output()
        if let since = offlineSince, running, !offlineShown, t - since >= offlineGrace {
            offlineShown = true
            output.updates.append(update(phase: .paused, label: "Offline", at: t))
            return output
        }
        guard offlineSince == nil, mapping.state == nil, thresholdSince != nil else { return output }
        // Only a threshold's hold ending says something new: a running job's card is what the
        // last message made it.
        return evaluate(at: t, problems: [], transitionsOnly: true)
    }

    /// The source's availability topic said it went offline (or came back).
    public mutating func availability(online: Bool, at t: Double) -> Output {
        if online {
            offlineSince = nil
            // A source back (or the broker again) may not have had the question: ask again.
            askedFor = nil
            guard offlineShown else {
                var output = Output()
                output.requests = ask()
                return output
            }
            offlineShown = false
            return evaluate(at: t, problems: [])
        }
        if offlineSince == nil { offlineSince = t }
        return tick(at: t)
    }

    // MARK: - Evaluation

    private mutating func evaluate(at t: Double, problems: [String], transitionsOnly: Bool = false) -> Output {
        var problems = problems
        var output = Output()
        let previousMeaning = meaning
        if let statePath = mapping.state {
            if let raw = statePath.value(in: document) {
                let text = Self.text(raw)
                if let entry = mapping.states[text] {
                    meaning = entry.meaning
                    label = entry.label ?? text
                } else {
                    problems.append("state \"\(text)\" at \(statePath) is not in the states table")
                }
            }
        } else {
            meaning = thresholdMeaning(at: t, problems: &problems)
        }
        switch (running, meaning) {
        case (false, .active), (false, .paused):
            running = true
            startedAt = mapping.state == nil ? (thresholdSince ?? t) : t
            thresholdSince = nil
            output.updates.append(update(phase: meaning == .paused ? .paused : .active, label: label, at: t))
        case (true, .active), (true, .paused):
            if !transitionsOnly || previousMeaning != meaning {
                output.updates.append(update(phase: meaning == .paused ? .paused : .active, label: label, at: t))
            }
        case (true, .success), (true, .failure), (true, .cancelled), (true, .idle):
            let outcome: ActivityOutcome =
                switch meaning {
                case .failure: .failure
                case .cancelled, .idle: .cancelled
                default: .success
                }
            let endLabel = meaning == .idle ? "Stopped" : label
            var ended = update(phase: .ended(outcome), label: endLabel, at: t)
            if outcome == .success {
                // A full bar, unless the job never had one (a plug: the card stays without).
                if ended.progress != nil { ended.progress = 1 }
                if let startedAt {
                    let duration = max(0, (mapping.state == nil ? (thresholdSince ?? t) : t) - startedAt)
                    pastRuns = Array((pastRuns + [duration]).suffix(Self.pastRunsKept))
                    output.pastRuns = pastRuns
                }
            }
            output.updates.append(ended)
            running = false
            startedAt = nil
            thresholdSince = nil
            lastProgress = nil
            askedFor = nil
        case (false, _):
            break
        }
        if running {
            problems += readProblems()
            output.requests = ask()
        }
        if problems.isEmpty {
            lastProblem = nil
        } else {
            let problem = "\(mapping.slug): " + problems.joined(separator: "; ")
            if problem != lastProblem { output.problem = problem }
            lastProblem = problem
        }
        return output
    }

    /// Without a state path: `active` once the start threshold held `hold` seconds, `success`
    /// once the end threshold did (while running), else what it was.
    private mutating func thresholdMeaning(at t: Double, problems: inout [String]) -> MQTTJobMapping.Meaning {
        guard let rule = running ? mapping.end : mapping.start else { return meaning }
        guard let value = number(at: rule.path, problems: &problems) else { return meaning }
        if rule.holds(value) {
            let since = thresholdSince ?? t
            thresholdSince = since
            if t - since >= rule.hold { return running ? .success : .active }
        } else {
            thresholdSince = nil
        }
        return running ? .active : .idle
    }

    /// Problems reading the values a running card shows.
    private func readProblems() -> [String] {
        var problems: [String] = []
        if let path = mapping.progress, let value = path.value(in: document), value.doubleValue == nil {
            problems.append("progress at \(path) is \(Self.kind(of: value)), expected a number")
        }
        if let remaining = mapping.remaining, let value = remaining.path.value(in: document), value.doubleValue == nil {
            problems.append("remaining at \(remaining.path) is \(Self.kind(of: value)), expected a number")
        }
        return problems
    }

    private func number(at path: JSONPath, problems: inout [String]) -> Double? {
        guard let value = path.value(in: document) else { return nil }
        guard let number = value.doubleValue else {
            problems.append("\(path) is \(Self.kind(of: value)), expected a number")
            return nil
        }
        return number
    }

    private mutating func update(phase: ActivityPhase, label: String?, at t: Double) -> ActivityUpdate {
        let content = GenericContent(
            state: label ?? Self.defaultLabel(phase), icon: mapping.icon, accentColor: mapping.color)
        var details = GenericContent()
        if let path = mapping.subtitle, let value = path.value(in: document) {
            details = GenericContent(subtitle: Self.text(value))
        }
        var update = ActivityUpdate(slug: mapping.slug, name: mapping.name, phase: phase, content: content)
        update.details = details
        update.observedAt = t
        if let path = mapping.progress, let value = path.value(in: document)?.doubleValue, mapping.progressScale > 0 {
            let progress = min(1, max(0, value / mapping.progressScale))
            lastProgress = progress
            if mapping.progressScale >= 100, value == value.rounded() {
                update.progressResolution = 1 / mapping.progressScale
            }
        }
        update.progress = lastProgress
        if phase == .active { update.eta = eta(progress: update.progress, at: t, resolution: &update.etaResolution) }
        update.statesFinish = mapping.remaining != nil
        return update
    }

    private func eta(progress: Double?, at t: Double, resolution: inout Double?) -> ActivityETA? {
        if let remaining = mapping.remaining, let value = remaining.path.value(in: document)?.doubleValue {
            switch remaining.unit {
            case .seconds: return value >= 0 ? .remaining(value) : nil
            case .minutes:
                resolution = 60
                return value >= 0 ? .remaining(value * 60) : nil
            case .timestamp: return value > 0 ? .finishesAt(value) : nil
            }
        }
        switch mapping.estimate {
        case .elapsedOverProgress:
            let elapsed = mapping.elapsed.flatMap { $0.value(in: document)?.doubleValue } ?? startedAt.map { t - $0 }
            if let elapsed, let file = printedFile, let total = slicerTimes[file] {
                // The slicer knows the first layers are slow, the progress does not; the progress
                // knows this printer and this spool. Start from the slicer, end with the progress.
                let fromSlicer = max(0, total - elapsed)
                guard let progress, progress >= 0.01 else { return .remaining(fromSlicer) }
                guard progress < 1 else { return nil }
                return .remaining((1 - progress) * fromSlicer + progress * (elapsed / progress - elapsed))
            }
            guard let elapsed, let progress, progress >= 0.01, progress < 1 else { return nil }
            return .remaining(elapsed / progress - elapsed)
        case .pastRuns:
            guard pastRuns.count >= Self.pastRunsNeeded, let startedAt else { return nil }
            let typical = pastRuns.sorted()[pastRuns.count / 2]
            return .remaining(max(0, typical - (t - startedAt)))
        case nil:
            return nil
        }
    }

    // MARK: - The slicer's estimate

    /// The printed file's name, when the job asks for slicer estimates.
    private var printedFile: String? {
        guard let slicer = mapping.slicerEstimate, let value = slicer.filename.value(in: document) else { return nil }
        let name = Self.text(value)
        return name.isEmpty ? nil : name
    }

    /// A request for the printed file's estimate, unless it is known or already asked for.
    private mutating func ask() -> [Request] {
        guard running, let slicer = mapping.slicerEstimate, let file = printedFile, slicerTimes[file] == nil,
            askedFor != file
        else { return [] }
        askedFor = file
        let id = nextRequestID
        nextRequestID += 1
        pending[id] = file
        if pending.count > Self.slicerTimesKept, let oldest = pending.keys.min() { pending[oldest] = nil }
        let request: JSONValue = .object([
            "jsonrpc": .string("2.0"), "method": .string("server.files.metadata"),
            "params": .object(["filename": .string(file)]), "id": .number(Double(id)),
        ])
        return [Request(topic: slicer.requestTopic, payload: JSONWriter.string(request))]
    }

    /// A JSON-RPC answer on the response topic: a file's metadata (ours, or another client's for
    /// the same file — the estimate is the same), or an error for one of ours. Answers to other
    /// clients' other questions are not this job's business.
    private mutating func answer(_ payload: [UInt8], at t: Double) -> Output {
        guard let json = try? JSONParser.parse(String(decoding: payload, as: UTF8.self)) else { return Output() }
        let ours = json["id"]?.doubleValue.flatMap { pending.removeValue(forKey: Int(exactly: $0) ?? -1) }
        if let ours, let error = json["error"] {
            let message = error["message"].map { Self.text($0) } ?? JSONWriter.string(error)
            return report("Moonraker could not give the slicer's estimate for \(ours): \(message)")
        }
        guard let result = json["result"]?.objectValue, let file = result["filename"]?.stringValue ?? ours else {
            return Output()
        }
        guard let total = result["estimated_time"]?.doubleValue, total > 0 else {
            guard ours != nil else { return Output() }
            return report("\(file) has no slicer estimate in its metadata; the estimate is from the progress")
        }
        if slicerTimes[file] == nil, slicerTimes.count >= Self.slicerTimesKept, let any = slicerTimes.keys.first {
            slicerTimes[any] = nil
        }
        slicerTimes[file] = total
        var output = Output()
        if running, meaning == .active, file == printedFile {
            output.updates.append(update(phase: .active, label: label, at: documentAt ?? t))
        }
        return output
    }

    private mutating func report(_ problem: String) -> Output {
        var output = Output()
        let full = "\(mapping.slug): \(problem)"
        if full != lastProblem { output.problem = full }
        lastProblem = full
        return output
    }

    // MARK: - Helpers

    /// `b` merged into `a`: objects member by member (a delta changes only what it names), any
    /// other value replaced.
    static func merged(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        guard var base = a.objectValue, let delta = b.objectValue else { return b }
        for (key, value) in delta { base[key] = base[key].map { merged($0, value) } ?? value }
        return .object(base)
    }

    static func text(_ value: JSONValue) -> String {
        if let string = value.stringValue { return string }
        if let number = value.doubleValue {
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        }
        if let bool = value.boolValue { return bool ? "true" : "false" }
        return JSONWriter.string(value)
    }

    static func kind(of value: JSONValue) -> String {
        if value.stringValue != nil { return "a string" }
        if value.doubleValue != nil { return "a number" }
        if value.boolValue != nil { return "a boolean" }
        if value.objectValue != nil { return "an object" }
        if value.arrayValue != nil { return "an array" }
        return "null"
    }

    static func defaultLabel(_ phase: ActivityPhase) -> String {
        switch phase {
        case .active: "Running"
        case .paused: "Paused"
        case .ended(.success): "Done"
        case .ended(.failure): "Failed"
        case .ended(.cancelled): "Cancelled"
        }
    }
}

/// MQTT topic filters: `+` one level, `#` the rest (MQTT 3.1.1 §4.7).
public enum MQTTTopicFilter {
    public static func matches(_ filter: String, topic: String) -> Bool {
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level == "#" { return index < parts.count || index == parts.count }
            guard index < parts.count else { return false }
            if level != "+" && level != parts[index] { return false }
        }
        return levels.count == parts.count
    }
}
