// Harness `json`: the strict RFC 8259 parser every source shares (`JSONParser`).
//
// Any bytes must give a value or a typed `JSONParseError` with an offset inside the input. A value
// must survive a write/parse round trip: writing it, parsing the text and writing again gives the
// same text (numbers may change representation once, `2.0` becoming `2`, then stay fixed).

import LiveBridgeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let value: JSONValue
    do {
        value = try JSONParser.parse(input.bytes)
    } catch {
        fuzzCheck((0...input.bytes.count).contains(error.offset), "error offset \(error.offset) outside the input")
        fuzzCheck(!error.message.isEmpty, "error without a message")
        return 0
    }
    let written = JSONWriter.bytes(value)
    let reparsed: JSONValue
    do {
        reparsed = try JSONParser.parse(written)
    } catch {
        fuzzFailure("writer output does not parse: \(error) in \(String(decoding: written, as: UTF8.self))")
    }
    let rewritten = JSONWriter.bytes(reparsed)
    fuzzCheck(
        rewritten == written,
        "round trip changed the document: \(String(decoding: written, as: UTF8.self)) → "
            + String(decoding: rewritten, as: UTF8.self))
    return 0
}
