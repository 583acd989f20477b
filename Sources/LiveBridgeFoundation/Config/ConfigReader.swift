import Synchronization

/// One thing wrong with a config file: where, and what to do about it.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    /// `sources[1].serial`
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Every problem found in a config file (all of them, not just the first).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    /// Every problem, one per line; secrets (registered ones, keys in URLs) masked, since
    /// problems may quote the values they are about.
    public var description: String {
        Redactor.shared.redact("invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
    }
}

/// Collects problems while a config tree is read.
public final class ConfigProblems: Sendable {
    private let list = Mutex<[ConfigProblem]>([])

    public init() {}

    public func add(_ path: String, _ message: String) {
        list.withLock { $0.append(ConfigProblem(path: path, message: message)) }
    }

    public var all: [ConfigProblem] { list.withLock { $0 } }

    private let remarks = Mutex<[ConfigProblem]>([])

    /// Records a remark that does not stop the config from loading (a deprecated key).
    public func warn(_ path: String, _ message: String) {
        remarks.withLock { $0.append(ConfigProblem(path: path, message: message)) }
    }

    /// The remarks so far, as `path: message`.
    public var warnings: [String] { remarks.withLock { $0.map(\.description) } }

    /// Throws a `ConfigError` when any problem was recorded.
    public func check() throws(ConfigError) {
        let problems = all
        if !problems.isEmpty { throw ConfigError(problems: problems) }
    }
}

/// Reads one JSON object of a config file, recording problems with their path, remembering
/// which keys were read so unknown ones can be reported with a did-you-mean.
public final class ConfigReader: @unchecked Sendable {
    /// Path of this object (`sources[0]`).
    public let path: String
    /// The object's members.
    public let members: [String: JSONValue]
    /// Where problems go.
    public let problems: ConfigProblems
    private let redactor: Redactor
    private var used: Set<String> = []

    public init(path: String, members: [String: JSONValue], problems: ConfigProblems, redactor: Redactor = .shared) {
        self.path = path
        self.members = members
        self.problems = problems
        self.redactor = redactor
    }

    /// A reader for a value that must be an object; records a problem and returns nil otherwise.
    public static func object(_ value: JSONValue, path: String, problems: ConfigProblems) -> ConfigReader? {
        guard case .object(let members) = value else {
            problems.add(path, "expected an object { … }")
            return nil
        }
        return ConfigReader(path: path, members: members, problems: problems)
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Records a problem at `key`.
    public func problem(_ key: String?, _ message: String) {
        problems.add(key.map(keyPath) ?? path, message)
    }

    /// The key that holds what `key` was once called `formerly`: `key` when present, else
    /// `formerly` with a warning to rename it; a problem when both are given.
    public func renamed(_ key: String, formerly old: String) -> String {
        let current = has(key)
        guard has(old) else { return key }
        if current {
            problem(old, "give \(key) only (\(old) is its old name)")
            return key
        }
        problems.warn(keyPath(old), "\(old) is deprecated; rename it to \(key) (same value)")
        return old
    }

    /// True when the key is present (and marks it read).
    public func has(_ key: String) -> Bool {
        used.insert(key)
        return members[key] != nil && members[key] != .null
    }

    /// The raw value (marks it read).
    public func raw(_ key: String) -> JSONValue? {
        used.insert(key)
        return members[key]
    }

    /// An optional string.
    public func string(_ key: String) -> String? {
        used.insert(key)
        guard let value = members[key], value != .null else { return nil }
        guard case .string(let text) = value else {
            problem(key, "expected a string in quotes")
            return nil
        }
        return text
    }

    /// A string with a default.
    public func string(_ key: String, default fallback: String) -> String { string(key) ?? fallback }

    /// A required string; records "required" and returns "" when missing or empty.
    public func requiredString(_ key: String, hint: String? = nil) -> String {
        guard let text = string(key) else {
            if members[key] == nil || members[key] == .null {
                problem(key, "required" + (hint.map { " (\($0))" } ?? ""))
            }
            return ""
        }
        if text.isEmpty { problem(key, "must not be empty" + (hint.map { " (\($0))" } ?? "")) }
        return text
    }

    /// A secret string: registered for redaction everywhere.
    public func secret(_ key: String, required: Bool, hint: String? = nil) -> String? {
        let value = required ? requiredString(key, hint: hint) : string(key)
        if let value, !value.isEmpty { redactor.register(value) }
        return value?.isEmpty == true ? nil : value
    }

    /// One of a fixed set of strings.
    public func choice(_ key: String, _ options: [String], default fallback: String) -> String {
        guard let text = string(key) else { return fallback }
        guard options.contains(text) else {
            problem(key, "\"\(text)\" is not one of \(options.map { "\"\($0)\"" }.joined(separator: ", "))")
            return fallback
        }
        return text
    }

    /// A boolean with a default.
    public func bool(_ key: String, default fallback: Bool) -> Bool {
        used.insert(key)
        guard let value = members[key], value != .null else { return fallback }
        guard case .bool(let flag) = value else {
            problem(key, "expected true or false")
            return fallback
        }
        return flag
    }

    /// A number within `range`.
    public func double(_ key: String, default fallback: Double?, range: ClosedRange<Double>? = nil) -> Double? {
        used.insert(key)
        guard let value = members[key], value != .null else { return fallback }
        guard let number = value.doubleValue, number.isFinite else {
            problem(key, "expected a number")
            return fallback
        }
        if let range, !range.contains(number) {
            problem(
                key,
                "\(JSONWriter.format(number)) is outside \(JSONWriter.format(range.lowerBound))…\(JSONWriter.format(range.upperBound))"
            )
            return fallback
        }
        return number
    }

    /// An integer within `range`.
    public func int(_ key: String, default fallback: Int?, range: ClosedRange<Int>? = nil) -> Int? {
        used.insert(key)
        guard let value = members[key], value != .null else { return fallback }
        guard let number = value.intValue else {
            problem(key, "expected a whole number")
            return fallback
        }
        if let range, !range.contains(number) {
            problem(key, "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
            return fallback
        }
        return number
    }

    /// A duration in seconds: a number of seconds or a string like `"15s"`, `"10m"`, `"1h30m"`.
    public func duration(_ key: String, default fallback: Double, range: ClosedRange<Double>? = nil) -> Double {
        used.insert(key)
        guard let value = members[key], value != .null else { return fallback }
        var seconds: Double?
        switch value {
        case .int, .double: seconds = value.doubleValue
        case .string(let text): seconds = DurationText.parse(text)
        default: seconds = nil
        }
        guard let seconds, seconds >= 0 else {
            problem(key, "expected a duration such as \"15s\", \"10m\" or \"1h30m\" (or a number of seconds)")
            return fallback
        }
        if let range, !range.contains(seconds) {
            problem(
                key,
                "\(JSONWriter.format(seconds)) s is outside \(JSONWriter.format(range.lowerBound))…\(JSONWriter.format(range.upperBound)) s"
            )
            return fallback
        }
        return seconds
    }

    /// A nested object.
    public func object(_ key: String) -> ConfigReader? {
        used.insert(key)
        guard let value = members[key], value != .null else { return nil }
        return ConfigReader.object(value, path: keyPath(key), problems: problems)
    }

    /// An array of objects (missing = empty).
    public func objects(_ key: String) -> [ConfigReader] {
        used.insert(key)
        guard let value = members[key], value != .null else { return [] }
        guard case .array(let elements) = value else {
            problem(key, "expected a list [ … ]")
            return []
        }
        return elements.enumerated().compactMap { offset, element in
            ConfigReader.object(element, path: "\(keyPath(key))[\(offset)]", problems: problems)
        }
    }

    /// An array of strings (missing = nil).
    public func strings(_ key: String) -> [String]? {
        used.insert(key)
        guard let value = members[key], value != .null else { return nil }
        if case .string(let single) = value { return [single] }
        guard case .array(let elements) = value else {
            problem(key, "expected a list of strings")
            return nil
        }
        var result: [String] = []
        for (offset, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                problems.add("\(keyPath(key))[\(offset)]", "expected a string")
                continue
            }
            result.append(text)
        }
        return result
    }

    /// Records every key that was never read as unknown, suggesting the closest known one.
    public func finish() {
        for key in members.keys.sorted() where !used.contains(key) {
            let suggestion = Self.closest(to: key, among: Array(used))
            problem(key, "unknown key" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? ""))
        }
    }

    /// The candidate within edit distance 2 (or a case-insensitive match), if any.
    static func closest(to key: String, among candidates: [String]) -> String? {
        if let match = candidates.first(where: { $0.lowercased() == key.lowercased() }) { return match }
        let scored = candidates.map { ($0, editDistance(key.lowercased(), $0.lowercased())) }
            .filter { $0.1 <= max(2, key.count / 4) }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        return scored.first?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension DurationText {
    /// Seconds in `"15s"`, `"10m"`, `"1h30m"`, `"1.5h"`, `"250ms"` or a plain number.
    public static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        if let plain = Double(trimmed) { return plain }
        if trimmed.hasSuffix("ms"), let milliseconds = Double(trimmed.dropLast(2)) { return milliseconds / 1000 }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in trimmed {
            if character.isASCIIDigit || character == "." {
                number.append(character)
                continue
            }
            guard let amount = Double(number) else { return nil }
            switch character {
            case "d": total += amount * 86400
            case "h": total += amount * 3600
            case "m": total += amount * 60
            case "s": total += amount
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        return number.isEmpty && sawUnit ? total : nil
    }
}
