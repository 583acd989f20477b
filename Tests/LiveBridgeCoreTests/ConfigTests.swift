import Foundation
import LiveBridgeCore
import Testing

@Suite("Config loading")
struct ConfigTests {
    let environment = ["PUSHWARD_API_KEY": "hlk_test", "HOME": "/home/u"]

    func problems(_ text: String) -> [String] {
        do {
            let config = try ConfigLoader.parse(text: text, environment: environment)
            for component in config.sinks + config.sources { component.reader.finish() }
            return config.problems.all.map(\.description)
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test("the documented example parses with JSON5 syntax and env interpolation")
    func example() throws {
        let config = try ConfigLoader.parse(
            text: """
                // LiveBridge
                {
                  dataDir: "/var/lib/livebridge",
                  server: { listen: "127.0.0.1:8790" },           // health, metrics, webhooks
                  economy: { maxDisplayError: 0.03, monthlyBudget: 250, startWait: "5s", estimateWait: "90s",
                            coalesceWindow: "0.5s" },
                  sinks: [
                    { name: "phone", type: "pushward", url: 'https://api.pushward.app', apiKey: "${PUSHWARD_API_KEY}" },
                  ],
                  sources: [],
                }
                """, environment: environment)
        #expect(config.dataDir == "/var/lib/livebridge")
        #expect(config.listen == "127.0.0.1:8790")
        #expect(config.economy.monthlyBudget == 250)
        #expect(config.economy.effectiveEndFrames == 1)
        #expect(config.economy.startWait == 5)
        #expect(config.economy.estimateWait == 90)
        #expect(config.economy.coalesceWindow == 0.5)
        #expect(config.sinks.first?.reader.string("apiKey") == "hlk_test")
        #expect(config.problems.all.isEmpty)
    }

    @Test("Foundation's JSON5 decoder accepts what this parser accepts")
    func agreesWithFoundation() throws {
        let text = "{a: 1, 'b': [0x10, .5, +3, 'x',], /* c */ c: {d: null}}"
        let ours = try JSON5Parser.parse(text)
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let theirs = try decoder.decode(JSONValue.self, from: Data(text.utf8))
        #expect(ours == theirs)
    }

    /// The exact messages users see for broken configs.
    static let broken: [(String, String)] = [
        (
            "{ sinks: [ { name: \"phone\", type: \"pushward\" ",
            "syntax error at line 1, column 12: unterminated object (opened here)"
        ),
        ("{ sinks: [], dataDir: /x }", "syntax error at line 1, column 23: unexpected character '/'"),
        ("{ sinks: [], \n  dataDri: \"/x\" }", "dataDri: unknown key; did you mean \"dataDir\"?"),
        ("{ }", "sinks: required: at least one sink (for example type \"pushward\")"),
        ("{ sinks: [ { type: \"pushward\" } ] }", "sinks[0].name: required"),
        (
            "{ sinks: [ { name: \"a b\", type: \"x\" } ] }",
            "sinks[0].name: \"a b\" may use letters, digits, '-' and '_' only"
        ),
        ("{ sinks: [], economy: { maxDisplayError: 2 } }", "economy.maxDisplayError: 2 is outside 0.001…0.5"),
        ("{ sinks: [], economy: { startWait: \"1h\" } }", "economy.startWait: 3600 s is outside 0…120 s"),
        ("{ sinks: [], economy: { estimateWait: \"11m\" } }", "economy.estimateWait: 660 s is outside 0…600 s"),
        ("{ sinks: [], economy: { coalesceWindow: \"1m\" } }", "economy.coalesceWindow: 60 s is outside 0…10 s"),
        (
            "{ sinks: [], economy: { endDisplay: \"soon\" } }",
            "economy.endDisplay: expected a duration such as \"15s\", \"10m\" or \"1h30m\" (or a number of seconds)"
        ),
        (
            "{ sinks: [], economy: { monthlyBugdet: 250 } }",
            "economy.monthlyBugdet: unknown key; did you mean \"monthlyBudget\"?"
        ),
        (
            "{ sinks: [], server: { listen: \"8790\" } }",
            "server.listen: \"8790\" is not host:port (for example \"127.0.0.1:8790\")"
        ),
        (
            "{ sinks: [ { name: \"p\", type: \"x\", apiKey: \"${MISSING_KEY}\" } ] }",
            "sinks[0].apiKey: environment variable MISSING_KEY is not set (referenced as ${MISSING_KEY})"
        ),
        (
            "{ sinks: [ { name: \"p\", type: \"x\" }, { name: \"p\", type: \"y\" } ] }",
            "sinks[1].name: \"p\" is already used by sinks[0]; names must be unique among sinks"
        ),
        (
            "{ sinks: [], logLevel: \"loud\" }",
            "logLevel: \"loud\" is not one of trace, debug, info, notice, warning, error"
        ),
        ("[1, 2]", "expected an object { … }"),
        ("{ a: 1, a: 2, sinks: [] }", "syntax error at line 1, column 9: duplicate key \"a\""),
    ]

    @Test("broken configs get exact, actionable messages", arguments: broken)
    func brokenConfigs(text: String, message: String) {
        #expect(problems(text).contains(message), "got \(problems(text))")
    }

    @Test("${VAR:-default} and $${ escapes")
    func interpolation() throws {
        let config = try ConfigLoader.parse(
            text: #"{ sinks: [ { name: "p", type: "x", url: "${HOST:-http://localhost}/$${literal}" } ] }"#,
            environment: [:])
        #expect(config.sinks[0].reader.string("url") == "http://localhost/${literal}")
    }

    @Test("a config file readable by other users produces a warning")
    func permissionWarning() throws {
        let path = NSTemporaryDirectory() + "livebridge-config-\(UUID().uuidString).json5"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{ sinks: [] }".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try ConfigLoader.load(path: path, environment: [:]).warnings.first?.contains("chmod 600") == true)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(try ConfigLoader.load(path: path, environment: [:]).warnings.isEmpty)
    }

    @Test("a missing file says so")
    func missingFile() {
        #expect(
            throws: ConfigError(problems: [
                ConfigProblem(path: "", message: "config file /nonexistent/x.json5 does not exist")
            ])
        ) {
            try ConfigLoader.load(path: "/nonexistent/x.json5", environment: [:])
        }
    }

    @Test(
        "durations in config",
        arguments: [("15s", 15.0), ("10m", 600.0), ("1h30m", 5400.0), ("250ms", 0.25), ("90", 90.0)])
    func durations(text: String, seconds: Double) {
        #expect(DurationText.parse(text) == seconds)
    }
}
