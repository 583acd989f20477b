/// An ordered list of HTTP header fields with case-insensitive lookup by name.
///
/// Order and duplicates are kept because both matter on the wire (`Set-Cookie`, repeated
/// `Via`); lookup ignores case because HTTP field names are case-insensitive.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field as it appears on the wire.
    public struct Field: Sendable, Equatable {
        /// The field name as written by the sender.
        public var name: String
        /// The field value without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field in wire order.
    public private(set) var fields: [Field]

    /// An empty list.
    public init() {
        fields = []
    }

    /// A list holding `pairs` in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// A list from a literal; order is the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Number of fields (duplicates counted).
    public var count: Int { fields.count }

    /// True when there is no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field, or appends it when absent.
    ///
    /// The replacement takes the position of the first existing field so wire order is stable.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
            fields[index] = Field(name: name, value: value)
            var next = index + 1
            while next < fields.count {
                if Self.namesMatch(fields[next].name, name) {
                    fields.remove(at: next)
                } else {
                    next += 1
                }
            }
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Removes every field named `name` (any case).
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Appends ` text` to the last field's value (obsolete line folding); no-op when empty.
    mutating func extendLastValue(with text: String) {
        guard !fields.isEmpty else { return }
        fields[fields.count - 1].value += " " + text
    }

    /// True when at least one field is named `name` (any case).
    public func contains(name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// The first value of the field named `name` (any case), or nil.
    public func first(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the fields named `name` (any case), in wire order.
    public subscript(name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Iterates `(name, value)` pairs in wire order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.map { (name: $0.name, value: $0.value) }.makeIterator()
    }

    /// Fields as `Name: value` lines with the values of credential-bearing fields masked.
    ///
    /// Masked: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and any field whose
    /// name mentions a key, token, secret or password — so a header dump can never leak them.
    public var description: String {
        fields.map { "\($0.name): \(Self.isSensitive($0.name) ? "[redacted]" : $0.value)" }.joined(separator: "\n")
    }

    /// True for field names that usually carry credentials.
    static func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        let exact = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
        let parts = ["key", "token", "secret", "password", "auth", "session"]
        return exact.contains(lower) || parts.contains { lower.contains($0) }
    }

    /// ASCII case-insensitive comparison (field names are ASCII tokens).
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        for (a, b) in zip(left, right) where a != b {
            guard Self.lowercased(a) == Self.lowercased(b) else { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
    }
}
