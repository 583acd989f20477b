/// A usage error: the message is printed with the command's usage, exit status 64.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parsed `--option value`, `--option=value`, `--flag` and positional arguments.
///
/// Small on purpose: each command declares which options take values and which are flags, and
/// anything else is a usage error naming the unknown option (with a did-you-mean).
public struct ParsedArguments: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positional: [String] = []

    public init(_ arguments: [String], options: [String], flags allowedFlags: [String]) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil {
                    throw UsageError("unknown option \(argument)")
                }
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if options.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else if allowedFlags.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else {
                let all = options + allowedFlags
                let suggestion = all.min { Self.distance($0, name) < Self.distance($1, name) }
                    .flatMap { Self.distance($0, name) <= 2 ? $0 : nil }
                throw UsageError("unknown option --\(name)" + (suggestion.map { "; did you mean --\($0)?" } ?? ""))
            }
        }
    }

    public func value(_ name: String) -> String? { values[name] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A number option within `range`.
    public func number(_ name: String, range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw UsageError(
                "--\(name) \(text): expected a number in \(format(range.lowerBound))…\(format(range.upperBound))")
        }
        return number
    }

    private func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Exit statuses from sysexits.h, as the README documents them.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
    public static let invalidContent: Int32 = 65
    public static let unavailable: Int32 = 69
    public static let software: Int32 = 70
    public static let temporary: Int32 = 75
    public static let permission: Int32 = 77
    public static let configuration: Int32 = 78
}

/// Where a command writes: the terminal in the program, buffers in tests.
public struct CommandOutput: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }
}
