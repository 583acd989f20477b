/// A tri-state field of a merge patch: absent (keep), JSON `null` (clear) or a value (set).
///
/// `Optional` alone cannot tell "leave it" from "clear it", and the spec requires clearing
/// `end_date`, `live_progress` and `remaining_time` with an explicit `null` on the final frame.
public enum Field<Value: Sendable & Hashable>: Sendable, Hashable {
    /// Not in the patch: the service keeps what it stores.
    case absent
    /// JSON `null`: the service deletes the stored value.
    case null
    /// A value that replaces (or, for objects, merges into) the stored one.
    case value(Value)

    /// The value when set, else nil.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// True unless the field is absent.
    public var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }

    /// `.value(x)` for a non-nil optional, `.absent` for nil.
    public init(_ optional: Value?) {
        if let optional { self = .value(optional) } else { self = .absent }
    }
}

extension Field: ExpressibleByNilLiteral {
    /// `nil` spells "absent", the default for a field nobody set.
    public init(nilLiteral: ()) { self = .absent }
}
