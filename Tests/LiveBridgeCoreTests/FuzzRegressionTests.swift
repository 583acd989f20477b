import Foundation
import LiveBridgeCore
import Testing

/// Inputs the libFuzzer harnesses (`fuzz/`) found crashing, replayed exactly as found: each must
/// now end in a clean typed error (or, for property harnesses, satisfy the law that broke).
@Suite("Fuzz regressions (Core)")
struct FuzzRegressionTests {
    /// The bytes of a crash artifact, stored as base64 so binary inputs survive in source.
    static func artifact(_ base64: String) throws -> [UInt8] {
        try [UInt8](#require(Data(base64Encoded: base64)))
    }

    // MARK: - JSON5 (harnesses `json5` and `config`)

    @Test("json5 crash-552f4927: a high surrogate escape followed by a non-low one is a syntax error, not a trap")
    func json5HighSurrogateThenHighSurrogate() throws {
        let input = try Self.artifact("WyJcdUQ4MDBcdUQ4MDhd")  // ["\uD800\uD808]
        #expect(throws: JSON5ParseError.self) { try JSON5Parser.parse(String(decoding: input, as: UTF8.self)) }
        do {
            _ = try JSON5Parser.parse(String(decoding: input, as: UTF8.self))
        } catch {
            #expect(error.message.contains("low surrogate"))
            #expect(error.line == 1)
        }
    }

    @Test("json5 crash-a76e20b4: a high surrogate followed by \\uCE00 is a syntax error")
    func json5HighSurrogateThenBMP() throws {
        let input = try Self.artifact("WyJcdUQ4M0RcdUNFMDAgYW5kIGxpbmUgXApjb25oZXg6IAphZDo0DTA=")
        #expect(throws: JSON5ParseError.self) { try JSON5Parser.parse(String(decoding: input, as: UTF8.self)) }
    }

    @Test("config crash-0db4758d: the config loader reports the bad surrogate as a syntax error")
    func configBadSurrogate() throws {
        let input = try Self.artifact(
            "IlzM/wAAMjIuXFx1ZTk5MjRczC5cdWQ5MjFcdWQ5MjFcdWUyOTE5cjI0XMz/AAAyLlx1ZDkyMVx1ZTk5MjRczC5cdWQ5MjFcdWU5OTJy"
                + "MTI0XMz/AAAyLlx1ZDkyMVx1ZTk5MjRczP8AOQA=")
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(text: String(decoding: input, as: UTF8.self), environment: [:])
        }
        do {
            _ = try ConfigLoader.parse(text: String(decoding: input, as: UTF8.self), environment: [:])
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.description.contains("syntax error"))
        }
    }

    @Test("a valid surrogate pair still decodes to one scalar")
    func json5SurrogatePair() throws {
        #expect(try JSON5Parser.parse(#"["\uD83D\uDE00"]"#) == ["😀"])
    }

    // MARK: - Merge patch (harness `merge-patch`)

    @Test("merge-patch crash-d06af3cc: compose(null, {a: null}) has no single-patch equivalent")
    func composeAfterWholeDocumentReplacement() throws {
        // The harness reads [a, b, p, q]; composing p then q must equal applying both.
        let input = Array(#"[{"a":{"b":1}},{"a":[1,{"c":null}]},null,{"a":null}]"#.utf8)
        let values = try #require(JSONParser.parse(input).arrayValue)
        let (a, b, p, q) = (values[0], values[1], values[2], values[3])
        #expect(MergePatch.compose(p, q) == nil)
        for document in [a, b, [:], .null] as [JSONValue] {
            let sequential = MergePatch.apply(q, to: MergePatch.apply(p, to: document))
            #expect(sequential == [:])
            if let single = MergePatch.compose(p, q) {
                #expect(MergePatch.apply(single, to: document) == sequential)
            }
        }
    }

    @Test("merge-patch crash-0c03af46: p = null, q = {a: null}, d = {a: null} (decoded from the bytes)")
    func composeAfterReplacementKeepsNoStaleMember() {
        let (p, q, d): (JSONValue, JSONValue, JSONValue) = (.null, ["a": .null], ["a": .null])
        let sequential = MergePatch.apply(q, to: MergePatch.apply(p, to: d))
        #expect(sequential == [:])
        #expect(MergePatch.compose(p, q) == nil)
    }

    @Test("compose of a non-object replacement with a non-object still composes to the second")
    func composeScalarThenScalar() {
        #expect(MergePatch.compose(.null, "x") == "x")
        #expect(MergePatch.compose(5, ["a": 1]) == nil)
    }
}

/// Crashes the `activity-command` harness found on the way from a command to the wire.
@Suite("Fuzz regressions (activity commands)")
struct ActivityCommandFuzzRegressionTests {
    let now: Double = 1_781_517_600

    /// The command's problems, or nil when it was accepted.
    func problems(_ body: String) throws -> [String]? {
        let json = try JSONParser.parse(body)
        do {
            _ = try ActivityCommand.update(from: json, slug: nil, now: now)
            return nil
        } catch {
            return error.problems
        }
    }

    @Test(
        "activity-command crash: an end that is not a number or lies past 9999 is a typed validation error",
        arguments: [
            #"{"slug":"x","end_date":1e300}"#, #"{"slug":"x","end_date":-1e300}"#,
            #"{"slug":"x","remaining":1e300}"#, #"{"slug":"x","remaining":"1e300:00"}"#,
            #"{"slug":"x","end_date":"1e300"}"#, #"{"slug":"x","remaining":"nan"}"#, #"{"slug":"x","end_date":"inf"}"#,
        ])
    func implausibleEnd(body: String) throws {
        let problems = try #require(try problems(body))
        #expect(problems.count == 1)
        #expect(problems.allSatisfy { $0.hasPrefix("end_date:") || $0.hasPrefix("remaining:") }, "\(problems)")
    }

    @Test(
        "ordinary ends are still accepted",
        arguments: [
            #"{"slug":"x","end_date":1781521200}"#, #"{"slug":"x","end_date":1781521200000}"#,
            #"{"slug":"x","end_date":"2026-07-01T00:00:00Z"}"#, #"{"slug":"x","remaining":"12m"}"#,
            #"{"slug":"x","remaining":"1:02:03"}"#, #"{"slug":"x","remaining":-5}"#,
            #"{"slug":"x","end_date":"9999-12-31T23:59:59Z"}"#,
        ])
    func ordinaryEnd(body: String) throws {
        #expect(try problems(body) == nil)
    }
}

/// The tracker behind the `activity-command` crash: an adapter can hand it any ETA.
@Suite("Fuzz regressions (tracker)")
struct TrackerFuzzRegressionTests {
    @Test(
        "activity-command crash: an ETA end_date cannot carry counts as unknown instead of trapping in Int64(_:)",
        arguments: [
            ActivityETA.finishesAt(1e300), .finishesAt(-1e300), .remaining(1e300), .finishesAt(.nan),
            .finishesAt(.infinity), .remaining(.infinity),
        ])
    func unrepresentableETA(eta: ActivityETA) {
        let now: Double = 1_781_517_600
        for model in [DisplayModel.interpolating, .static] {
            var tracker = ActivityTracker(slug: "x", name: "X", model: model, settings: EconomySettings())
            let update = ActivityUpdate(slug: "x", name: "X", phase: .active, progress: 0.5, eta: eta, observedAt: now)
            var frames = tracker.handle(update, at: now)
            frames += tracker.tick(at: now + 7200)
            #expect(!frames.isEmpty)
            for frame in frames {
                #expect(frame.content["end_date"] == nil, "\(model): \(frame.content)")
                #expect(frame.content["remaining_time"] == nil, "\(model): \(frame.content)")
            }
        }
    }
}

/// The `logfmt` harness: text from outside must never forge a second log line.
@Suite("Fuzz regressions (log lines)")
struct LogLineFuzzRegressionTests {
    /// The logfmt line for `message` and a `detail` value.
    func line(_ message: String, detail: String) -> String {
        let handler = InMemoryLogHandler()
        let redactor = Redactor()
        redactor.register("S3cr3tCanary42")
        let logger = Logger(label: "fuzz", level: .trace, handler: handler, redactor: redactor, now: { 1_781_517_600 })
        logger.error(message, ["detail": detail])
        return handler.lines.joined(separator: "\n")
    }

    func isOneLine(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }
    }

    @Test("logfmt crash-6f2397a3: a bare CR inside a quoted message is escaped")
    func bareCarriageReturn() throws {
        let input = try FuzzRegressionTests.artifact(
            "bXVsdGmkpKSkpKQgUzM7MDQgIlNlcnZpYy9zYWNnZSBpdXR3dGhvcml6YSBTM2NyVjN0Q2ENYXJ5NDIKbmV4dD1saW5l")
        let parts = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let text = line(
            String(decoding: parts[0], as: UTF8.self),
            detail: parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "")
        #expect(isOneLine(text), "\(text.debugDescription)")
        #expect(text.contains(#"Ca\rary42\nnext=line"#))
    }

    @Test("a CRLF pair (one Swift Character) and a bare CR are escaped, even without spaces around them")
    func crlfWithoutSpaces() {
        let text = line("a\r\nlevel=info\rmsg=forged", detail: "x\r\ny")
        #expect(isOneLine(text), "\(text.debugDescription)")
        #expect(text.hasSuffix(#"msg="a\r\nlevel=info\rmsg=forged" detail="x\r\ny""#))
    }
}
