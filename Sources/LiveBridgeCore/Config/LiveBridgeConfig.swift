import FoundationEssentials
import Glibc

/// A configured source or sink, before its type-specific keys are read by its factory.
public struct ComponentConfig: Sendable {
    /// Position in the file (`sources[1]`), for messages.
    public var path: String
    public var name: String
    public var type: String
    /// The entry's keys; the factory for `type` reads them and calls `finish()`.
    public var reader: ConfigReader

    public init(path: String, name: String, type: String, reader: ConfigReader) {
        self.path = path
        self.name = name
        self.type = type
        self.reader = reader
    }
}

extension LiveBridgeConfig {
    /// Adds a source entry in code (programs that embed LiveBridge with their own adapters).
    public mutating func addSource(name: String, type: String, settings: [String: JSONValue] = [:]) {
        let path = "sources[\(sources.count)]"
        var members = settings
        members["name"] = .string(name)
        members["type"] = .string(type)
        let reader = ConfigReader(path: path, members: members, problems: problems)
        _ = reader.string("name")
        _ = reader.string("type")
        sources.append(ComponentConfig(path: path, name: name, type: type, reader: reader))
    }
}

/// The whole configuration file (`livebridge.json5`).
public struct LiveBridgeConfig: Sendable {
    /// Where tracker state, budget counters, pins and id maps live.
    public var dataDir: String
    /// `host:port` of LiveBridge's own HTTP server (health, metrics, webhooks, activities API).
    public var listen: String?
    /// Bearer token required by `POST /api/activities/<slug>`; nil disables that API.
    public var apiToken: String?
    public var economy: EconomySettings
    public var logLevel: LogLevel
    /// End every running activity on SIGINT/SIGTERM instead of leaving it to resume.
    public var endOnShutdown: Bool
    public var sinks: [ComponentConfig]
    public var sources: [ComponentConfig]
    /// Problems found so far (type-specific readers add theirs).
    public var problems: ConfigProblems
    /// Non-fatal remarks (a config file readable by other users).
    public var warnings: [String]

    /// The default data directory: `$STATE_DIRECTORY` (systemd), else `~/.local/state/livebridge`.
    public static func defaultDataDirectory(environment: [String: String]) -> String {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            return String(state.split(separator: ":").first ?? Substring(state))
        }
        let home = environment["HOME"] ?? "/tmp"
        return home + "/.local/state/livebridge"
    }
}

/// Reads and validates a config file: JSON5, `${ENV}` interpolation, paths and did-you-means.
public enum ConfigLoader {
    /// Loads `path`; throws `ConfigError` with every problem found at the top level.
    public static func load(path: String, environment: [String: String]? = nil) throws(ConfigError) -> LiveBridgeConfig
    {
        let environment = environment ?? ProcessInfo.processInfo.environment
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason =
                FileManager.default.fileExists(atPath: path)
                ? "cannot be read (check its permissions)" : "does not exist"
            throw ConfigError(problems: [ConfigProblem(path: "", message: "config file \(path) \(reason)")])
        }
        var warnings: [String] = []
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o044 != 0 {
            warnings.append(
                "config file \(path) is readable by other users and may hold secrets; run: chmod 600 \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        var config = try parse(text: text, environment: environment)
        config.warnings = warnings + config.warnings
        return config
    }

    /// Parses config text (for tests and `check`).
    public static func parse(text: String, environment: [String: String]) throws(ConfigError) -> LiveBridgeConfig {
        let json: JSONValue
        do {
            json = try JSON5Parser.parse(text)
        } catch {
            throw ConfigError(problems: [ConfigProblem(path: "", message: "syntax error at \(error)")])
        }
        let problems = ConfigProblems()
        let interpolated = interpolate(json, path: "", environment: environment, problems: problems)
        guard let root = ConfigReader.object(interpolated, path: "", problems: problems) else {
            try problems.check()
            throw ConfigError(problems: [ConfigProblem(path: "", message: "the file must hold one object { … }")])
        }
        let dataDir = root.string("dataDir") ?? LiveBridgeConfig.defaultDataDirectory(environment: environment)
        var listen: String? = "127.0.0.1:8790"
        var apiToken: String?
        if let server = root.object("server") {
            listen = server.string("listen", default: "127.0.0.1:8790")
            if listen == "" || listen == "off" { listen = nil }
            if let listen, !isValidListen(listen) {
                server.problem("listen", "\"\(listen)\" is not host:port (for example \"127.0.0.1:8790\")")
            }
            apiToken = server.secret("apiToken", required: false)
            server.finish()
        }
        var economy = EconomySettings()
        if let reader = root.object("economy") {
            economy.maxDisplayError = reader.double(
                "maxDisplayError", default: economy.maxDisplayError, range: 0.001...0.5)!
            economy.monthlyBudget = reader.int("monthlyBudget", default: nil, range: 1...10_000_000)
            economy.endFrames = reader.int("endFrames", default: nil, range: 1...2)
            economy.endDisplay = reader.duration("endDisplay", default: economy.endDisplay, range: 0...300)
            economy.detailInterval = reader.duration(
                "detailInterval", default: economy.detailInterval, range: 0...86_400)
            economy.etaToleranceMinimum = reader.duration(
                "etaTolerance", default: economy.etaToleranceMinimum, range: 1...3600)
            economy.endedTTL = Int(reader.duration("endedTTL", default: Double(economy.endedTTL), range: 1...2_592_000))
            economy.dismissalTTL = Int(
                reader.duration("dismissalTTL", default: Double(economy.dismissalTTL), range: 0...14_400))
            economy.staticMinimumInterval = reader.duration(
                "staticMinimumInterval", default: economy.staticMinimumInterval, range: 0...3600)
            economy.staticMaxDisplayError =
                reader.double("staticMaxDisplayError", default: economy.staticMaxDisplayError, range: 0.001...0.5)!
            economy.staticETAToleranceMinimum = reader.duration(
                "staticEtaTolerance", default: economy.staticETAToleranceMinimum, range: 1...3600)
            economy.etaPersistence = reader.duration("etaPersistence", default: economy.etaPersistence, range: 0...600)
            economy.startWait = reader.duration("startWait", default: economy.startWait, range: 0...120)
            economy.estimateWait = reader.duration("estimateWait", default: economy.estimateWait, range: 0...600)
            economy.coalesceWindow = reader.duration(
                "coalesceWindow", default: economy.coalesceWindow, range: 0...10)
            reader.finish()
        }
        let levelText = root.string("logLevel", default: "info")
        let logLevel = LogLevel(name: levelText) ?? .info
        if LogLevel(name: levelText) == nil {
            root.problem("logLevel", "\"\(levelText)\" is not one of trace, debug, info, notice, warning, error")
        }
        let endOnShutdown = root.bool("endOnShutdown", default: false)
        let sinks = components(root, key: "sinks")
        let sources = components(root, key: "sources")
        if root.members["sinks"] == nil {
            root.problem("sinks", "required: at least one sink (for example type \"pushward\")")
        }
        root.finish()
        for (kind, list) in [("sinks", sinks), ("sources", sources)] {
            var seen: [String: String] = [:]
            for component in list {
                if let first = seen[component.name] {
                    problems.add(
                        component.path + ".name",
                        "\"\(component.name)\" is already used by \(first); names must be unique among \(kind)")
                }
                seen[component.name] = component.path
            }
        }
        return LiveBridgeConfig(
            dataDir: dataDir, listen: listen, apiToken: apiToken, economy: economy, logLevel: logLevel,
            endOnShutdown: endOnShutdown, sinks: sinks, sources: sources, problems: problems, warnings: [])
    }

    private static func components(_ root: ConfigReader, key: String) -> [ComponentConfig] {
        root.objects(key).compactMap { reader in
            let name = reader.requiredString("name")
            let type = reader.requiredString("type")
            if !name.isEmpty, !ContentRules.isValidSlug(name) {
                reader.problem("name", "\"\(name)\" may use letters, digits, '-' and '_' only")
            }
            guard !type.isEmpty else { return nil }
            return ComponentConfig(path: reader.path, name: name, type: type, reader: reader)
        }
    }

    static func isValidListen(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            return false
        }
        return (0...65535).contains(port) && colon > text.startIndex
    }

    /// Replaces `${NAME}` (and `${NAME:-default}`) in every string; `$${` is a literal `${`.
    static func interpolate(
        _ value: JSONValue, path: String, environment: [String: String], problems: ConfigProblems
    ) -> JSONValue {
        switch value {
        case .string(let text):
            guard text.contains("${") else { return value }
            return .string(expand(text, path: path, environment: environment, problems: problems))
        case .array(let elements):
            return .array(
                elements.enumerated().map {
                    interpolate($0.element, path: "\(path)[\($0.offset)]", environment: environment, problems: problems)
                })
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                result[key] = interpolate(
                    member, path: path.isEmpty ? key : "\(path).\(key)", environment: environment, problems: problems)
            }
            return .object(result)
        default:
            return value
        }
    }

    static func expand(_ text: String, path: String, environment: [String: String], problems: ConfigProblems) -> String
    {
        var output = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            let after = rest[dollar...]
            if after.hasPrefix("$${") {
                output += "${"
                rest = after.dropFirst(3)
                continue
            }
            guard after.hasPrefix("${"), let close = after.firstIndex(of: "}") else {
                output += "$"
                rest = after.dropFirst()
                continue
            }
            let expression = after[after.index(after.startIndex, offsetBy: 2)..<close]
            var name = String(expression)
            var fallback: String?
            if let range = expression.range(of: ":-") {
                name = String(expression[..<range.lowerBound])
                fallback = String(expression[range.upperBound...])
            }
            if let value = environment[name], !value.isEmpty {
                output += value
            } else if let fallback {
                output += fallback
            } else {
                problems.add(path, "environment variable \(name) is not set (referenced as ${\(name)})")
            }
            rest = after[after.index(after: close)...]
        }
        output += rest
        return output
    }
}
