import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Builds sinks, frames and tracker-driven lifecycles for the state-object tests.
struct StateObjectHarness {
    static let key = "sok_CANARYstateobject0123456789abcdef"
    let fake: FakeStateObjectServer
    let clock: VirtualClock
    let store: any StateStore

    init(
        routes: FakeStateObjectServer.Routes = .init(), store: (any StateStore)? = nil,
        clock: VirtualClock = VirtualClock()
    ) throws {
        self.clock = clock
        fake = try FakeStateObjectServer(apiKey: Self.key, routes: routes, clock: clock)
        self.store = store ?? MemoryStateStore()
    }

    func sink(
        apiKey: String = StateObjectHarness.key, paths: StateObjectPaths = StateObjectPaths(),
        brand: StateObjectBrand = StateObjectBrand(name: "SABnzbd", color: "cyan"),
        logger: Logger = .disabled, health: HealthReporter? = nil
    ) -> StateObjectSink {
        // A generous per-request bound: when the whole package's tests run on two cores, other
        // suites briefly block the task pool (synchronous openssl runs, CPU-bound properties).
        StateObjectSink(
            configuration: .init(
                name: "watch", baseURL: fake.baseURL, apiKey: apiKey, paths: paths, brand: brand, timeout: 30,
                keyPath: "sinks[1].apiKey"),
            transport: HTTPClient.shared, store: store, clock: clock, logger: logger, health: health)
    }

    /// A download observation at `t` seconds into the job (20 minutes long at a steady rate).
    static func download(_ t: Double, start: Double, length: Double = 1200, phase: ActivityPhase = .active)
        -> ActivityUpdate
    {
        var content = GenericContent(state: "Downloading", icon: "arrow.down.circle", accentColor: "blue")
        if case .ended(.success) = phase { content.state = .value("Complete") }
        if case .ended(.failure) = phase { content.state = .value("Failed") }
        var update = ActivityUpdate(
            slug: "sabnzbd-home", name: "SABnzbd (home)", phase: phase, content: content,
            details: GenericContent(subtitle: "11.8 MB/s"), progress: phase.isEnded ? nil : min(1, t / length),
            eta: phase.isEnded ? nil : .remaining(max(0, length - t)), observedAt: start + t)
        update.content.urlAction = .value(ActionObject(url: "https://sab.example/", foreground: true, title: "Open"))
        return update
    }

    /// Feeds `updates` through a static tracker and delivers every frame it decides to the sink,
    /// then lets the end play out. Returns the frames delivered.
    @discardableResult
    func run(
        _ updates: [ActivityUpdate], sink: StateObjectSink, settings: EconomySettings = EconomySettings(),
        tracker: inout ActivityTracker
    ) async throws -> [ActivityFrame] {
        var delivered: [ActivityFrame] = []
        for update in updates {
            clock.advance(to: update.observedAt ?? clock.now)
            var frames = tracker.handle(update, at: clock.now)
            if let due = tracker.nextDeadline, due <= clock.now { frames += tracker.tick(at: clock.now) }
            for frame in frames {
                let receipt = try await sink.deliver(frame)
                tracker.acknowledge(frame, appliedAt: receipt.appliedAt)
                delivered.append(frame)
            }
        }
        if tracker.lifecycle == .ending, let due = tracker.nextDeadline {
            clock.advance(to: due)
            for frame in tracker.tick(at: clock.now) {
                _ = try await sink.deliver(frame)
                delivered.append(frame)
            }
        }
        return delivered
    }
}

@Suite("State-object sink against the strict fake")
struct StateObjectSinkTests {
    func frame(
        _ kind: FrameKind, sequence: Int, content: JSONValue, name: String = "SABnzbd (home)",
        time: Double = 1_781_517_600,
        outcome: ActivityOutcome? = nil, truthProgress: Double? = 0.5, fixedFinish: Bool = false
    ) -> ActivityFrame {
        ActivityFrame(
            slug: "sabnzbd-home", name: name, kind: kind, activityState: kind == .end ? "ended" : "ongoing",
            patch: content, content: content, outcome: outcome, truthProgress: truthProgress, fixedFinish: fixedFinish,
            time: time, reason: .structural, sequence: sequence)
    }

    static let content: JSONValue = [
        "template": "generic", "progress": 0.42, "state": "Downloading", "subtitle": "11.8 MB/s",
        "accent_color": "cyan", "end_date": 1_781_518_020, "remaining_time": 420,
    ]

    @Test("a whole download: one start, updates with only changed fields, final with isComplete, one end call")
    func lifecycle() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        let start = harness.clock.now
        var tracker = ActivityTracker(slug: "sabnzbd-home", model: .static, settings: EconomySettings())
        var updates = stride(from: 0.0, through: 1200, by: 10).map { StateObjectHarness.download($0, start: start) }
        updates.append(StateObjectHarness.download(1205, start: start, phase: .ended(.success)))
        let frames = try await harness.run(updates, sink: sink, tracker: &tracker)

        let fake = harness.fake
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.warnings.isEmpty, "\(fake.warnings)")
        #expect(fake.redundantFields.isEmpty, "sent unchanged fields: \(fake.redundantFields)")
        #expect(fake.records("start").count == 1)
        #expect(fake.records("end").count == 1)
        let activity = try #require(fake.activities.first)
        #expect(fake.activities.count == 1 && activity.ended)
        let rendered = activity.rendered
        #expect(rendered["isComplete"] == true && rendered["progress"] == 1 && rendered["stage"] == "Complete")
        #expect(rendered["primaryText"] == "SABnzbd (home)" && rendered["accessoryText"] == "100%")
        #expect(rendered["estimatedMinutes"] == 0, "the label is hidden at the end")
        #expect(rendered["accentColorHex"] == "#007AFF" && rendered["actionURL"] == "https://sab.example/")
        #expect(activity.brand?["name"] == "SABnzbd" && activity.brand?["title"] == "SABnzbd (home)")
        // The start carried the whole state; the updates only what changed, and fewer calls than frames.
        let startState = try #require(fake.records("start").first?.body?["state"])
        #expect(startState["layout"] == "progress" && startState["secondaryText"] == "11.8 MB/s")
        let updates2 = fake.records("update")
        #expect(!updates2.isEmpty)
        for record in updates2 {
            #expect(record.body?["state"]?["primaryText"] == nil && record.body?["state"]?["layout"] == nil)
        }
        #expect(fake.records.count <= frames.count)
        let final = try #require(updates2.last?.body?["state"])
        #expect(final["isComplete"] == true)
        // The end call of a two-phase end has nothing left to change.
        #expect(fake.records("end").first?.body?["state"] == nil)
        #expect(await sink.activityID("sabnzbd-home") == nil, "forgotten after the end")
    }

    @Test("with one end frame, the end call carries the final state")
    func singleEndCall() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        var settings = EconomySettings()
        settings.endFrames = 1
        var tracker = ActivityTracker(slug: "sabnzbd-home", model: .static, settings: settings)
        let start = harness.clock.now
        let updates = [
            StateObjectHarness.download(0, start: start), StateObjectHarness.download(600, start: start),
            StateObjectHarness.download(700, start: start, phase: .ended(.success)),
        ]
        try await harness.run(updates, sink: sink, settings: settings, tracker: &tracker)
        let end = try #require(harness.fake.records("end").first)
        #expect(end.body?["state"]?["isComplete"] == true && end.body?["state"]?["progress"] == 1)
        #expect(harness.fake.activities.first?.ended == true)
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("a failed job ends without isComplete and says so in the stage")
    func failure() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        var tracker = ActivityTracker(slug: "sabnzbd-home", model: .static, settings: EconomySettings())
        let start = harness.clock.now
        let updates = [
            StateObjectHarness.download(0, start: start), StateObjectHarness.download(300, start: start),
            StateObjectHarness.download(310, start: start, phase: .ended(.failure)),
        ]
        try await harness.run(updates, sink: sink, tracker: &tracker)
        let rendered = try #require(harness.fake.activities.first?.rendered)
        #expect(rendered["isComplete"] == false && rendered["stage"] == "Failed")
        #expect(harness.fake.activities.first?.ended == true)
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("a restart reads the persisted id and keeps updating the same activity")
    func restartKeepsActivity() async throws {
        let directory = try TemporaryDirectory()
        let store = FileStateStore(directory: directory.path)
        let harness = try StateObjectHarness(store: store)
        defer { harness.fake.shutdown() }
        let first = harness.sink()
        _ = try await first.deliver(frame(.seed, sequence: 1, content: Self.content))
        let id = try #require(await first.activityID("sabnzbd-home"))

        // A new process: a new sink over the same data directory.
        let second = harness.sink()
        var moved = Self.content
        moved["progress"] = 0.6
        let receipt = try await second.deliver(frame(.update, sequence: 2, content: moved))
        #expect(receipt.requests == 1)
        #expect(await second.activityID("sabnzbd-home") == id)
        #expect(harness.fake.records("start").count == 1)
        let update = try #require(harness.fake.records("update").first)
        #expect(update.body?["activityIds"] == [.string(id)])
        #expect(update.body?["state"]?["progress"] == 0.6 && update.body?["state"]?["primaryText"] == nil)
        #expect(harness.fake.activity(id)?.state["progress"] == 0.6)
        #expect(harness.fake.redundantFields.isEmpty && harness.fake.violations.isEmpty)
        // A seed after a restart (tracker state lost) reuses the activity too.
        _ = try await harness.sink().deliver(frame(.seed, sequence: 3, content: moved))
        #expect(harness.fake.records("start").count == 1)
    }

    @Test("a frame that changes nothing the service shows costs no call")
    func unchangedIsFree() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        var same = Self.content
        same["icon"] = "mdi:download"  // not an SF Symbol: not shown by this service
        same["text_color"] = "white"  // no text colour field
        let receipt = try await sink.deliver(frame(.update, sequence: 2, content: same))
        #expect(receipt.requests == 0)
        #expect(harness.fake.records.count == 1)
    }

    @Test("No activity matched starts again once and stores the new id; a second one in a row gives up")
    func notMatchedStartsAgain() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        let firstID = try #require(await sink.activityID("sabnzbd-home"))
        harness.fake.expire(firstID)
        var moved = Self.content
        moved["progress"] = 0.5
        let receipt = try await sink.deliver(frame(.update, sequence: 2, content: moved))
        #expect(receipt.requests == 2)
        let secondID = try #require(await sink.activityID("sabnzbd-home"))
        #expect(secondID != firstID)
        let restarted = try #require(harness.fake.activity(secondID))
        #expect(restarted.state["progress"] == 0.5 && restarted.state["primaryText"] == "SABnzbd (home)")
        #expect(harness.fake.records("start").count == 2)

        // It vanishes again before any update landed: no start loop; the frame is refused.
        harness.fake.expire(secondID)
        moved["progress"] = 0.55
        await #expect {
            _ = try await sink.deliver(frame(.update, sequence: 3, content: moved))
        } throws: { error in
            (error as? SinkError)?.kind == .rejected
        }
        #expect(harness.fake.records("start").count == 2)
        // The next frame starts a new one.
        moved["progress"] = 0.6
        _ = try await sink.deliver(frame(.update, sequence: 4, content: moved))
        #expect(harness.fake.records("start").count == 3)
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("an end for an activity the service no longer knows is done, not an error")
    func endNotMatched() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        harness.fake.expire(try #require(await sink.activityID("sabnzbd-home")))
        let receipt = try await sink.deliver(frame(.end, sequence: 2, content: Self.content, outcome: .success))
        #expect(receipt.requests == 1)
        #expect(await sink.activityID("sabnzbd-home") == nil)
        #expect(harness.fake.records("start").count == 1)
    }

    @Test("an end refused for good keeps the id until the engine forgets the slug; then it is gone from the disk")
    func forgetAfterRefusedEnd() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        let key = "state-object/watch/activities/sabnzbd-home.json"
        #expect(try harness.store.read(key) != nil)
        harness.fake.inject([.answer(status: 400, message: "activityIds must be an array")])
        await #expect(throws: SinkError.self) {
            _ = try await sink.deliver(frame(.end, sequence: 2, content: Self.content, outcome: .success))
        }
        #expect(await sink.activityID("sabnzbd-home") != nil)
        await sink.forget("sabnzbd-home")
        #expect(await sink.activityID("sabnzbd-home") == nil)
        #expect(try harness.store.read(key) == nil)
        // A later job on the slug starts a new activity.
        _ = try await sink.deliver(frame(.seed, sequence: 3, content: Self.content))
        #expect(harness.fake.records("start").count == 2)
    }

    @Test(
        "error answers are classified",
        arguments: [
            (FakeStateObjectServer.Fault.answer(status: 401, message: "API_KEY_REQUIRED"), "authentication"),
            (.answer(status: 401, message: "INVALID_API_KEY"), "authentication"),
            (.answer(status: 400, message: "state is required"), "rejected"),
            (
                .answers(status: 400, messages: ["state.progress must be a number", "state.layout must be one of"]),
                "rejected"
            ),
            (.answer(status: 415, message: "Unsupported Media Type"), "rejected"),
            (.answer(status: 402, message: "FREE_TIER_LIMIT_REACHED"), "quota"),
            (.answer(status: 404, message: "Cannot POST /api/activities"), "rejected"),
            (.rateLimit(retryAfter: 7), "rateLimited 7"),
            (.answer(status: 429, message: "ThrottlerException"), "rateLimited 30"),
            (.answer(status: 500, message: "Internal Server Error"), "unavailable"),
            (.answer(status: 503, message: "Service Unavailable"), "unavailable"),
            (.html(status: 502), "unavailable"),
            (.dropConnection, "unavailable"),
        ])
    func classification(fault: FakeStateObjectServer.Fault, expected: String) async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        harness.fake.inject([fault])
        do {
            _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
            Issue.record("expected a failure")
        } catch {
            switch error.kind {
            case .authentication:
                #expect(expected == "authentication")
                #expect(error.description.contains("sinks[1].apiKey"))
            case .rejected: #expect(expected == "rejected")
            case .rateLimited(let after): #expect(expected == "rateLimited \(Int(after))")
            case .unavailable: #expect(expected == "unavailable")
            case .quotaExhausted(let until):
                #expect(expected == "quota" && until == CivilTime(unixSeconds: harness.clock.now).startOfNextMonth)
                #expect(await sink.isQuotaExhausted)
                return
            }
            #expect(!error.description.contains("CANARY"))
            if case .answers(_, let messages) = fault { #expect(error.description.contains(messages[1])) }
            if case .html = fault { #expect(error.description.contains("HTML")) }
        }
        // Nothing was started, so the next frame starts it.
        _ = try await sink.deliver(frame(.seed, sequence: 2, content: Self.content))
        #expect(harness.fake.activities.count == 1)
    }

    @Test("a wrong or missing key is an authentication error that never shows the key")
    func wrongKey() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let wrong = "sok_CANARYwrongwrongwrongwrong000"
        for (key, message) in [(wrong, "INVALID_API_KEY"), ("", "API_KEY_REQUIRED")] {
            let sink = harness.sink(apiKey: key)
            do {
                _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
                Issue.record("expected a failure")
            } catch {
                #expect(error.kind == .authentication && error.code == message && error.status == 401)
                #expect(error.description.contains("sinks[1].apiKey") && !error.description.contains("CANARY"))
            }
        }
        #expect(harness.fake.activities.isEmpty)
    }

    @Test("a refusal (400) is logged once however often it repeats")
    func refusalLoggedOnce() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let logs = InMemoryLogHandler()
        let sink = harness.sink(logger: Logger(label: "test", level: .debug, handler: logs))
        for sequence in 1...3 {
            harness.fake.inject([.answers(status: 400, messages: ["state.stage must be a string"])])
            await #expect(throws: SinkError.self) {
                _ = try await sink.deliver(frame(.seed, sequence: sequence, content: Self.content))
            }
        }
        let errors = logs.records.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.logfmt.contains("state.stage must be a string") == true)
    }

    @Test("a free plan refuses button styling: the call is resent without it, and that is remembered")
    func buttonStyling() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        harness.fake.setPlan(.free)
        var content = Self.content
        content["url_action"] = ["url": "https://sab.example/", "foreground": true, "title": "Open"]
        let sink = harness.sink()
        #expect(await sink.sendsButtonStyling)
        let receipt = try await sink.deliver(frame(.seed, sequence: 1, content: content))
        #expect(receipt.requests == 2)
        let starts = harness.fake.records.filter { $0.path == "/api/activities" }
        #expect(starts.map(\.status) == [402, 200])
        #expect(starts[0].body?["state"]?["actionColorHex"] == "#32ADE6")
        #expect(starts[1].body?["state"]?["actionColorHex"] == nil)
        #expect(starts[1].body?["state"]?["actionLabel"] == "Open")
        #expect(!(await sink.sendsButtonStyling))
        // Later calls never try again, also after a restart.
        content["progress"] = 0.7
        _ = try await sink.deliver(frame(.update, sequence: 2, content: content))
        content["accent_color"] = "green"
        _ = try await harness.sink().deliver(frame(.update, sequence: 3, content: content))
        #expect(!(await harness.sink().sendsButtonStyling))
        #expect(harness.fake.records.filter { $0.status == 402 }.count == 1)
        let updates = harness.fake.records("update")
        #expect(updates.count == 2 && updates.allSatisfy { $0.body?["state"]?["actionColorHex"] == nil })
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("a spent free tier is sticky until next month: no calls, health says so, survives a restart")
    func quotaSticky() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let registry = HealthRegistry()
        let health = registry.reporter(kind: "sink", name: "watch", type: "state-object", clock: harness.clock)
        let sink = harness.sink(health: health)
        harness.fake.setQuota(limit: 2)
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        var content = Self.content
        content["progress"] = 0.5
        _ = try await sink.deliver(frame(.update, sequence: 2, content: content))
        let nextMonth = CivilTime(unixSeconds: harness.clock.now).startOfNextMonth
        for sequence in 3...6 {
            content["progress"] = .number(0.5 + Double(sequence) / 100)
            await #expect {
                _ = try await sink.deliver(frame(.update, sequence: sequence, content: content))
            } throws: { error in
                (error as? SinkError)?.kind == .quotaExhausted(until: nextMonth)
            }
        }
        #expect(harness.fake.records.count == 3, "one refused call, then none")
        #expect(await sink.isQuotaExhausted)
        #expect(health.current?.status == .degraded)
        #expect(health.current?.details["quota"]?.contains("free tier") == true)
        #expect(health.current?.lastError?.contains("monthly call limit") == true)

        let restarted = harness.sink(
            health: registry.reporter(kind: "sink", name: "watch2", type: "state-object", clock: harness.clock))
        await #expect(throws: SinkError.self) {
            _ = try await restarted.deliver(frame(.update, sequence: 7, content: content))
        }
        #expect(harness.fake.records.count == 3)

        // Next month: calls again.
        harness.clock.advance(to: nextMonth + 1)
        harness.fake.setQuota(limit: nil)
        _ = try await restarted.deliver(frame(.update, sequence: 8, content: content))
        #expect(harness.fake.records.count == 4)
        #expect(!(await restarted.isQuotaExhausted))
    }

    @Test("a changed brand is sent once through the branding route")
    func rebrand() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        _ = try await harness.sink().deliver(frame(.seed, sequence: 1, content: Self.content))
        let id = try #require(harness.fake.activities.first?.id)
        #expect(harness.fake.activity(id)?.brand?["color"] == "#32ADE6")
        let rebranded = harness.sink(brand: StateObjectBrand(title: "Downloads", name: "SABnzbd", color: "#34c759"))
        var content = Self.content
        content["progress"] = 0.5
        let receipt = try await rebranded.deliver(frame(.update, sequence: 2, content: content))
        #expect(receipt.requests == 2)
        content["progress"] = 0.6
        _ = try await rebranded.deliver(frame(.update, sequence: 3, content: content))
        let branding = harness.fake.records("branding")
        #expect(branding.count == 1)
        #expect(branding.first?.body?["brand"] == ["title": "Downloads", "name": "SABnzbd", "color": "#34C759"])
        #expect(harness.fake.activity(id)?.brand?["title"] == "Downloads")
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("routes with {id} name the activity in the path and nowhere else")
    func customRoutes() async throws {
        var routes = FakeStateObjectServer.Routes()
        routes.start = "POST /v2/live"
        routes.updateOne = "PATCH /v2/live/{id}"
        routes.endOne = "POST /v2/live/{id}/end"
        let harness = try StateObjectHarness(routes: routes)
        defer { harness.fake.shutdown() }
        var paths = StateObjectPaths()
        paths.start = try #require(StateObjectRoute("POST /v2/live"))
        paths.update = try #require(StateObjectRoute("PATCH /v2/live/{id}"))
        paths.end = try #require(StateObjectRoute("post /v2/live/{id}/end"))
        let sink = harness.sink(paths: paths)
        _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        var content = Self.content
        content["progress"] = 0.9
        _ = try await sink.deliver(frame(.update, sequence: 2, content: content))
        _ = try await sink.deliver(frame(.end, sequence: 3, content: content, outcome: .success))
        let id = try #require(harness.fake.activities.first?.id)
        #expect(
            harness.fake.records.map { "\($0.method) \($0.path)" } == [
                "POST /v2/live", "PATCH /v2/live/\(id)", "POST /v2/live/\(id)/end",
            ])
        #expect(harness.fake.records.allSatisfy { $0.body?["activityIds"] == nil })
        #expect(harness.fake.activity(id)?.ended == true)
        #expect(harness.fake.violations.isEmpty, "\(harness.fake.violations)")
    }

    @Test("a timer uses the countdown layout, switches to progress while paused, and back")
    func countdownTimer() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let sink = harness.sink()
        var tracker = ActivityTracker(slug: "timer-washer", model: .static, settings: EconomySettings())
        let start = harness.clock.now
        let finish = start + 1800
        func timer(_ t: Double, _ phase: ActivityPhase, state: String) -> ActivityUpdate {
            ActivityUpdate(
                slug: "timer-washer", name: "Washer", phase: phase,
                content: GenericContent(state: state, icon: "washer"),
                eta: phase == .active ? .finishesAt(finish + (t >= 600 ? 300 : 0)) : nil, observedAt: start + t)
        }
        let updates = [
            timer(0, .active, state: "Washing"), timer(60, .active, state: "Washing"),
            timer(300, .paused, state: "Paused"),
            timer(600, .active, state: "Washing"), timer(2100, .ended(.success), state: "Done"),
        ]
        try await harness.run(updates, sink: sink, tracker: &tracker)
        let fake = harness.fake
        let start0 = try #require(fake.records("start").first?.body?["state"])
        #expect(start0["layout"] == "countdown" && start0["countdownTo"] == .int(Int64(finish)))
        #expect(start0["countdownStyle"] == "hms" && start0["completionText"] == "Done" && start0["progress"] == nil)
        #expect(start0["estimatedMinutes"] == nil && start0["secondaryText"] == "Washing")
        let updates2 = fake.records("update").compactMap { $0.body?["state"] }
        let pause = try #require(updates2.first { $0["layout"] == "progress" })
        #expect(pause["stage"] == "Paused")
        let resume = try #require(updates2.first { $0["layout"] == "countdown" })
        #expect(resume["countdownTo"] == .int(Int64(finish + 300)))
        #expect(fake.activities.first?.ended == true)
        #expect(fake.violations.isEmpty, "\(fake.violations)")
        #expect(fake.redundantFields.isEmpty, "\(fake.redundantFields)")
    }

    @Test("probe: a valid key is reported ok, a wrong one names the config key, a spent quota says so")
    func probe() async throws {
        let harness = try StateObjectHarness()
        defer { harness.fake.shutdown() }
        let good = await harness.sink().probe()
        #expect(good.ok, "\(good.detail)")
        let bad = await harness.sink(apiKey: "sok_CANARYwrong").probe()
        #expect(!bad.ok && bad.detail.contains("sinks[1].apiKey") && !bad.detail.contains("CANARY"))
        harness.fake.setQuota(limit: 0)
        let sink = harness.sink()
        await #expect(throws: SinkError.self) {
            _ = try await sink.deliver(frame(.seed, sequence: 1, content: Self.content))
        }
        let spent = await sink.probe()
        #expect(!spent.ok && spent.detail.contains("free tier"))
        #expect(harness.fake.activities.isEmpty && harness.fake.violations.isEmpty)
    }
}
