// Harness `logfmt`: how text from outside (server messages, config values, error descriptions)
// becomes a log line (`Logger` → `Redactor` → `LogRecord.logfmt` in LiveBridgeCore).
//
// The input is split at its first NUL byte into a message and a metadata value. Invariants: the
// line is one line (no CR or LF: a value must not forge further log lines), and a registered secret
// that appears in the message or value never appears in the line.

import LiveBridgeCore
import Synchronization

private let canary = "S3cr3tCanary42"

/// Keeps the last line logged.
private final class LastLine: LogHandler {
    let line = Mutex("")
    func log(_ record: LogRecord) { line.withLock { $0 = record.logfmt } }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogfmt(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let parts = input.bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let message = String(decoding: parts[0], as: UTF8.self)
    let value = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
    let redactor = Redactor()
    redactor.register(canary)
    let handler = LastLine()
    let logger = Logger(label: "fuzz", level: .trace, handler: handler, redactor: redactor, now: { 1_781_517_600 })
    logger.error(message, ["detail": value])
    let line = handler.line.withLock { $0 }
    fuzzTrace(line)
    // Bytes, not Characters: a message opening with a combining mark joins the "=" grapheme.
    let prefix = "ts=2026-06-15T10:00:00.000Z level=error logger=fuzz msg="
    fuzzCheck(line.utf8.starts(with: prefix.utf8), "line starts \(line)")
    fuzzCheck(
        !line.unicodeScalars.contains { $0 == "\n" || $0 == "\r" },
        "a log line with a line break: \(line.debugDescription)")
    fuzzCheck(!line.contains(canary), "the secret leaked: \(line.debugDescription)")
    return 0
}
