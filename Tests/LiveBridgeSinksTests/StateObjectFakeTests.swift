import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The fake must be right for the sink's tests to mean anything: its merge rule, defaults,
/// validation and error answers, checked with raw HTTP calls.
@Suite("Strict fake state-object service")
struct StateObjectFakeTests {
    let key = "sok_fakekey"

    func call(
        _ fake: FakeStateObjectServer, _ method: String, _ path: String, _ body: JSONValue?, key: String? = nil,
        contentType: String = "application/json"
    ) async throws -> (status: Int, body: JSONValue) {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let key = key ?? Optional(self.key), !key.isEmpty { headers.add(name: "x-api-key", value: key) }
        let response = try await HTTPClient.shared.execute(
            HTTPRequest(
                method: method, url: fake.baseURL + path, headers: headers, body: body.map(JSONWriter.bytes),
                timeout: 30))
        return (response.status, (try? JSONParser.parse(response.body)) ?? .null)
    }

    func start(_ fake: FakeStateObjectServer, _ state: JSONValue) async throws -> String {
        let answer = try await call(fake, "POST", "/api/activities", ["state": state])
        return try #require(answer.body["activityId"]?.stringValue, "\(answer)")
    }

    @Test("merge rule: top level shallow, versus one level down, segments whole; defaults render")
    func mergeRule() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let id = try await start(
            fake,
            [
                "layout": "versus", "primaryText": "Final", "versus": ["leftName": "A", "leftScore": "1"],
                "segments": [["label": "one", "complete": true], ["label": "two", "complete": false]],
            ])
        let answer = try await call(
            fake, "PATCH", "/api/activities/\(id)",
            ["state": ["versus": ["rightScore": "2"], "segments": [["label": "only", "complete": true]]]])
        #expect(answer.status == 200 && answer.body["updated"] == [.string(id)])
        let activity = try #require(fake.activity(id))
        #expect(activity.state["versus"] == ["leftName": "A", "leftScore": "1", "rightScore": "2"])
        #expect(activity.state["segments"] == [["label": "only", "complete": true]])
        #expect(activity.state["primaryText"] == "Final")
        let rendered = activity.rendered
        #expect(rendered["progress"] == 0 && rendered["accentColorHex"] == "#007AFF" && rendered["isComplete"] == false)
        #expect(rendered["versus"]?["rightName"] == "" && rendered["versus"]?["leftScore"] == "1")
        #expect(fake.violations.isEmpty)
    }

    @Test("auth: missing key, wrong key; neither counts against the quota")
    func auth() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let missing = try await call(fake, "POST", "/api/activities", ["state": ["primaryText": "x"]], key: "")
        #expect(missing.status == 401 && missing.body["message"] == "API_KEY_REQUIRED")
        #expect(missing.body["statusCode"] == 401 && missing.body["error"] == "Unauthorized")
        let wrong = try await call(fake, "POST", "/api/activities", ["state": ["primaryText": "x"]], key: "nope")
        #expect(wrong.status == 401 && wrong.body["message"] == "INVALID_API_KEY")
        #expect(fake.quotaUsed == 0)
    }

    @Test("validation: primaryText on start, enums, types, unknown fields (400 with a message array)")
    func validation() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let cases: [(JSONValue, String)] = [
            (["state": ["primaryText": ""]], "state.primaryText should not be empty"),
            (["state": ["primaryText": "x", "layout": "grid"]], "state.layout must be one of"),
            (["state": ["primaryText": "x", "countdownStyle": "weeks"]], "state.countdownStyle must be one of"),
            (["state": ["primaryText": "x", "progress": "50%"]], "state.progress must be a number"),
            (
                ["state": ["primaryText": "x", "textColorHex": "#FFFFFF"]],
                "state.property textColorHex should not exist"
            ),
            (["state": ["primaryText": "x"], "extra": 1], "property extra should not exist"),
            ([:], "state is required"),
        ]
        for (body, message) in cases {
            let answer = try await call(fake, "POST", "/api/activities", body)
            #expect(answer.status == 400, "\(body)")
            let messages = answer.body["message"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(messages.contains { $0.hasPrefix(message) }, "\(messages)")
        }
        #expect(fake.violations.count == cases.count)
        #expect(fake.activities.isEmpty)
    }

    @Test(
        "colours: #RRGGBB stored; an empty string means default; anything else renders the default and is a violation")
    func colours() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let id = try await start(fake, ["primaryText": "x", "accentColorHex": "#34C759", "backgroundColorHex": ""])
        #expect(fake.activity(id)?.rendered["accentColorHex"] == "#34C759")
        #expect(fake.violations.isEmpty)
        _ = try await call(
            fake, "POST", "/api/activities/update",
            ["activityIds": [.string(id)], "state": ["accentColorHex": "green"]])
        #expect(fake.activity(id)?.rendered["accentColorHex"] == "#007AFF")
        #expect(fake.violations.count == 1)
    }

    @Test("null is stored, rendered as the default, and warned about")
    func nulls() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let id = try await start(fake, ["primaryText": "x", "stage": "A"])
        _ = try await call(
            fake, "POST", "/api/activities/update", ["activityIds": [.string(id)], "state": ["stage": nil]])
        #expect(fake.activity(id)?.state["stage"] == .null)
        #expect(fake.activity(id)?.rendered["stage"] == nil)
        #expect(fake.warnings.count == 1 && fake.violations.isEmpty)
    }

    @Test("targets: no ids is 400, partial match succeeds, ended activities no longer match but take branding")
    func targets() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let id = try await start(fake, ["primaryText": "x"])
        let none = try await call(fake, "POST", "/api/activities/update", ["state": ["stage": "a"]])
        #expect(
            none.status == 400
                && none.body["message"]?.arrayValue?.first == "activityIds is required: no target was named")
        let partial = try await call(
            fake, "POST", "/api/activities/update",
            ["activityIds": [.string(id), "act_unknown"], "state": ["stage": "b"]])
        #expect(partial.status == 200 && partial.body["notMatched"] == ["act_unknown"])
        let ended = try await call(
            fake, "POST", "/api/activities/end", ["activityIds": [.string(id)], "state": ["isComplete": true]])
        #expect(
            ended.status == 200 && fake.activity(id)?.ended == true && fake.activity(id)?.state["isComplete"] == true)
        let after = try await call(
            fake, "POST", "/api/activities/update", ["activityIds": [.string(id)], "state": ["stage": "c"]])
        #expect(after.status == 404 && after.body["message"] == "No activity matched")
        let endAgain = try await call(fake, "POST", "/api/activities/\(id)/end", ["state": ["stage": "c"]])
        #expect(endAgain.status == 404)
        let branding = try await call(
            fake, "POST", "/api/branding", ["activityIds": [.string(id)], "brand": ["title": "T"]])
        #expect(branding.status == 200 && fake.activity(id)?.brand?["title"] == "T")
        #expect(fake.violations.count == 1, "only the missing activityIds")
    }

    @Test("quota: every authenticated call counts, refused ones too; then FREE_TIER_LIMIT_REACHED")
    func quota() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        fake.setQuota(limit: 2)
        _ = try await call(fake, "POST", "/api/activities", ["state": ["primaryText": ""]])
        _ = try await start(fake, ["primaryText": "x"])
        let third = try await call(fake, "POST", "/api/activities", ["state": ["primaryText": "y"]])
        #expect(third.status == 402 && third.body["message"] == "FREE_TIER_LIMIT_REACHED")
        #expect(third.body["error"] == "Payment Required")
        #expect(fake.quotaUsed == 3)
    }

    @Test("a free plan refuses button styling; a button object is always a violation")
    func buttonStyling() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        fake.setPlan(.free)
        let styled = try await call(
            fake, "POST", "/api/activities", ["state": ["primaryText": "x", "actionColorHex": "#FF0000"]])
        #expect(styled.status == 402 && styled.body["message"] == "BUTTON_STYLING_REQUIRES_PAID_PLAN")
        #expect(fake.violations.isEmpty)
        let button = try await call(
            fake, "POST", "/api/activities", ["state": ["primaryText": "x", "button": ["label": "Go"]]])
        #expect(button.status == 402)
        #expect(fake.violations.count == 1)
    }

    @Test("wrong content type is a Fastify 415 and a violation; unknown routes are violations")
    func contentTypeAndRoutes() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let answer = try await call(
            fake, "POST", "/api/activities", ["state": ["primaryText": "x"]], contentType: "text/plain")
        #expect(answer.status == 415 && answer.body["code"] == "FST_ERR_CTP_INVALID_MEDIA_TYPE")
        let unknown = try await call(fake, "POST", "/api/nothing", [:])
        #expect(unknown.status == 404 && unknown.body["message"] != "No activity matched")
        #expect(fake.violations.count == 2)
    }

    @Test("out-of-order frames (X-LiveBridge-Sequence) are violations")
    func ordering() async throws {
        let fake = try FakeStateObjectServer(apiKey: key)
        defer { fake.shutdown() }
        let id = try await start(fake, ["primaryText": "x"])
        for sequence in [3, 2] {
            _ = try await HTTPClient.shared.execute(
                HTTPRequest(
                    method: "PATCH", url: fake.baseURL + "/api/activities/\(id)",
                    headers: [
                        "Content-Type": "application/json", "x-api-key": key, "X-LiveBridge-Sequence": String(sequence),
                    ],
                    body: JSONWriter.bytes(["state": ["stage": .string("s\(sequence)")]]), timeout: 30))
        }
        #expect(fake.violations.count == 1 && fake.violations[0].contains("out of order"))
    }
}
