import LiveBridgeCore
import Testing

@Suite("JSON parser and writer")
struct JSONTests {
    @Test("parses every value kind")
    func parsesValues() throws {
        let value = try JSONParser.parse(#"{"a":[1,-2.5,true,false,null,"x\"y\u00e9\ud83d\ude00"],"b":{}}"#)
        #expect(value["a"]?.arrayValue?.count == 6)
        #expect(value["a"]?.arrayValue?[0] == .int(1))
        #expect(value["a"]?.arrayValue?[1] == .double(-2.5))
        #expect(value["a"]?.arrayValue?[5] == .string("x\"yé😀"))
        #expect(value["b"] == .object([:]))
    }

    @Test(
        "rejects malformed documents with a reason",
        arguments: [
            ("", "empty document"), ("{", "unterminated object"), ("[1,]", "unexpected character"),
            ("{\"a\" 1}", "expected ':'"), ("01", "unexpected data"), ("\"\\x\"", "invalid escape"),
            ("<html><body>502</body></html>", "HTML"), ("[1] x", "unexpected data"), ("1e", "exponent"),
            ("\"\u{01}\"", "control character"), ("\"\\ud800\"", "surrogate"),
        ])
    func rejectsMalformed(input: String, reason: String) {
        #expect {
            _ = try JSONParser.parse(input)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.description.contains(reason)
        }
    }

    @Test("rejects invalid UTF-8 inside strings")
    func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("limits nesting depth instead of overflowing the stack")
    func limitsDepth() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test("writes integers without a fraction and keys sorted")
    func writesDeterministically() {
        let value: JSONValue = ["end_date": .number(1_750_003_600), "progress": .number(0.4), "a": [.null, true]]
        #expect(JSONWriter.string(value) == #"{"a":[null,true],"end_date":1750003600,"progress":0.4}"#)
    }

    @Test(
        "round-trips through the writer",
        arguments: [
            #"{"k":"line\nbreak\ttab \"quote\" \\ slash"}"#, #"[0,-1,1.5,1e-7,"é",{"x":null}]"#,
        ])
    func roundTrips(text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
    }
}
