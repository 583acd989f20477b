import LiveBridgeCore
import Testing

enum RandomJSON {
    static let keys = ["a", "b", "c", "d", "e"]

    /// A random document (no nulls inside objects: stored documents never hold them).
    static func document(_ rng: inout SeededRandom, depth: Int = 0) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for key in keys where Bool.random(using: &rng) {
            members[key] = value(&rng, depth: depth + 1, allowNull: false)
        }
        return .object(members)
    }

    /// A random patch: may delete (null), replace, or merge objects.
    static func patch(_ rng: inout SeededRandom, depth: Int = 0) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for key in keys where Int.random(in: 0..<3, using: &rng) == 0 {
            members[key] =
                depth < 2 && Bool.random(using: &rng)
                ? patch(&rng, depth: depth + 1) : value(&rng, depth: depth + 1, allowNull: true)
        }
        return .object(members)
    }

    static func value(_ rng: inout SeededRandom, depth: Int, allowNull: Bool) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &rng) {
        case 0: return allowNull ? .null : .int(0)
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: -5...5, using: &rng))
        case 3: return .string(["x", "y", ""].randomElement(using: &rng)!)
        case 4: return .double(Double(Int.random(in: 0...100, using: &rng)) / 7)
        case 5: return .array([.int(1), .string("z")])
        default: return document(&rng, depth: depth)
        }
    }
}

@Suite("RFC 7396 merge patch")
struct MergePatchTests {
    /// RFC 7396 Appendix A.
    @Test(
        "applies the RFC's examples",
        arguments: [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"a":"foo"}"#, "null", "null"),
            (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"a":1,"e":null}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ])
    func rfcExamples(target: String, patch: String, result: String) throws {
        let applied = MergePatch.apply(try JSONParser.parse(patch), to: try JSONParser.parse(target))
        #expect(applied == (try JSONParser.parse(result)))
    }

    @Test("apply(diff(a, b), a) == b on random documents")
    func diffProperty() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<3000 {
            let a = RandomJSON.document(&rng)
            let b = RandomJSON.document(&rng)
            let patch = MergePatch.diff(from: a, to: b)
            #expect(MergePatch.apply(patch, to: a) == b, "a=\(a) b=\(b) patch=\(patch)")
        }
    }

    @Test("diff of equal documents is empty")
    func diffOfEqualIsEmpty() {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<200 {
            let a = RandomJSON.document(&rng)
            #expect(MergePatch.diff(from: a, to: a) == .object([:]))
        }
    }

    @Test("apply(compose(p, q), d) == apply(q, apply(p, d)) whenever compose exists")
    func composeProperty() {
        var rng = SeededRandom(seed: 42)
        var composed = 0
        for _ in 0..<5000 {
            let d = RandomJSON.document(&rng)
            let p = RandomJSON.patch(&rng)
            let q = RandomJSON.patch(&rng)
            let sequential = MergePatch.apply(q, to: MergePatch.apply(p, to: d))
            guard let single = MergePatch.compose(p, q) else {
                // Only inexpressible when p clears or replaces a member that q merges an object into.
                continue
            }
            composed += 1
            #expect(MergePatch.apply(single, to: d) == sequential, "d=\(d) p=\(p) q=\(q) composed=\(single)")
        }
        #expect(composed > 4000)
    }

    @Test("compose refuses the one case RFC 7396 cannot express")
    func composeRefusesReplaceThenMerge() {
        let p: JSONValue = ["tap_action": .null]
        let q: JSONValue = ["tap_action": ["url": "https://example.com"]]
        #expect(MergePatch.compose(p, q) == nil)
    }
}
