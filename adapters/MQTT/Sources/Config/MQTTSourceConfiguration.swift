public import LiveBridgeCore
import LiveBridgeKit
public import LiveBridgeNet

/// One `type: "mqtt"` source: a broker and the jobs read from its topics.
public struct MQTTSourceConfiguration: Sendable {
    /// Where the source says it went offline (its last will).
    public struct Availability: Sendable, Hashable {
        public var topic: String
        /// A field of a JSON payload to read (`server`), nil: the payload's text.
        public var path: JSONPath?
        /// The value that means offline.
        public var offline: String

        public init(topic: String, path: JSONPath? = nil, offline: String) {
            self.topic = topic
            self.path = path
            self.offline = offline
        }

        /// Whether `payload` on `topic` says offline (true), online (false), or nothing (nil).
        func says(topic: String, payload: [UInt8]) -> Bool? {
            guard MQTTTopicFilter.matches(self.topic, topic: topic) else { return nil }
            let text = String(String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace })
            if text == offline { return true }
            if let path, let json = try? JSONParser.parse(text), let value = path.value(in: json) {
                return MQTTJobMapper.text(value) == offline
            }
            return false
        }
    }

    public var name: String
    public var session: MQTTSessionConfiguration
    public var jobs: [MQTTJobMapping]
    public var availability: [Availability]
    /// Offline this long (the availability topic, or the broker gone) before a card says so.
    public var offlineGrace: Double

    public init(
        name: String, session: MQTTSessionConfiguration, jobs: [MQTTJobMapping], availability: [Availability] = [],
        offlineGrace: Double = 60
    ) {
        self.name = name
        self.session = session
        self.jobs = jobs
        self.availability = availability
        self.offlineGrace = offlineGrace
    }

    /// Every topic filter the session subscribes to.
    public var topicFilters: [String] {
        var filters: [String] = []
        let topics =
            jobs.flatMap(\.topics) + jobs.compactMap(\.slicerEstimate?.responseTopic) + availability.map(\.topic)
        for filter in topics where !filters.contains(filter) {
            filters.append(filter)
        }
        return filters
    }

    /// Reads a `type: "mqtt"` entry; nil after recording problems.
    public static func read(_ entry: ComponentConfig) -> MQTTSourceConfiguration? {
        let reader = entry.reader
        let problemsBefore = reader.problems.all.count
        let host = reader.requiredString("host", hint: "the broker's host name or IP, e.g. \"192.168.1.10\"")
        let useTLS = reader.bool("tls", default: false)
        let port = reader.int("port", default: useTLS ? 8883 : 1883, range: 1...65535) ?? 1883
        let username = reader.string("username")
        let password = reader.secret("password", required: false)
        let offlineGrace = reader.duration("offlineGrace", default: 60, range: 1...86_400)
        let security = MQTTTransportSecurity.read(reader, tls: useTLS)
        var jobs: [MQTTJobMapping] = []
        var availability: [Availability] = []
        let entries = reader.objects("jobs")
        if entries.isEmpty {
            if let (job, offline) = readJob(reader, source: entry.name, index: nil) {
                jobs.append(job)
                availability += offline
            }
        } else {
            for (index, job) in entries.enumerated() {
                if let (mapping, offline) = readJob(job, source: entry.name, index: index) {
                    jobs.append(mapping)
                    availability += offline
                }
                job.finish()
            }
        }
        var slugs: Set<String> = []
        for job in jobs where !slugs.insert(job.slug).inserted {
            reader.problem("jobs", "two jobs have the slug \"\(job.slug)\"; give each its own slug")
        }
        reader.finish()
        guard !host.isEmpty, !jobs.isEmpty, reader.problems.all.count == problemsBefore else { return nil }
        let session = MQTTSessionConfiguration(
            host: host, port: port,
            clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "livebridge-\(entry.name)"),
            username: username, password: password, security: security)
        var configuration = MQTTSourceConfiguration(
            name: entry.name, session: session, jobs: jobs, availability: availability, offlineGrace: offlineGrace)
        configuration.session.subscriptions = configuration.topicFilters.map {
            MQTTSubscription($0, qos: .atLeastOnce)
        }
        return configuration
    }

    /// One job: its preset's mapping (if it names one), then every key given over it.
    static func readJob(_ reader: ConfigReader, source: String, index: Int?) -> (MQTTJobMapping, [Availability])? {
        let presetName = reader.has("preset") ? reader.choice("preset", MQTTPreset.names, default: "") : nil
        var mapping: MQTTJobMapping
        var offline: [Availability] = []
        let defaultSlug = ContentRules.slugify("mqtt-\(source)" + (index.map { "-\($0 + 1)" } ?? ""))
        if let presetName, let preset = MQTTPreset.read(presetName, reader, slug: defaultSlug, name: source) {
            mapping = preset.mapping
            offline = preset.availability
        } else if presetName != nil {
            return nil
        } else {
            mapping = MQTTJobMapping(topics: [], slug: defaultSlug, name: source)
        }
        if let topics = reader.strings("topics") {
            for topic in topics where !MQTTTopic.isValidFilter(topic) {
                reader.problem("topics", "\"\(topic)\" is not a topic filter (+ for one level, # only at the end)")
            }
            mapping.topics = topics
        }
        if mapping.topics.isEmpty {
            reader.problem("topics", "required: the topics whose messages feed this job (or a preset)")
        }
        if let match = reader.object("match") {
            for key in match.members.keys.sorted() {
                if let value = match.raw(key) { mapping.match[JSONPath(key)] = value }
            }
            match.finish()
        }
        readPaths(reader, into: &mapping)
        if let slug = reader.string("slug") {
            if ContentRules.isValidSlug(slug) {
                mapping.slug = slug
            } else {
                reader.problem("slug", "\"\(slug)\" must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
            }
        }
        mapping.name = reader.string("displayName") ?? mapping.name
        mapping.icon = reader.string("icon") ?? mapping.icon
        mapping.color = reader.string("color") ?? mapping.color
        if let availability = reader.object("availability") {
            let topic = availability.requiredString("topic", hint: "the topic of the source's last will")
            let path = availability.string("path").map { JSONPath($0) }
            let value = availability.string("offline", default: "offline")
            availability.finish()
            if !topic.isEmpty { offline = [Availability(topic: topic, path: path, offline: value)] }
        }
        if mapping.state == nil, mapping.start == nil {
            reader.problem(
                "state", "give state (with a states table) or start and end thresholds: how a job starts and ends")
        }
        return (mapping, offline)
    }

    /// `progress`, `remaining`, `estimate`, `elapsed`, `state`, `states`, `start`, `end`, `subtitle`.
    static func readPaths(_ reader: ConfigReader, into mapping: inout MQTTJobMapping) {
        if reader.has("progress") {
            if let text = reader.raw("progress")?.stringValue {
                mapping.progress = path(reader, "progress", text)
            } else if let progress = reader.object("progress") {
                mapping.progress = path(progress, "path", progress.requiredString("path"))
                mapping.progressScale = progress.double("scale", default: 1, range: 0.000_001...1e12) ?? 1
                progress.finish()
            } else {
                reader.problem("progress", "expected a path (\"progress\") or {path, scale}")
            }
        }
        if let remaining = reader.object("remaining") {
            let at = path(remaining, "path", remaining.requiredString("path"))
            let unit = remaining.choice(
                "unit", MQTTJobMapping.Remaining.Unit.allCases.map(\.rawValue), default: "seconds")
            remaining.finish()
            if let at, let unit = MQTTJobMapping.Remaining.Unit(rawValue: unit) {
                mapping.remaining = .init(path: at, unit: unit)
            }
        }
        if reader.has("estimate") {
            let estimate = reader.choice("estimate", MQTTJobMapping.Estimate.allCases.map(\.rawValue), default: "")
            mapping.estimate = MQTTJobMapping.Estimate(rawValue: estimate)
        }
        if let elapsed = reader.string("elapsed") { mapping.elapsed = path(reader, "elapsed", elapsed) }
        if let subtitle = reader.string("subtitle") { mapping.subtitle = path(reader, "subtitle", subtitle) }
        if let state = reader.string("state") { mapping.state = path(reader, "state", state) }
        if let states = reader.object("states") {
            let meanings = MQTTJobMapping.Meaning.allCases.map(\.rawValue)
            for raw in states.members.keys.sorted() {
                if let meaning = states.raw(raw)?.stringValue {
                    if let value = MQTTJobMapping.Meaning(rawValue: meaning) {
                        mapping.states[raw] = .init(value)
                    } else {
                        states.problem(raw, "\"\(meaning)\" is not one of \(meanings.joined(separator: ", "))")
                    }
                } else if let entry = states.object(raw) {
                    let meaning = entry.choice("meaning", meanings, default: "active")
                    let label = entry.string("label")
                    entry.finish()
                    mapping.states[raw] = .init(MQTTJobMapping.Meaning(rawValue: meaning) ?? .active, label)
                } else {
                    states.problem(raw, "expected a meaning (\(meanings.joined(separator: ", "))) or {meaning, label}")
                }
            }
            states.finish()
        }
        if let start = reader.object("start") { mapping.start = threshold(start) ?? mapping.start }
        if let end = reader.object("end") { mapping.end = threshold(end) ?? mapping.end }
        if mapping.start != nil, mapping.end == nil {
            reader.problem("end", "required with start: when a job is over")
        }
    }

    static func threshold(_ reader: ConfigReader) -> MQTTJobMapping.Threshold? {
        let at = path(reader, "path", reader.requiredString("path"))
        let above = reader.double("above", default: nil)
        let below = reader.double("below", default: nil)
        let hold = reader.duration("hold", default: 0, range: 0...86_400)
        reader.finish()
        if above == nil && below == nil { reader.problem("above", "give above or below (or both)") }
        guard let at else { return nil }
        return .init(path: at, above: above, below: below, hold: hold)
    }

    static func path(_ reader: ConfigReader, _ key: String, _ text: String) -> JSONPath? {
        guard !text.isEmpty else { return nil }
        guard JSONPath.isValid(text) else {
            reader.problem(key, "\"\(text)\" is not a path: keys separated by dots (status.print_stats.state)")
            return nil
        }
        return JSONPath(text)
    }
}
