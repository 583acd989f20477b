import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@Suite("PushWard notifications against the strict fake")
struct PushWardNotificationTests {
    let key = "hlk_CANARYnotify0123456789abcdefghijkl"

    func makeSink(
        _ fake: FakePushWardServer, notify: NotificationRule?, sources: [String: NotificationSource] = [:],
        metrics: MetricsRegistry = MetricsRegistry()
    ) -> PushWardSink {
        PushWardSink(
            configuration: .init(
                name: "phone", baseURL: fake.baseURL, apiKey: key, timeout: 5, keyPath: "sinks[0].apiKey",
                notify: notify, sources: sources),
            transport: HTTPClient.shared, metrics: metrics)
    }

    func frame(
        _ kind: FrameKind, slug: String, name: String, sequence: Int, content: JSONValue, source: String?,
        outcome: ActivityOutcome? = nil, state: String? = "ongoing"
    ) -> ActivityFrame {
        var frame = ActivityFrame(
            slug: slug, name: name, kind: kind, activityState: state, patch: content, content: content,
            ttls: kind == .seed ? ActivityTTLs(stale: 7200, ended: 900, dismissal: 900) : ActivityTTLs(),
            outcome: outcome, time: 0, reason: kind == .final ? .final : .structural, sequence: sequence)
        frame.source = source
        return frame
    }

    static let printing: JSONValue = [
        "template": "generic", "progress": 0.4, "state": "Printing", "subtitle": "Benchy",
        "icon": "printer.fill", "end_date": 1_781_519_400, "live_progress": true,
    ]
    static let failed: JSONValue = [
        "progress": 0.41, "state": "Failed: nozzle clog (0300-4000)", "end_date": .null, "live_progress": .null,
        "icon": "exclamationmark.triangle.fill", "accent_color": "red",
    ]

    /// A job from seed to its final frame, through `sink`.
    func run(
        _ sink: PushWardSink, slug: String, name: String, source: String?, outcome: ActivityOutcome,
        final: JSONValue = Self.failed
    ) async throws {
        _ = try await sink.deliver(
            frame(.seed, slug: slug, name: name, sequence: 1, content: Self.printing, source: source))
        _ = try await sink.deliver(
            frame(.update, slug: slug, name: name, sequence: 2, content: ["progress": 0.5], source: source))
        var last = frame(
            .final, slug: slug, name: name, sequence: 3, content: final, source: source, outcome: outcome)
        last.content = MergePatch.apply(final, to: MergePatch.apply(["progress": 0.5], to: Self.printing))
        _ = try await sink.deliver(last)
    }

    @Test("a failed print notifies once, naming the job and the outcome; progress and the end frame never notify")
    func failedPrintNotifiesOnce() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let metrics = MetricsRegistry()
        let sink = makeSink(
            fake, notify: NotificationRule(on: [.failure], level: .timeSensitive),
            sources: ["x1c": NotificationSource(type: "bambu")], metrics: metrics)
        try await run(sink, slug: "bambu-x1c", name: "Bambu X1C", source: "x1c", outcome: .failure)
        // The same final frame again (a retry after a lost answer) and the end: nothing more.
        var again = frame(
            .final, slug: "bambu-x1c", name: "Bambu X1C", sequence: 3, content: Self.failed, source: "x1c",
            outcome: .failure)
        again.content = MergePatch.apply(Self.failed, to: Self.printing)
        _ = try await sink.deliver(again)
        _ = try await sink.deliver(
            frame(.end, slug: "bambu-x1c", name: "Bambu X1C", sequence: 4, content: [:], source: "x1c", state: "ended"))
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let notifications = fake.notifications
        try #require(notifications.count == 1, "\(notifications)")
        let sent = notifications[0]
        #expect(sent["title"] == "Bambu X1C: print failed")
        #expect(sent["body"] == "Benchy · nozzle clog (0300-4000)")
        #expect(sent["level"] == "time-sensitive")
        #expect(sent["thread_id"] == "x1c")
        #expect(sent["activity_slug"] == "bambu-x1c")
        #expect(sent["collapse_id"] == "lb-bambu-x1c-3")
        #expect(metrics.value("livebridge_notifications_total", ["sink": "phone", "result": "sent"]) == 1)
        // The notification went out after the final frame reached the activity.
        let paths = fake.records.map { "\($0.method) \($0.path)" }
        let final = try #require(paths.firstIndex(of: "POST /notifications"))
        #expect(paths[final - 1] == "PATCH /activities/bambu-x1c")
    }

    @Test("only the outcomes asked for notify; a source's own notify replaces the sink's for that source")
    func rulesPerSource() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(
            fake, notify: NotificationRule(on: [.failure, .cancelled]),
            sources: [
                "washer": NotificationSource(
                    type: "homeassistant", rule: NotificationRule(on: [.success], level: .passive)),
                "home": NotificationSource(type: "sabnzbd"),
            ])
        let done: JSONValue = ["progress": 1, "state": "Done", "end_date": .null, "live_progress": .null]
        try await run(sink, slug: "washer", name: "Washer", source: "washer", outcome: .success, final: done)
        try await run(sink, slug: "washer-2", name: "Washer", source: "washer", outcome: .failure)
        try await run(sink, slug: "sabnzbd-home", name: "SABnzbd", source: "home", outcome: .success, final: done)
        try await run(sink, slug: "sabnzbd-home-2", name: "SABnzbd", source: "home", outcome: .cancelled)
        try await run(sink, slug: "api-card", name: "Oven", source: nil, outcome: .failure)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let sent = fake.notifications.map { "\($0["title"]?.stringValue ?? "") | \($0["level"]?.stringValue ?? "")" }
        #expect(
            sent == ["Washer: finished | passive", "SABnzbd: download cancelled | active", "Oven: failed | active"])
        #expect(fake.notifications.first?["body"] == "Benchy · Done")
        #expect(fake.notifications.last?["thread_id"] == "livebridge")
    }

    @Test("the notification quota used up stops notifications until reset_at, never the activities")
    func quotaStopsOnlyNotifications() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        // The month resets in ten days.
        let reset = (SystemClock().now / 86_400).rounded(.down) * 86_400 + 10 * 86_400
        fake.setNotificationQuota(limit: 1, resetAt: reset)
        let metrics = MetricsRegistry()
        let sink = makeSink(fake, notify: NotificationRule(on: [.failure]), metrics: metrics)
        for index in 1...3 {
            try await run(sink, slug: "print-\(index)", name: "Printer", source: nil, outcome: .failure)
        }
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.notifications.count == 1)
        // Every activity reached its final card.
        for index in 1...3 {
            #expect(fake.activity("print-\(index)")?.content["state"] == "Failed: nozzle clog (0300-4000)")
        }
        // One refused request, then none until the month resets.
        let posts = fake.records.filter { $0.path == "/notifications" }
        #expect(posts.map(\.status) == [201, 429])
        #expect(metrics.value("livebridge_notifications_total", ["sink": "phone", "result": "quota"]) == 2)
        let probe = await sink.probe()
        #expect(
            probe.detail.contains("notifications this month: 1 of 1, paused until \(RFC3339.format(reset))"), "\(probe)"
        )
    }

    @Test("an end whose activity is already gone notifies without the link")
    func goneActivityUnlinked() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let sink = makeSink(fake, notify: NotificationRule(on: [.failure]))
        _ = try await sink.deliver(
            frame(.seed, slug: "sab", name: "SABnzbd", sequence: 1, content: Self.printing, source: nil))
        fake.forget("sab")
        // One end frame (no two-phase end under a monthly budget) carries the outcome.
        _ = try await sink.deliver(
            frame(
                .end, slug: "sab", name: "SABnzbd", sequence: 2, content: Self.failed, source: nil, outcome: .failure,
                state: "ended"))
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        let posts = fake.records.filter { $0.path == "/notifications" }
        #expect(posts.map(\.status) == [422, 201])
        #expect(fake.notifications.count == 1)
        #expect(fake.notifications.first?["activity_slug"] == nil)
        #expect(fake.notifications.first?["title"] == "SABnzbd: failed")
    }

    @Test("a 503 is retried and the notification goes out once; a 403 gives up without failing the frame")
    func retriesAndGivesUp() async throws {
        let fake = try FakePushWardServer(apiKey: key)
        defer { fake.shutdown() }
        let metrics = MetricsRegistry()
        let sink = makeSink(fake, notify: NotificationRule(on: [.failure]), metrics: metrics)
        for (slug, fault) in [("job-1", 503), ("job-2", 403)] {
            _ = try await sink.deliver(
                frame(.seed, slug: slug, name: "Job", sequence: 1, content: Self.printing, source: nil))
            // The final PATCH goes through (a fault-free pass), the notification meets the fault.
            fake.inject([.delay(0), .status(fault)])
            let receipt = try await sink.deliver(
                frame(
                    .final, slug: slug, name: "Job", sequence: 2, content: Self.failed, source: nil, outcome: .failure))
            #expect(receipt.requests == 1)
            #expect(fake.activity(slug)?.content["state"] == "Failed: nozzle clog (0300-4000)")
        }
        let posts = fake.records.filter { $0.path == "/notifications" }.map(\.status)
        #expect(posts == [503, 201, 403])
        #expect(fake.notifications.count == 1)
        #expect(metrics.value("livebridge_notifications_total", ["sink": "phone", "result": "sent"]) == 1)
        #expect(metrics.value("livebridge_notifications_total", ["sink": "phone", "result": "failed"]) == 1)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }
}
