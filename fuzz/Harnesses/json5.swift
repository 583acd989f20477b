// Harness `json5`: the JSON5 parser that reads `livebridge.json5` (`JSON5Parser`).
//
// Any text must give a value or a typed `JSON5ParseError` with a line and column inside the text.
// JSON5 is a superset of JSON, so this is also a differential test against the strict parser:
// text the strict parser accepts must mean the same under JSON5 (numbers compared by value:
// JSON5 stores an integral `1.0` as an integer), except that JSON5 config rejects duplicate keys.

import LiveBridgeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON5Parser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    // A config file is read with String(decoding:), so invalid UTF-8 arrives repaired; do the same.
    let text = String(decoding: input.bytes, as: UTF8.self)
    let lineCount = text.unicodeScalars.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    let value: JSONValue?
    var failure: JSON5ParseError?
    do {
        value = try JSON5Parser.parse(text)
    } catch {
        fuzzCheck((1...lineCount).contains(error.line), "error line \(error.line) outside 1…\(lineCount)")
        fuzzCheck(error.column >= 1, "error column \(error.column)")
        fuzzCheck(!error.message.isEmpty, "error without a message")
        value = nil
        failure = error
    }
    if let value {
        // The writer's output is plain JSON, which JSON5 must read back to the same text.
        let written = JSONWriter.string(value)
        do {
            let again = try JSON5Parser.parse(written)
            fuzzCheck(JSONWriter.string(again) == written, "JSON5 round trip changed \(written)")
        } catch {
            fuzzFailure("JSON5 cannot read the writer's output \(written): \(error)")
        }
    }
    // Differential: the strict parser's accepted inputs (valid UTF-8 only, as it requires).
    guard String(validating: input.bytes, as: UTF8.self) != nil,
        let strict = try? JSONParser.parse(input.bytes)
    else { return 0 }
    if let value {
        fuzzCheck(
            sameDocument(value, strict),
            "JSON5 reads \(JSONWriter.string(value)) where JSON reads \(JSONWriter.string(strict))")
    } else if let failure {
        fuzzCheck(failure.message.hasPrefix("duplicate key"), "JSON5 rejects valid JSON: \(failure)")
    }
    return 0
}

/// Equal documents, numbers compared by value (`.int(1)` and `.double(1.0)` are the same number).
private func sameDocument(_ left: JSONValue, _ right: JSONValue) -> Bool {
    switch (left, right) {
    case (.int, .double), (.double, .int), (.double, .double):
        return left.doubleValue == right.doubleValue
    case (.array(let first), .array(let second)):
        return first.count == second.count && zip(first, second).allSatisfy { sameDocument($0, $1) }
    case (.object(let first), .object(let second)):
        return first.count == second.count
            && first.allSatisfy { key, value in second[key].map { sameDocument(value, $0) } ?? false }
    default:
        return left == right
    }
}
