/// RFC 7396 JSON merge patch: apply, diff and compose.
///
/// The tracker keeps a model of what the service stores and sends `diff(stored, desired)`;
/// delivery folds a newer waiting patch into an older one with `compose`, so a service never sees
/// frames out of order and a backlog never grows.
public enum MergePatch {
    /// Applies `patch` to `document` as RFC 7396 §2 describes.
    public static func apply(_ patch: JSONValue, to document: JSONValue) -> JSONValue {
        guard case .object(let patchMembers) = patch else { return patch }
        var result: [String: JSONValue]
        if case .object(let members) = document { result = members } else { result = [:] }
        for (key, value) in patchMembers {
            if value.isNull {
                result.removeValue(forKey: key)
            } else {
                result[key] = apply(value, to: result[key] ?? .null)
            }
        }
        return .object(result)
    }

    /// The smallest patch that turns `source` into `target` (`apply(diff(a, b), a) == b`).
    ///
    /// When the target is not an object, or contains an object that would have to be replaced
    /// rather than merged, the value is sent whole. A target object member whose value is itself
    /// `null` cannot be expressed by RFC 7396; such members are dropped from the target first.
    public static func diff(from source: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let targetMembers) = target else { return stripNulls(target) }
        guard case .object(let sourceMembers) = source else { return stripNulls(target) }
        var patch: [String: JSONValue] = [:]
        for key in sourceMembers.keys where targetMembers[key]?.isNull ?? true {
            patch[key] = .null
        }
        for (key, targetValue) in targetMembers where !targetValue.isNull {
            guard let sourceValue = sourceMembers[key] else {
                patch[key] = stripNulls(targetValue)
                continue
            }
            if sourceValue == targetValue { continue }
            if case .object = targetValue, case .object = sourceValue {
                let nested = diff(from: sourceValue, to: targetValue)
                if case .object(let nestedMembers) = nested, nestedMembers.isEmpty { continue }
                patch[key] = nested
            } else {
                patch[key] = stripNulls(targetValue)
            }
        }
        return .object(patch)
    }

    /// One patch equal to applying `first` and then `second`, when one exists.
    ///
    /// Returns nil in the one case RFC 7396 cannot express: `first` deletes or replaces an object
    /// (a member, or the whole document) with a non-object and `second` merges into it again as an
    /// object (the combined effect would need "replace this whole object"). Callers then keep both
    /// patches queued.
    public static func compose(_ first: JSONValue, _ second: JSONValue) -> JSONValue? {
        guard case .object(let secondMembers) = second else { return second }
        guard case .object(var result) = first else {
            // `first` replaced the whole document with a non-object and `second` builds a fresh
            // object on it. An object patch merges into the document instead of replacing it, so
            // no single patch has that effect (same as the member case below).
            return nil
        }
        for (key, secondValue) in secondMembers {
            guard let firstValue = result[key] else {
                result[key] = secondValue
                continue
            }
            switch (firstValue, secondValue) {
            case (.object, .object):
                guard let nested = compose(firstValue, secondValue) else { return nil }
                result[key] = nested
            case (_, .object):
                // `first` deleted the member or set a non-object; `second` then builds a fresh
                // object. One patch cannot say "replace the whole object", so there is no
                // single equivalent patch.
                return nil
            default:
                result[key] = secondValue
            }
        }
        return .object(result)
    }

    /// The value with every `null` object member removed, recursively (what `apply` would store).
    public static func stripNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members where !member.isNull { result[key] = stripNulls(member) }
            return .object(result)
        default:
            return value
        }
    }
}
