import LiveBridgeCore
import LiveBridgeSinks
import Testing

@Suite("State-object mapping and merge rule")
struct StateObjectMappingTests {
    let now = 1_781_517_600.0

    func frame(
        _ content: JSONValue, kind: FrameKind = .update, name: String = "SABnzbd (home)", truthProgress: Double? = 0.5,
        fixedFinish: Bool = false
    ) -> ActivityFrame {
        ActivityFrame(
            slug: "job", name: name, kind: kind, activityState: "ongoing", patch: content, content: content,
            truthProgress: truthProgress, fixedFinish: fixedFinish, time: now, reason: .structural, sequence: 1)
    }

    func state(_ frame: ActivityFrame, outcome: ActivityOutcome? = nil, options: StateObjectRenderOptions = .init())
        -> JSONValue
    {
        StateObjectMapping.state(for: frame, at: now, outcome: outcome, options: options)
    }

    @Test(
        "estimatedMinutes is end_date − now in whole minutes rounded up; nothing left hides it",
        arguments: [(1.0, 1), (59, 1), (60, 1), (61, 2), (420, 7), (421, 8), (0, nil), (-30, nil)] as [(Double, Int?)])
    func estimatedMinutes(seconds: Double, minutes: Int?) {
        let mapped = state(frame(["progress": 0.5, "end_date": .number(now + seconds), "remaining_time": 9999]))
        #expect(mapped["estimatedMinutes"]?.intValue == minutes)
    }

    @Test("without end_date, remaining_time gives the minutes")
    func minutesFromRemaining() {
        #expect(state(frame(["progress": 0.5, "remaining_time": 125]))["estimatedMinutes"] == 3)
    }

    @Test("the progress layout: names, texts, percentage, colours, icon, image, button")
    func progressLayout() {
        let content: JSONValue = [
            "template": "generic", "progress": 0.4267, "state": "Downloading", "subtitle": "4.2 GB · 11.8 MB/s",
            "icon": "arrow.down.circle", "accent_color": "cyan", "background_color": "#1c1c1eff",
            "text_color": "white", "image_url": "https://cdn.example/logo.png",
            "url_action": ["url": "https://sab.example/", "foreground": true, "title": "Open SABnzbd"],
        ]
        let mapped = state(frame(content))
        #expect(
            mapped == [
                "layout": "progress", "primaryText": "SABnzbd (home)", "secondaryText": "4.2 GB · 11.8 MB/s",
                "stage": "Downloading", "progress": 0.4267, "accessoryText": "42%", "endIcon": "arrow.down.circle",
                "accentColorHex": "#32ADE6", "backgroundColorHex": "#1C1C1E",
                "headerIconUrl": "https://cdn.example/logo.png", "actionURL": "https://sab.example/",
                "actionLabel": "Open SABnzbd", "actionColorHex": "#32ADE6",
            ])
    }

    @Test("what the service cannot show is left out")
    func omissions() {
        let content: JSONValue = [
            "progress": 1.7, "icon": "mdi:printer-3d", "accent_color": "not-a-colour",
            "image_url": "http://insecure.example/x.png",
            "url_action": [
                "url": "https://ha.example/api/webhook/x", "method": "POST", "body": "{}", "title": "Pause",
            ],
        ]
        let mapped = state(frame(content, name: "", truthProgress: nil))
        #expect(mapped == ["layout": "progress", "primaryText": "job", "progress": 1])
    }

    @Test("a link-style action keeps its default label; a foreground webhook is a link")
    func actions() {
        let bare = state(frame(["progress": 0, "url_action": ["url": "homeassistant://navigate/x"]]))
        #expect(bare["actionURL"] == "homeassistant://navigate/x" && bare["actionLabel"] == "Open")
        #expect(bare["actionColorHex"] == nil, "no accent, no styling")
        let foreground = state(
            frame(["progress": 0, "url_action": ["url": "https://x.example/", "method": "GET", "foreground": true]]))
        #expect(foreground["actionURL"] == "https://x.example/")
        var options = StateObjectRenderOptions()
        options.buttonStyling = false
        let unstyled = state(
            frame(["progress": 0, "accent_color": "red", "url_action": ["url": "https://x.example/"]]), options: options
        )
        #expect(unstyled["actionColorHex"] == nil && unstyled["accentColorHex"] == "#FF3B30")
    }

    @Test("isComplete only on a successful end; the stage falls back to the outcome")
    func completion() {
        let content: JSONValue = ["progress": 1]
        #expect(state(frame(content, kind: .final), outcome: .success)["isComplete"] == true)
        #expect(state(frame(content, kind: .final), outcome: .success)["stage"] == "Complete")
        #expect(state(frame(content, kind: .end), outcome: .success)["isComplete"] == true)
        #expect(state(frame(content, kind: .final), outcome: .failure)["isComplete"] == nil)
        #expect(state(frame(content, kind: .final), outcome: .failure)["stage"] == "Failed")
        #expect(state(frame(content, kind: .update), outcome: .success)["isComplete"] == nil)
    }

    @Test("a timer (fixed finish, no progress source) is a countdown; without end_date it is a still bar")
    func countdown() {
        let content: JSONValue = ["progress": 0, "state": "Washing", "end_date": .number(now + 1800)]
        let mapped = state(frame(content, name: "Washer", truthProgress: nil, fixedFinish: true))
        #expect(
            mapped == [
                "layout": "countdown", "primaryText": "Washer", "secondaryText": "Washing", "stage": "Washing",
                "countdownTo": .number(now + 1800), "countdownStyle": "hms", "completionText": "Done",
            ])
        let paused = state(
            frame(["progress": 0, "state": "Paused"], name: "Washer", truthProgress: nil, fixedFinish: true))
        #expect(paused["layout"] == "progress" && paused["progress"] == 0 && paused["stage"] == "Paused")
        var options = StateObjectRenderOptions()
        options.countdown = false
        #expect(state(frame(content, truthProgress: nil, fixedFinish: true), options: options)["layout"] == "progress")
        // A fixed finish with a progress source stays a bar.
        #expect(state(frame(content, truthProgress: 0.3, fixedFinish: true))["layout"] == "progress")
    }

    @Test("changes: only changed fields; cleared ones sent neutral; versus one level down; arrays whole")
    func changes() {
        let stored: JSONValue = [
            "layout": "progress", "primaryText": "A", "progress": 0.2, "estimatedMinutes": 7, "isComplete": true,
            "headerIconUrl": "https://x/y.png", "segments": [["label": "a", "complete": true]],
            "versus": ["leftScore": "1", "rightScore": "2"],
        ]
        let desired: JSONValue = [
            "layout": "progress", "primaryText": "A", "progress": 0.3,
            "segments": [["label": "a", "complete": true], ["label": "b", "complete": false]],
            "versus": ["leftScore": "1", "rightScore": "3"],
        ]
        let changes = StateObjectMerge.changes(from: stored, to: desired)
        #expect(
            changes == [
                "progress": 0.3, "estimatedMinutes": 0, "isComplete": false, "headerIconUrl": "",
                "segments": [["label": "a", "complete": true], ["label": "b", "complete": false]],
                "versus": ["rightScore": "3"],
            ])
        let merged = StateObjectMerge.apply(changes, to: stored)
        #expect(merged["versus"] == ["leftScore": "1", "rightScore": "3"])
        #expect(StateObjectMerge.changes(from: merged, to: desired) == [:], "neutral values already stored")
    }

    @Test("countdown-only fields stay when the layout switches to progress, and are compared on the way back")
    func countdownFieldsKept() {
        let countdown: JSONValue = [
            "layout": "countdown", "primaryText": "T", "countdownTo": 100, "countdownStyle": "hms",
        ]
        let bar: JSONValue = ["layout": "progress", "primaryText": "T", "progress": 0]
        #expect(StateObjectMerge.changes(from: countdown, to: bar) == ["layout": "progress", "progress": 0])
        let paused = StateObjectMerge.apply(["layout": "progress", "progress": 0], to: countdown)
        #expect(StateObjectMerge.changes(from: paused, to: countdown) == ["layout": "countdown"])
    }

    @Test("routes parse as METHOD /path and put the escaped id into {id}")
    func routes() throws {
        let route = try #require(StateObjectRoute("patch /api/activities/{id}"))
        #expect(route.method == "PATCH" && route.addressesOne)
        #expect(route.path(id: "act_1/2") == "/api/activities/act_1%2F2")
        #expect(StateObjectRoute("/api/activities") == nil)
        #expect(StateObjectRoute("FETCH /x") == nil)
        #expect(StateObjectRoute("POST api") == nil)
        let request = StateObjectRequests.update(StateObjectPaths(), id: "act_1", changes: ["progress": 0.5])
        #expect(request.path == "/api/activities/update")
        #expect(request.body == ["activityIds": ["act_1"], "state": ["progress": 0.5]])
        #expect(
            StateObjectRequests.end(StateObjectPaths(), id: "act_1", changes: [:]).body == ["activityIds": ["act_1"]])
    }
}
