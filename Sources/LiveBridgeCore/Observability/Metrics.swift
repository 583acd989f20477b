import Synchronization

/// Counters and gauges for `/metrics` (Prometheus text format 0.0.4).
public final class MetricsRegistry: Sendable {
    private struct Key: Hashable {
        var name: String
        var labels: [String]  // "k=v" pairs, sorted
    }

    private struct State {
        var counters: [Key: Double] = [:]
        var gauges: [Key: Double] = [:]
        /// The series carrying each value of an indexed label (`slug=…` → keys), so that removing
        /// a slug's series costs what it has, not what the registry holds.
        var index: [String: Set<Key>] = [:]

        mutating func note(_ key: Key, indexed: Set<String>) {
            for pair in key.labels where indexed.contains(Self.label(of: pair)) { index[pair, default: []].insert(key) }
        }

        static func label(of pair: String) -> String { String(pair.prefix { $0 != "=" }) }
    }

    /// Labels whose values come and go (slugs): indexed for `removeSeries`.
    private let indexedLabels: Set<String> = ["slug"]

    private let state = Mutex(State())

    /// Help text of the metrics LiveBridge exports.
    public static let help: [String: String] = [
        "livebridge_pushes_sent_total": "Frames delivered to a sink, per sink and slug.",
        "livebridge_pushes_skipped_total": "Updates the push economy decided not to push, per sink and slug.",
        "livebridge_pushes_failed_total": "Delivery attempts that failed, per sink and reason.",
        "livebridge_requests_total": "HTTP requests made to a push service, per sink.",
        "livebridge_budget_used": "Updates counted against the monthly budget this calendar month, per sink.",
        "livebridge_budget_limit": "The configured monthly budget, per sink.",
        "livebridge_adapter_events_total": "Observations adapters turned into updates, per source.",
        "livebridge_adapter_parse_errors_total": "Source messages that could not be parsed, per source.",
        "livebridge_adapter_restarts_total": "Times the supervisor restarted an adapter, per source.",
        "livebridge_delivery_queue_frames": "Frames waiting for delivery, per sink.",
        "livebridge_webhooks_total": "Webhook requests received, per source and result.",
    ]

    public init() {}

    private static func key(_ name: String, _ labels: [String: String]) -> Key {
        Key(name: name, labels: labels.keys.sorted().map { "\($0)=\(labels[$0]!)" })
    }

    /// Adds `amount` to a counter.
    public func increment(_ name: String, _ labels: [String: String] = [:], by amount: Double = 1) {
        let key = Self.key(name, labels)
        state.withLock { state in
            if state.counters[key] == nil { state.note(key, indexed: indexedLabels) }
            state.counters[key, default: 0] += amount
        }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: [String: String] = [:], _ value: Double) {
        let key = Self.key(name, labels)
        state.withLock { state in
            if state.gauges[key] == nil { state.note(key, indexed: indexedLabels) }
            state.gauges[key] = value
        }
    }

    /// A counter's or gauge's current value (0 when never touched).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        let key = Self.key(name, labels)
        return state.withLock { $0.counters[key] ?? $0.gauges[key] ?? 0 }
    }

    /// Removes every counter and gauge series whose `label` is one of `values` (slugs that are
    /// gone), so the label set stays bounded by what is alive. An indexed label (`slug`) costs
    /// what the removed series are; any other label a pass over the registry.
    public func removeSeries(label: String, values: Set<String>) {
        guard !values.isEmpty else { return }
        let pairs = Set(values.map { "\(label)=\($0)" })
        state.withLock { state in
            guard indexedLabels.contains(label) else {
                state.counters = state.counters.filter { !$0.key.labels.contains(where: pairs.contains) }
                state.gauges = state.gauges.filter { !$0.key.labels.contains(where: pairs.contains) }
                return
            }
            for pair in pairs {
                for key in state.index.removeValue(forKey: pair) ?? [] {
                    state.counters[key] = nil
                    state.gauges[key] = nil
                    // Any other indexed label of the same series drops it as well.
                    for other in key.labels where other != pair { state.index[other]?.remove(key) }
                }
            }
        }
    }

    /// Series currently exported (every name and label set), for tests and the soak bench.
    public var seriesCount: Int { state.withLock { $0.counters.count + $0.gauges.count } }

    /// The sum of a counter over every label set.
    public func total(_ name: String) -> Double {
        state.withLock { $0.counters.filter { $0.key.name == name }.values.reduce(0, +) }
    }

    /// The Prometheus exposition text.
    public func render() -> String {
        let (counters, gauges) = state.withLock { ($0.counters, $0.gauges) }
        var output = ""
        func emit(_ values: [Key: Double], type: String) {
            let byName = Dictionary(grouping: values.keys, by: \.name)
            for name in byName.keys.sorted() {
                if let help = Self.help[name] { output += "# HELP \(name) \(help)\n" }
                output += "# TYPE \(name) \(type)\n"
                for key in byName[name]!.sorted(by: { $0.labels.joined() < $1.labels.joined() }) {
                    let labels = key.labels.map { pair -> String in
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        let value = parts.count > 1 ? String(parts[1]) : ""
                        return "\(parts[0])=\"\(Self.escape(value))\""
                    }
                    let labelText = labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
                    output += "\(name)\(labelText) \(JSONWriter.format(values[key]!))\n"
                }
            }
        }
        emit(counters, type: "counter")
        emit(gauges, type: "gauge")
        return output
    }

    private static func escape(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
