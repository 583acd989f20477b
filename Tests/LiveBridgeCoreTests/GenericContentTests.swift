import LiveBridgeCore
import Testing

@Suite("Generic-template content")
struct GenericContentTests {
    @Test("tri-state fields: absent is omitted, null is written as null")
    func triState() {
        var content = GenericContent()
        content.progress = .value(1)
        content.state = .value("Complete")
        content.endDate = .null
        content.liveProgress = .null
        content.remainingTime = .null
        #expect(
            JSONWriter.string(content.json)
                == #"{"end_date":null,"live_progress":null,"progress":1,"remaining_time":null,"state":"Complete"}"#)
    }

    @Test("every field of the spec round-trips through JSON")
    func roundTripsEveryField() throws {
        let text = """
            {"template":"generic","progress":0.4,"state":"Downloading","icon":"mdi:download","remaining_time":1200,
             "subtitle":"ubuntu.iso","accent_color":"cyan","background_color":"#101010","text_color":"white",
             "end_date":1750003600,"live_progress":true,"image_url":"https://example.com/a.png","image_shape":"circle",
             "image_thumbhash":"abc=","url":"https://x.example","secondary_url":"app://y",
             "tap_action":{"url":"homeassistant://navigate/x"},
             "url_action":{"url":"https://sab.example/","foreground":true,"title":"Open","icon":"safari"},
             "secondary_url_action":{"url":"https://h.example/hook","method":"POST","headers":{"X-T":"1"},"body":"{}","title":"Pause"}}
            """
        let json = try JSONParser.parse(text)
        let content = try GenericContent(json: json)
        #expect(content.json == json)
        #expect(content.urlAction.value?.title == "Open")
        #expect(content.secondaryURLAction.value?.headers == ["X-T": "1"])
    }

    @Test("unknown keys and wrong types are reported with their path")
    func decodingErrors() {
        #expect(throws: ContentDecodingError(path: "content.progres", expected: "a generic-template field")) {
            try GenericContent(json: ["progres": 0.5])
        }
        #expect(throws: ContentDecodingError(path: "content.progress", expected: "a number")) {
            try GenericContent(json: ["progress": "half"])
        }
        #expect(throws: ContentDecodingError(path: "content.url_action.title", expected: "a string")) {
            try GenericContent(json: ["url_action": ["url": "https://a.example", "title": 3]])
        }
    }

    static let invalidCases: [(String, String)] = [
        (#"{"template":"generic","progress":1.4}"#, "content.progress: 1.4 is outside 0…1"),
        (#"{"template":"generic","progress":-0.1}"#, "content.progress: -0.1 is outside 0…1"),
        (#"{"template":"generic"}"#, "content.progress: required by the generic template"),
        (#"{"progress":0.5}"#, "content.template: required"),
        (#"{"template":"steps","progress":0.5}"#, "content.template: \"steps\" is not supported"),
        (
            #"{"template":"generic","progress":0.5,"accent_color":"00BCD4"}"#,
            "content.accent_color: \"00BCD4\" is not a colour"
        ),
        (#"{"template":"generic","progress":0.5,"text_color":"Red"}"#, "content.text_color: \"Red\" is not a colour"),
        (#"{"template":"generic","progress":0.5,"live_progress":true}"#, "content.live_progress: true needs end_date"),
        (#"{"template":"generic","progress":0.5,"remaining_time":-3}"#, "content.remaining_time: -3 is negative"),
        (
            #"{"template":"generic","progress":0.5,"image_url":"http://x.example/a.png"}"#,
            "content.image_url: must be an https URL"
        ),
        (#"{"template":"generic","progress":0.5,"duration":"1d"}"#, "content.duration: use seconds or a string"),
        (#"{"template":"generic","progress":0.5,"url_action":{"title":"x"}}"#, "content.url_action.url: required"),
        (
            #"{"template":"generic","progress":0.5,"tap_action":{"url":"javascript:alert(1)"}}"#,
            "content.tap_action.url: the javascript: scheme is not allowed"
        ),
        (
            #"{"template":"generic","progress":0.5,"tap_action":{"url":"https://a.example","title":"T"}}"#,
            "content.tap_action.title: only buttons have a title"
        ),
        (
            #"{"template":"generic","progress":0.5,"url_action":{"url":"https://a.example","method":"FETCH"}}"#,
            "content.url_action.method: \"FETCH\" is not GET"
        ),
    ]

    @Test("validation explains each rejected document", arguments: invalidCases)
    func validation(document: String, message: String) throws {
        let content = try GenericContent(json: try JSONParser.parse(document))
        #expect {
            try content.validate(asDocument: true)
        } throws: { error in
            (error as? ContentValidationError)?.problems.contains { $0.hasPrefix(message) } ?? false
        }
    }

    @Test("text length limits are enforced")
    func textLimits() throws {
        var content = GenericContent(progress: 0.5, state: String(repeating: "x", count: 257))
        content.template = .value("generic")
        #expect(throws: ContentValidationError(problems: ["content.state: 257 characters, at most 256 allowed"])) {
            try content.validate(asDocument: true)
        }
        content.state = .value(String(repeating: "x", count: 256))
        try content.validate(asDocument: true)
    }

    @Test("a patch may clear end_date and live_progress but not progress")
    func patchValidation() throws {
        var patch = GenericContent()
        patch.endDate = .null
        patch.liveProgress = .null
        try patch.validate(asDocument: false)
        patch.progress = .null
        #expect(throws: ContentValidationError.self) { try patch.validate(asDocument: false) }
    }

    @Test(
        "slugs follow the service's pattern",
        arguments: [
            ("sabnzbd-home", true), ("a", true), ("A_b-9", true), (String(repeating: "a", count: 128), true),
            ("", false), ("-x", false), ("_x", false), ("a b", false), ("ü", false),
            (String(repeating: "a", count: 129), false),
            ("timer.washer", false),
        ])
    func slugs(slug: String, valid: Bool) {
        #expect(ContentRules.isValidSlug(slug) == valid)
    }

    @Test("slugify makes any entity id a valid slug")
    func slugify() {
        #expect(ContentRules.slugify("timer.washer") == "timer-washer")
        #expect(ContentRules.isValidSlug(ContentRules.slugify("__ sensor.ünïcode __")))
    }

    @Test("colours: names and hex convert to #RRGGBB")
    func colours() {
        #expect(ContentRules.hexColor("cyan") == "#32ADE6")
        #expect(ContentRules.hexColor("#00bcd4") == "#00BCD4")
        #expect(ContentRules.hexColor("00BCD4FF") == "#00BCD4")
        #expect(ContentRules.hexColor("nope") == nil)
    }

    @Test("duration strings", arguments: [("90", 90), ("90s", 90), ("10m", 600), ("1h30m", 5400), ("1h", 3600)])
    func durations(text: String, seconds: Int) {
        #expect(DurationText.seconds(text) == seconds)
    }

    @Test(
        "duration strings past what an integer holds, or not in the form, are nil (never a trap)",
        arguments: [
            "9999999999999999h", "2562047788015216h", "9223372036854775807s1s", "99999999999999999999", "1x", "h",
        ])
    func durationsOutOfRange(text: String) {
        #expect(DurationText.seconds(text) == nil)
    }
}
