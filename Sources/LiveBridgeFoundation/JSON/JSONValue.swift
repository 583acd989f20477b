/// A JSON document as a value: what merge patches, fixtures and wire bodies are made of.
///
/// Numbers keep their integer-ness (`end_date` must go out as `1750003600`, never `1.75e9`), and
/// objects are dictionaries written with sorted keys so output is deterministic.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The object's members, or nil when this is not an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The array's elements, or nil when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or nil when this is not a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as a `Double`, from either integer or floating representation.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The number as an integer when it is integral and in range.
    public var intValue: Int? {
        switch self {
        case .int(let value): return Int(exactly: value)
        case .double(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
            return Int(value)
        default: return nil
        }
    }

    /// The boolean, or nil when this is not a boolean.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// True for JSON `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Member lookup on objects; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        get { objectValue?[key] }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// A number from a Double, stored as an integer when it is integral.
    public static func number(_ value: Double) -> JSONValue {
        if value.isFinite, value.rounded() == value, abs(value) < 9.0e15 {
            return .int(Int64(value))
        }
        return .double(value)
    }

    /// Lenient numeric reading: numbers, and strings that hold a number (SABnzbd sends `"12.5"`).
    public var lenientDouble: Double? {
        switch self {
        case .int, .double: return doubleValue
        case .string(let text):
            let trimmed = text.trimmingWhitespace()
            guard !trimmed.isEmpty else { return nil }
            return Double(trimmed)
        case .bool(let flag): return flag ? 1 : 0
        default: return nil
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members: [String: JSONValue] = [:]
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text with sorted keys.
    public var description: String { JSONWriter.string(self) }
}

extension String {
    /// The string without leading and trailing whitespace and line breaks (no Foundation needed).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace {
            end = scalars.index(before: end)
        }
        return String(scalars[start..<end])
    }

    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace, which
    /// a header value keeps inside).
    public func trimmingHTTPWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
