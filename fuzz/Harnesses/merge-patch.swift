// Harness `merge-patch`: RFC 7396 merge patch (`MergePatch.apply/diff/compose`) as a property
// fuzzer. The tracker sends `diff(stored, desired)` and delivery folds waiting patches together
// with `compose`, so these laws are what keeps a phone's card equal to the tracker's model.
//
// Documents come from the input in one of two ways: a JSON array of four values `[a, b, p, q]`
// (readable seeds), or, when the input is not such an array, values decoded straight from the
// bytes with a small key alphabet so members collide and nest often. Laws checked, with
// `stored(x)` = `stripNulls(x)` (what `apply` leaves behind: no null members):
//   1. apply(diff(a, stored(b)), a) == stored(b)         (the diff reproduces the target)
//   2. diff(stored(a), stored(a)) == {} for objects       (no change, empty patch)
//   3. compose(p, q) == c  ⇒  apply(c, d) == apply(q, apply(p, d)) for d in {a, b, {}, null}
//   4. apply(p, apply(p, d)) == apply(p, d)               (a patch is idempotent)

import LiveBridgeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMergePatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let values: [JSONValue]
    if let parsed = try? JSONParser.parse(input.bytes), case .array(let elements) = parsed, elements.count == 4 {
        values = elements
    } else {
        var generator = ValueGenerator(input: input)
        values = (0..<4).map { _ in generator.value(depth: 0) }
    }
    let (a, b, p, q) = (values[0], values[1], values[2], values[3])

    let target = MergePatch.stripNulls(b)
    let patch = MergePatch.diff(from: a, to: target)
    let reached = MergePatch.apply(patch, to: a)
    fuzzCheck(reached == target, "apply(diff(a, b), a) != b: a=\(a) b=\(target) diff=\(patch) gave \(reached)")

    let stored = MergePatch.stripNulls(a)
    if case .object = stored {
        let empty = MergePatch.diff(from: stored, to: stored)
        fuzzCheck(empty == .object([:]), "diff(a, a) != {}: a=\(stored) diff=\(empty)")
    }

    if let composed = MergePatch.compose(p, q) {
        for document in [a, b, JSONValue.object([:]), JSONValue.null] {
            let sequential = MergePatch.apply(q, to: MergePatch.apply(p, to: document))
            let single = MergePatch.apply(composed, to: document)
            fuzzCheck(
                single == sequential,
                "compose broke: p=\(p) q=\(q) compose=\(composed) d=\(document): \(single) != \(sequential)")
        }
    }

    let once = MergePatch.apply(p, to: a)
    fuzzCheck(MergePatch.apply(p, to: once) == once, "apply is not idempotent: p=\(p) a=\(a)")
    return 0
}

/// Decodes JSON values from raw bytes: one byte picks the kind, the following bytes its content.
private struct ValueGenerator {
    var input: FuzzInput
    private static let keys = ["a", "b", "c", "state", "progress", "tap_action"]

    mutating func value(depth: Int) -> JSONValue {
        let kind = input.byte() % (depth >= 4 ? 5 : 7)
        switch kind {
        case 0: return .null
        case 1: return .bool(input.bool())
        case 2: return .int(Int64(input.int(in: -2...2)))
        case 3: return .double(Double(input.int(in: 0...8)) / 4)
        case 4: return .string(["", "x", "y", "Done"][input.int(in: 0...3)])
        case 5: return .array((0..<input.int(in: 0...2)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<input.int(in: 0...3) {
                members[Self.keys[input.int(in: 0...(Self.keys.count - 1))]] = value(depth: depth + 1)
            }
            return .object(members)
        }
    }
}
