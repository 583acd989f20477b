import LiveBridgeCore
import LiveBridgeSinks
import Testing

@Suite("Preview board: the service's view of each activity")
struct PreviewBoardTests {
    static let seedContent: JSONValue = [
        "template": "generic", "progress": 0.1, "state": "Downloading", "icon": "arrow.down.circle",
        "subtitle": "ubuntu.iso", "accent_color": "blue", "end_date": 1_781_518_200, "live_progress": true,
        "url_action": ["url": "https://sab.example/", "title": "Open"],
    ]

    var sequence = 0

    mutating func frame(
        _ kind: FrameKind, patch: JSONValue, content: JSONValue? = nil, state: String? = "ongoing",
        slug: String = "job",
        outcome: ActivityOutcome? = nil, priority: Int? = nil, reason: PushReason = .structural
    ) -> ActivityFrame {
        sequence += 1
        return ActivityFrame(
            slug: slug, name: "Job \(slug)", kind: kind, activityState: state, patch: patch, content: content ?? patch,
            priority: priority, outcome: outcome, time: 0, reason: reason, sequence: sequence)
    }

    @Test("a seed replaces the stored content, patches merge, null deletes, nested objects merge")
    mutating func mergeSemantics() throws {
        var board = PreviewBoard()
        board.apply(frame(.seed, patch: Self.seedContent), at: 1000)
        board.apply(
            frame(.update, patch: ["progress": 0.5, "subtitle": .null, "url_action": ["title": "Browse"]]), at: 1100)
        var content = try #require(board.activity("job")).content
        #expect(content["progress"] == 0.5 && content["subtitle"] == nil && content["state"] == "Downloading")
        #expect(content["url_action"] == ["url": "https://sab.example/", "title": "Browse"])
        // A new seed (a restart, a 404 recreate) starts from nothing: old keys do not linger.
        board.apply(frame(.seed, patch: ["template": "generic", "progress": 0.2, "state": "Queued"]), at: 1200)
        content = try #require(board.activity("job")).content
        #expect(content == ["template": "generic", "progress": 0.2, "state": "Queued"])
    }

    @Test("state, outcome and the push time t0 follow the frames; the final frame clears the glide")
    mutating func lifecycle() throws {
        var board = PreviewBoard()
        board.apply(frame(.seed, patch: Self.seedContent), at: 1000)
        var activity = try #require(board.activity("job"))
        #expect(activity.state == .ongoing && activity.anchorTime == 1000)
        #expect(activity.anchor == DisplayAnchor(progress: 0.1, time: 1000, endDate: 1_781_518_200, live: true))
        let final: JSONValue = [
            "progress": 1, "state": "Complete", "end_date": .null, "live_progress": .null, "remaining_time": .null,
        ]
        board.apply(frame(.final, patch: final, outcome: .success, reason: .final), at: 2000)
        board.apply(frame(.end, patch: [:], state: "ended", reason: .end), at: 2004)
        activity = try #require(board.activity("job"))
        #expect(activity.state == .ended && activity.outcome == .success && activity.anchorTime == 2004)
        #expect(activity.anchor == DisplayAnchor(progress: 1, time: 2004, endDate: nil, live: false))
        #expect(activity.shownProgress(at: 5000) == 1)
        // The job comes back: ongoing again, the old outcome is gone.
        board.apply(frame(.seed, patch: Self.seedContent), at: 3000)
        activity = try #require(board.activity("job"))
        #expect(activity.state == .ongoing && activity.outcome == nil)
    }

    @Test("the page glides from the time the push was applied, exactly like DisplayAnchor")
    mutating func glideFromAppliedTime() throws {
        var board = PreviewBoard()
        board.apply(
            frame(.seed, patch: ["template": "generic", "progress": 0.2, "end_date": 1600, "live_progress": true]),
            at: 1000)
        let activity = try #require(board.activity("job"))
        #expect(abs(activity.shownProgress(at: 1300) - 0.6) < 1e-12)
        #expect(activity.shownProgress(at: 1600) == 0.2)
        // A subtitle-only push re-anchors at the stored (old) progress: the bar jumps back.
        board.apply(frame(.update, patch: ["subtitle": "x"]), at: 1300)
        #expect(try #require(board.activity("job")).shownProgress(at: 1300) == 0.2)
    }

    @Test("an activity first seen mid-life starts from the frame's full content")
    mutating func firstSeenMidLife() throws {
        var board = PreviewBoard()
        board.apply(
            frame(.update, patch: ["progress": 0.7], content: Self.seedContent.merged(["progress": 0.7])), at: 10)
        #expect(try #require(board.activity("job")).content["state"] == "Downloading")
        #expect(try #require(board.activity("job")).content["progress"] == 0.7)
    }

    @Test("the push log lists what each patch changed, newest kept, secrets masked")
    mutating func pushLog() throws {
        Redactor.shared.register("CANARYpreviewSecret42")
        var board = PreviewBoard()
        board.logLimit = 3
        var seed = Self.seedContent
        seed["subtitle"] = "token CANARYpreviewSecret42"
        seed["secondary_url_action"] = [
            "url": "https://sab.example/api?mode=pause&apikey=CANARYinlineKey99", "method": "POST",
            "headers": ["X-Token": "CANARYheaderToken77"], "body": "{\"token\":\"CANARYbody55\"}", "title": "Pause",
        ]
        board.apply(frame(.seed, patch: seed, reason: .start), at: 1000)
        var activity = try #require(board.activity("job"))
        let entry = try #require(activity.log.last)
        #expect(
            entry.event == .push(kind: .seed, reason: .start) && entry.time == 1000 && entry.activityState == "ongoing")
        #expect(entry.changes.map(\.key) == seed.objectValue!.keys.sorted())
        let state = JSONWriter.string(board.json(now: 1001, title: "t", sink: "preview", budget: nil))
        #expect(!state.contains("CANARY"), "\(state)")
        #expect(state.contains("\"title\":\"Pause\""))
        for progress in [0.2, 0.3, 0.4, 0.5] {
            board.apply(
                frame(.update, patch: ["progress": .double(progress), "end_date": .null]), at: 1000 + progress * 100)
        }
        activity = try #require(board.activity("job"))
        #expect(activity.log.count == 3 && activity.pushes == 5)
        #expect(
            activity.log.last?.changes == [.init(key: "end_date", value: .null), .init(key: "progress", value: 0.5)])
    }

    @Test("skips, invalid frames and pushes are counted per activity and in total")
    mutating func counters() throws {
        var board = PreviewBoard()
        board.apply(frame(.seed, patch: Self.seedContent), at: 1000)
        board.noteSkipped(slug: "job")
        board.noteSkipped(slug: "job")
        board.noteSkipped(slug: "unknown")
        board.noteInvalid(slug: "job", problems: ["progress: 1.5 is above 1.0"], at: 1010)
        let activity = try #require(board.activity("job"))
        #expect(activity.skipped == 2 && activity.invalid == 1 && activity.pushes == 1)
        #expect(board.skipped == 3 && board.invalid == 1 && board.pushes == 1)
        #expect(activity.log.last?.event == .invalid(problems: ["progress: 1.5 is above 1.0"]))
    }

    @Test("skips before an activity's first frame (its seed waiting for an estimate) count for it once it appears")
    mutating func skipsBeforeSeed() throws {
        var board = PreviewBoard()
        board.activityLimit = 2
        board.noteSkipped(slug: "job")
        board.noteSkipped(slug: "job")
        // Slugs that never get a card are remembered only up to the activity limit.
        for index in 0..<10 { board.noteSkipped(slug: "never-\(index)") }
        board.apply(frame(.seed, patch: Self.seedContent), at: 1000)
        board.noteSkipped(slug: "job")
        let activity = try #require(board.activity("job"))
        #expect(activity.skipped == 3 && board.skipped == 13)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "never-0"), at: 1001)
        #expect(board.activity("never-0")?.skipped == 1, "within the limit: kept")
        board.apply(frame(.seed, patch: Self.seedContent, slug: "never-9"), at: 1002)
        #expect(board.activity("never-9")?.skipped == 0, "past the limit: not kept")
    }

    @Test("memory is bounded: the least recently updated ended activity goes first")
    mutating func eviction() {
        var board = PreviewBoard()
        board.activityLimit = 3
        board.apply(frame(.seed, patch: Self.seedContent, slug: "a"), at: 1)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "b"), at: 2)
        board.apply(frame(.end, patch: [:], state: "ended", slug: "b"), at: 3)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "c"), at: 4)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "d"), at: 5)
        #expect(board.activities.map(\.slug) == ["a", "c", "d"])
    }

    @Test("the snapshot lists ongoing cards by priority, then ended ones")
    mutating func snapshotOrder() {
        var board = PreviewBoard()
        board.apply(frame(.seed, patch: Self.seedContent, slug: "low"), at: 1)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "done"), at: 2)
        board.apply(frame(.seed, patch: Self.seedContent, slug: "high", priority: 5), at: 3)
        board.apply(frame(.end, patch: [:], state: "ended", slug: "done"), at: 4)
        let json = board.json(now: 5, title: "t", sink: "preview", budget: PreviewBudget(used: 4, limit: 250))
        #expect(json["activities"]?.arrayValue?.compactMap { $0["slug"]?.stringValue } == ["high", "low", "done"])
        #expect(json["budget"] == ["used": 4, "limit": 250])
        #expect(json["totals"]?["pushes"] == 4 && json["now"]?.doubleValue == 5)
    }
}

extension JSONValue {
    fileprivate func merged(_ patch: JSONValue) -> JSONValue { MergePatch.apply(patch, to: self) }
}
