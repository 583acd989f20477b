import Testing

@testable import LiveBridgeCore

/// Builds observation sequences the way a polling adapter would produce them.
struct Trajectory {
    var slug = "job"
    var start: Double = 1_781_517_600
    var interval: Double = 3
    var updates: [ActivityUpdate] = []
    var progress: Double = 0
    var time: Double

    init(start: Double = 1_781_517_600, interval: Double = 3) {
        self.start = start
        self.interval = interval
        self.time = start
    }

    func update(_ phase: ActivityPhase, state: String, remaining: Double?) -> ActivityUpdate {
        var content = GenericContent(
            state: state, icon: "arrow.down.circle", subtitle: "ubuntu.iso", accentColor: "blue")
        if case .ended(.success) = phase {
            content = GenericContent(state: "Complete", icon: "checkmark.circle.fill", accentColor: "green")
        }
        return ActivityUpdate(
            slug: slug, name: "Job", phase: phase, content: content, progress: progress,
            eta: remaining.map { .remaining($0) }, observedAt: time)
    }

    /// Runs at `rate` (progress per second) for `duration` seconds; remaining from the rate.
    mutating func run(rate: Double, for duration: Double, state: String = "Downloading") {
        let steps = Int((duration / interval).rounded())
        for _ in 0..<steps {
            updates.append(update(.active, state: state, remaining: rate > 0 ? (1 - progress) / rate : nil))
            time += interval
            progress = min(1, progress + rate * interval)
        }
    }

    /// Runs at `rate` until done.
    mutating func runToEnd(rate: Double) {
        while progress < 1 - 1e-9 {
            updates.append(update(.active, state: "Downloading", remaining: (1 - progress) / rate))
            time += interval
            progress = min(1, progress + rate * interval)
        }
    }

    mutating func pause(for duration: Double) {
        let steps = Int((duration / interval).rounded())
        for _ in 0..<steps {
            updates.append(update(.paused, state: "Paused", remaining: nil))
            time += interval
        }
    }

    mutating func end(_ outcome: ActivityOutcome = .success) {
        if outcome == .success { progress = 1 }
        var final = update(
            .ended(outcome), state: outcome == .success ? "Complete" : "Failed: repair failed", remaining: nil)
        if outcome != .success {
            final.content = GenericContent(
                state: "Failed: repair failed", icon: "xmark.circle.fill", accentColor: "red")
        }
        updates.append(final)
    }
}

@Suite("Tracker and push economy")
struct TrackerTests {
    let settings = EconomySettings()

    @Test("a 2-hour job at constant speed costs at most 4 pushes with the error within ε")
    func constantSpeed() {
        var job = Trajectory()
        job.runToEnd(rate: 1.0 / 7200)
        job.end()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        #expect(result.totalPushes <= 4)
        #expect(result.maxError <= settings.maxDisplayError)
        #expect(result.pushes.first?.frame.kind == .seed)
        #expect(result.pushes.suffix(2).map(\.frame.kind) == [.final, .end])
    }

    /// The first 100 s of a download taking an hour at 1/3600 per second, the source saying so
    /// (the seed glides to its finish): the frames the tracker sent.
    func hourLongDownload(_ tracker: inout ActivityTracker, _ job: inout Trajectory) -> [ActivityFrame] {
        var frames: [ActivityFrame] = []
        for _ in 0..<20 {
            let update = job.update(.active, state: "Downloading", remaining: (1 - job.progress) * 3600)
            frames += tracker.handle(update, at: job.time)
            frames += tracker.tick(at: job.time)
            job.time += 5
            job.progress += 5.0 / 3600
        }
        return frames
    }

    @Test("a countdown moved when a late frame is refreshed (after an outage) counts as a move for the reversal rules")
    func refreshedFrameMovesCountdown() throws {
        var tracker = ActivityTracker(slug: "job", name: "Job", model: .interpolating, settings: settings)
        var job = Trajectory(interval: 5)
        let frames = hourLongDownload(&tracker, &job)
        let last = try #require(frames.last)
        let pushedEnd = try #require(last.content["end_date"]?.doubleValue)
        // The source now says ten minutes later: within the ETA tolerance (a quarter of what is
        // left), so no push of its own.
        let later = job.update(.active, state: "Downloading", remaining: (1 - job.progress) * 3600 + 600)
        #expect(tracker.handle(later, at: job.time).isEmpty)
        #expect(tracker.memory.lastETAMoveAt == nil)
        // The last frame is delivered late, re-anchored for the moment it is applied.
        let fresh = tracker.refreshed(last, at: job.time + 1)
        let refreshed = try #require(fresh)
        let refreshedEnd = try #require(refreshed.content["end_date"]?.doubleValue)
        #expect(refreshedEnd - pushedEnd >= settings.etaMoveMinimum)
        #expect(tracker.memory.lastETAMoveAt == job.time + 1)
        #expect(tracker.memory.lastETAMoveLater == true)
    }

    @Test("a frame is planned again only once it waited refreshAge: one sent sooner keeps its anchor")
    func refreshWaitsForItsAge() throws {
        var custom = settings
        custom.refreshAge = 20
        var tracker = ActivityTracker(slug: "job", name: "Job", model: .interpolating, settings: custom)
        var job = Trajectory(interval: 5)
        let frames = hourLongDownload(&tracker, &job)
        let last = try #require(frames.last)
        let decided = tracker.anchor
        let early = tracker.refreshed(last, at: last.time + custom.refreshAge / 2)
        #expect(early == nil)
        #expect(tracker.anchor == decided, "a frame sent sooner keeps the anchor it was decided with")
        let late = tracker.refreshed(last, at: last.time + custom.refreshAge)
        let fresh = try #require(late)
        #expect(fresh.time == last.time + custom.refreshAge)
        #expect(tracker.anchor?.time == last.time + custom.refreshAge)
    }

    @Test("a frame the coalescing window held anchors the tracker's bar when it leaves, as the phone's does")
    func heldFrameAnchorsWhenItLeaves() throws {
        var tracker = ActivityTracker(slug: "job", name: "Job", model: .interpolating, settings: settings)
        var job = Trajectory(interval: 1)
        job.progress = 0.1
        let seed = tracker.handle(job.update(.active, state: "Downloading", remaining: 60), at: job.time)
        #expect(seed.count == 1, "the seed leaves at once")
        // A new card text half a second later waits for the window after the seed.
        job.time += 0.5
        job.progress = 0.11
        #expect(tracker.handle(job.update(.active, state: "Verifying", remaining: 59), at: job.time).isEmpty)
        let decided = try #require(tracker.anchor)
        #expect(decided.time == job.time)
        let due = try #require(tracker.nextDeadline)
        #expect(due > job.time && due - job.time < 1, "it leaves within the window: too soon to be re-planned")
        let released = tracker.tick(at: due)
        let frame = try #require(released.first)
        #expect(released.count == 1 && frame.patch["state"]?.stringValue == "Verifying")
        // The phone starts the glide the frame carries when the frame arrives, not when it was
        // decided: a model half a second ahead of it judged a one-minute download's bar 0.016
        // further along than the phone showed it, and corrected it for that.
        let anchor = try #require(tracker.anchor)
        #expect(anchor.time == due)
        #expect(anchor.progress == frame.content["progress"]?.doubleValue)
        #expect(anchor.endDate == frame.content["end_date"]?.doubleValue)
        #expect(tracker.lastPushAt == due)
    }

    @Test("a correction the bar needs now leaves at once; the coalescing window holds only one made ahead of the drift")
    func urgentCorrectionLeavesAtOnce() throws {
        var tracker = ActivityTracker(slug: "job", name: "Job", model: .interpolating, settings: settings)
        var job = Trajectory(interval: 3)
        job.progress = 0.1
        var frames = tracker.handle(job.update(.active, state: "Downloading", remaining: 600), at: job.time)
        frames += tracker.tick(at: job.time + settings.startWait)
        #expect(frames.count == 1, "the seed")
        // Steady at its stated pace for a minute: nothing to correct.
        for _ in 0..<20 {
            job.time += 3
            job.progress += 0.9 / 600 * 3
            #expect(
                tracker.handle(
                    job.update(.active, state: "Downloading", remaining: 600 - (job.time - job.start)), at: job.time
                ).isEmpty)
        }
        // The count jumps 10 % ahead of the bar (a burst): the bar is past ε now, and the
        // correction leaves with this observation, not a window later.
        job.time += 3
        job.progress += 0.1
        let corrected = tracker.handle(
            job.update(.active, state: "Downloading", remaining: 600 - (job.time - job.start)), at: job.time)
        let frame = try #require(corrected.first)
        #expect(corrected.count == 1 && frame.reason == .displayError && frame.time == job.time)
        let progress = try #require(frame.content["progress"]?.doubleValue)
        #expect(abs(progress - job.progress) <= settings.maxDisplayError)
    }

    @Test("the simulation measures the bar the frames put on the phone, from when each leaves")
    func simulationMeasuresFrames() throws {
        var job = Trajectory(interval: 0.5)
        job.progress = 0.012_345_6
        job.run(rate: 1.0 / 90, for: 20)
        job.run(rate: 1.0 / 90, for: 20, state: "Verifying")
        job.runToEnd(rate: 1.0 / 90)
        job.end()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let anchors = try #require(result.anchors["job"])
        let shown = result.pushes.filter { $0.frame.content["progress"] != nil }
        #expect(anchors.count == shown.count && shown.count >= 3)
        for (push, anchor) in zip(shown, anchors) {
            let content = push.frame.content
            let live = push.frame.kind != .end && content["live_progress"]?.boolValue == true
            #expect(anchor.time == push.time)
            #expect(anchor.progress == content["progress"]?.doubleValue, "the pushed (rounded) progress")
            #expect(anchor.live == live)
            #expect(anchor.endDate == (live ? content["end_date"]?.doubleValue : nil))
        }
    }

    @Test("every frame carries the source that reported the job, across a restart of the tracker")
    func framesCarrySource() throws {
        var tracker = ActivityTracker(slug: "job", name: "Job", model: .interpolating, settings: settings)
        var job = Trajectory()
        var update = job.update(.active, state: "Downloading", remaining: 600)
        update.source = "home"
        let seed = tracker.handle(update, at: job.time) + tracker.tick(at: job.time + settings.startWait)
        #expect(!seed.isEmpty && seed.allSatisfy { $0.source == "home" })
        for frame in seed { tracker.acknowledge(frame, appliedAt: frame.time) }
        var restored = try #require(
            ActivityTracker(snapshot: tracker.snapshot, model: .interpolating, settings: settings))
        job.time += 60
        job.progress = 1
        // A later update without a source (an automation ending it through the API) keeps it.
        let end = job.update(.ended(.failure), state: "Failed", remaining: nil)
        let frames = restored.handle(end, at: job.time) + restored.tick(at: job.time + settings.endDisplay)
        #expect(frames.map(\.kind) == [.final, .end])
        #expect(frames.allSatisfy { $0.source == "home" }, "\(frames.map(\.source))")
        #expect(frames.first?.outcome == .failure)
    }

    @Test(
        "a final card already shown is not sent again: ended follows it after endDisplay, with the outcome, across a restart"
    )
    func finalContentShownBeforeTheEnd() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 600, for: 120)
        // The source shows the final card while it waits to be sure the job is over (SABnzbd's
        // idle polls), then ends with the same card a second later.
        job.progress = 1
        var done = job.update(.active, state: "Complete", remaining: nil)
        done.content = GenericContent(state: "Complete", icon: "checkmark.circle.fill", accentColor: "green")
        job.updates.append(done)
        job.time += 1
        job.updates.append(job.update(.ended(.success), state: "Complete", remaining: nil))
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let kinds = result.pushes.map(\.frame.kind)
        #expect(!kinds.contains(.final), "\(kinds)")
        let shown = try #require(result.pushes.dropLast().last)
        #expect(shown.frame.patch["state"] == "Complete" && shown.frame.patch["end_date"] == .null)
        let end = try #require(result.pushes.last)
        #expect(end.frame.kind == .end && end.frame.outcome == .success)
        #expect(abs(end.time - shown.time - settings.endDisplay) < 1e-6)

        // The same end with a restart between the end and `ended`: the outcome is not lost.
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var frames: [ActivityFrame] = []
        for update in job.updates {
            let time = update.observedAt ?? 0
            frames = tracker.tick(at: time) + tracker.handle(update, at: time)
            for frame in frames { tracker.acknowledge(frame, appliedAt: frame.time) }
        }
        var restored = try #require(
            ActivityTracker(snapshot: tracker.snapshot, model: .interpolating, settings: settings))
        let late = restored.tick(at: job.time + settings.endDisplay)
        #expect(late.map(\.kind) == [.end] && late.first?.outcome == .success, "\(late.map(\.kind))")
    }

    @Test("the seed carries end_date and live_progress; the final frame clears them with null")
    func seedAndFinalFrames() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 60)
        job.end()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let seed = try #require(result.pushes.first?.frame)
        #expect(seed.activityState == "ongoing")
        #expect(seed.patch["template"] == "generic")
        #expect(seed.patch["live_progress"] == true)
        #expect(seed.patch["end_date"]?.intValue != nil)
        #expect(seed.ttls.stale != nil && seed.ttls.ended == 900 && seed.ttls.dismissal == 900)
        let final = try #require(result.pushes.first { $0.frame.kind == .final }?.frame)
        #expect(final.activityState == "ongoing")
        #expect(final.patch["end_date"] == .null)
        #expect(final.patch["live_progress"] == .null)
        #expect(final.patch["progress"] == 1)
        #expect(final.patch["state"] == "Complete")
        let end = try #require(result.pushes.last)
        #expect(end.frame.kind == .end && end.frame.activityState == "ended")
        #expect(end.time - result.pushes.first { $0.frame.kind == .final }!.time == settings.endDisplay)
    }

    @Test("the speed halving at 50 % costs at most 2 extra pushes")
    func speedChange() {
        var baseline = Trajectory()
        baseline.runToEnd(rate: 1.0 / 7200)
        baseline.end()
        var job = Trajectory()
        job.run(rate: 1.0 / 7200, for: 3600)
        job.runToEnd(rate: 0.5 / 7200)
        job.end()
        let simulation = EconomySimulation(model: .interpolating, settings: settings)
        let base = simulation.run(baseline.updates)
        let result = simulation.run(job.updates)
        #expect(result.totalPushes <= base.totalPushes + 2)
        #expect(result.maxError <= settings.maxDisplayError)
    }

    @Test("a stall never shows completion nor runs ahead of the truth by more than ε")
    func stall() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 1800)
        job.run(rate: 0, for: 3600, state: "Downloading")
        job.runToEnd(rate: 1.0 / 3600)
        job.end()
        let simulation = EconomySimulation(model: .interpolating, settings: settings)
        let result = simulation.run(job.updates)
        let anchors = try #require(result.anchors["job"])
        // Walk the stall second by second: shown ≤ truth + ε and never complete.
        let stallStart = job.start + 1800
        for second in stride(from: stallStart, to: stallStart + 3600, by: 1) {
            let anchor = anchors.last { $0.time <= second }!
            let shown = anchor.shown(at: second, model: .interpolating)
            #expect(shown <= 0.5 + settings.maxDisplayError + 1e-9)
            #expect(shown < 0.99)
        }
        #expect(result.maxError <= settings.maxDisplayError)
    }

    @Test("pause holds the bar still with the anchors cleared; resume glides again")
    func pauseAndResume() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 600)
        job.pause(for: 900)
        job.runToEnd(rate: 1.0 / 3600)
        job.end()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let pause = try #require(result.pushes.first { $0.frame.patch["state"] == "Paused" }?.frame)
        #expect(pause.patch["live_progress"] == .null)
        #expect(pause.patch["end_date"] == .null)
        let resume = try #require(
            result.pushes.first { $0.time > pause.time && $0.frame.patch["state"] == "Downloading" }?.frame)
        #expect(resume.patch["live_progress"] == true)
        #expect(result.totalPushes <= 6)
        #expect(result.maxError <= settings.maxDisplayError)
    }

    @Test("a failure ends red with the last true progress")
    func failure() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 1200)
        job.end(.failure)
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let final = try #require(result.pushes.first { $0.frame.kind == .final }?.frame)
        #expect(final.patch["accent_color"] == "red")
        #expect(final.patch["state"] == "Failed: repair failed")
        let progress = try #require(final.content["progress"]?.doubleValue)
        #expect(abs(progress - 1.0 / 3) < 0.01)
        #expect(result.pushes.last?.frame.kind == .end)
    }

    @Test("with endFrames 1 the end is one request carrying the final content")
    func singleEndFrame() throws {
        var settings = self.settings
        settings.endFrames = 1
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 60)
        job.end()
        let result = EconomySimulation(model: .interpolating, settings: settings).run(job.updates)
        let end = try #require(result.pushes.last?.frame)
        #expect(end.kind == .end && end.activityState == "ended")
        #expect(end.patch["state"] == "Complete" && end.patch["live_progress"] == .null)
        #expect(!result.pushes.contains { $0.frame.kind == .final })
    }

    @Test("a monthly budget switches to one end frame automatically")
    func budgetImpliesSingleEndFrame() {
        var settings = self.settings
        settings.monthlyBudget = 250
        #expect(settings.effectiveEndFrames == 1)
        settings.endFrames = 2
        #expect(settings.effectiveEndFrames == 2)
    }

    @Test("a job that starts again inside the end window cancels the end")
    func restartCancelsEnd() {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        job.run(rate: 1.0 / 600, for: 30)
        for update in job.updates { _ = tracker.handle(update, at: update.observedAt!) }
        job.updates = []
        job.end()
        let final = tracker.handle(job.updates[0], at: job.time)
        #expect(final.map(\.kind) == [.final])
        job.time += 2
        job.progress = 0
        let restart = tracker.handle(job.update(.active, state: "Downloading", remaining: 600), at: job.time)
        #expect(restart.count == 1 && restart[0].activityState == "ongoing")
        #expect(tracker.lifecycle == .running)
        #expect(tracker.tick(at: job.time + 10).allSatisfy { $0.kind != .end })
    }

    /// A tracker that has handled every update of `job`.
    func tracking(_ job: Trajectory) -> ActivityTracker {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        for update in job.updates { _ = tracker.handle(update, at: update.observedAt!) }
        return tracker
    }

    /// A tracker that has handled every update of `job`, each frame delivered as it was decided,
    /// and those frames.
    func delivering(_ job: Trajectory) -> (ActivityTracker, [ActivityFrame]) {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var frames: [ActivityFrame] = []
        for update in job.updates { frames += tracker.handle(update, at: update.observedAt!) }
        for frame in frames { tracker.acknowledge(frame, appliedAt: frame.time) }
        return (tracker, frames)
    }

    /// `tracker` as a restarted bridge loads it: its snapshot written as JSON and read back.
    func restarted(_ tracker: ActivityTracker) throws -> ActivityTracker {
        let snapshot = JSONWriter.string(tracker.snapshot)
        return try #require(
            ActivityTracker(snapshot: try JSONParser.parse(snapshot), model: .interpolating, settings: settings))
    }

    @Test("a restart mid-job resumes without a re-seed, and the end still arrives")
    func resumeFromSnapshot() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 1200)
        let split = job.updates.count
        job.run(rate: 1.0 / 3600, for: 60)
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var frames: [ActivityFrame] = []
        for update in job.updates[..<split] { frames += tracker.handle(update, at: update.observedAt!) }
        // Delivered before the restart (delivery acknowledges each frame).
        for frame in frames { tracker.acknowledge(frame, appliedAt: frame.time) }
        var restored = try restarted(tracker)
        #expect(restored.lifecycle == .running)
        var after: [ActivityFrame] = []
        for update in job.updates[split...] { after += restored.handle(update, at: update.observedAt!) }
        #expect(after.isEmpty)
        job.updates = []
        job.end()
        let end = restored.handle(job.updates[0], at: job.time)
        #expect(end.map(\.kind) == [.final])
        #expect(restored.tick(at: job.time + settings.endDisplay).map(\.kind) == [.end])
    }

    @Test("a damaged snapshot's numbers (10³⁰⁰ seconds, a sequence at Int64.max) read as missing; the job runs on")
    func damagedSnapshot() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 600)
        var members = try #require(tracking(job).snapshot.objectValue)
        for key in ["staleTTL", "lastPushAt", "endDue", "startedAt", "lifecycleStartedAt", "observationGap"] {
            members[key] = .number(1e300)
        }
        members["sequence"] = .int(Int64.max)
        members["delivered"] = .int(Int64.min)
        members["truth"] = ["time": .number(job.time), "progress": .number(job.progress), "finish": .number(1e300)]
        var restored = try #require(
            ActivityTracker(
                snapshot: try JSONParser.parse(JSONWriter.string(.object(members))), model: .interpolating,
                settings: settings))
        #expect(restored.currentStaleTTL == 0 && restored.truth?.finish == nil)
        #expect(restored.observationGap == nil)
        // A gap of no length or less reads as missing too.
        members["observationGap"] = .number(-5)
        let negative = try #require(
            ActivityTracker(
                snapshot: try JSONParser.parse(JSONWriter.string(.object(members))), model: .interpolating,
                settings: settings))
        #expect(negative.observationGap == nil)
        job.updates = []
        job.run(rate: 1.0 / 60, for: 30)
        var frames: [ActivityFrame] = []
        for update in job.updates { frames += restored.handle(update, at: update.observedAt!) }
        frames += restored.tick(at: job.time + 60)
        #expect(!frames.isEmpty, "the faster pace is pushed")
        #expect(frames.allSatisfy { $0.sequence > 0 && $0.sequence < 1 << 53 })
        #expect(frames.allSatisfy { ($0.content["end_date"]?.doubleValue ?? 0) < job.time + 86_400 })
    }

    @Test("a progress that holds (post-processing) is restored as holding after a restart")
    func holdsFromSnapshot() throws {
        var job = Trajectory()
        job.run(rate: 1.0 / 3600, for: 120)
        var tracker = tracking(job)
        var processing = job.update(.active, state: "Queued for processing", remaining: nil)
        processing.progressHolds = true
        _ = tracker.handle(processing, at: job.time)
        #expect(tracker.truth?.holds == true)
        let restored = try restarted(tracker)
        #expect(restored.truth?.holds == true)
        #expect(restored.truth?.progress == tracker.truth?.progress)
    }

    /// A two-minute job at a steady speed whose card text changes 15 s before its end (a
    /// download's last articles verified): that push's glide is a tail aimed at the finish and one
    /// poll, so the job is on track to end, seen a poll after its finish, within the last
    /// `deadlineLead` before its `end_date`, with more than ε left to go.
    func tailOnTrack() throws -> ActivityTracker {
        var job = Trajectory()
        job.run(rate: 1.0 / 120, for: 105)
        job.run(rate: 1.0 / 120, for: 6, state: "Verifying")
        let (tracker, frames) = delivering(job)
        #expect(frames.last?.content["state"]?.stringValue == "Verifying")
        let anchor = try #require(tracker.anchor)
        #expect(1 - anchor.progress > settings.maxDisplayError, "pushed at \(anchor.progress)")
        return tracker
    }

    @Test("a restart restores whether the job is on track: no deadline re-anchor before the next observation")
    func onTrackFromSnapshot() throws {
        let tracker = try tailOnTrack()
        let endDate = try #require(tracker.anchor?.endDate)
        let deadline = try #require(tracker.nextDeadline)
        #expect(deadline > endDate, "the deadline re-anchor at \(deadline - endDate) s from end_date")
        let restored = try restarted(tracker)
        #expect(restored.nextDeadline == deadline)
    }

    @Test(
        "a job estimated to end well before its end_date keeps its re-anchor there: when its source falls silent, the bar is re-anchored on the last count, not left to fall back to its pushed progress"
    )
    func silentSourceGetsItsDeadline() throws {
        // A 20-minute job at a steady speed: its glide's end_date lies past the finish (the pad).
        var job = Trajectory()
        job.run(rate: 1.0 / 1200, for: 600)
        var (tracker, _) = delivering(job)
        let before = try #require(tracker.anchor)
        let endDate = try #require(before.endDate)
        let last = try #require(job.updates.last?.progress)
        // Once `end_date` passes, that glide falls back to its pushed progress, far below the count.
        #expect(last - before.shown(at: endDate, model: .interpolating) > settings.maxDisplayError)
        let deadline = try #require(tracker.nextDeadline)
        #expect(deadline == endDate - settings.deadlineLead)
        // Nothing more comes from the source: the re-anchor goes out at its deadline, from the
        // last count the source reported.
        let ticked = tracker.tick(at: deadline)
        #expect(ticked.map(\.reason) == [.deadline])
        let pushed = try #require(ticked.first?.content["progress"]?.doubleValue)
        #expect(abs(pushed - last) <= settings.maxDisplayError, "pushed \(pushed), last count \(last)")
        for frame in ticked { tracker.acknowledge(frame, appliedAt: frame.time) }
        let after = try #require(tracker.anchor)
        #expect(abs(after.shown(at: endDate, model: .interpolating) - last) <= settings.maxDisplayError)
    }

    @Test("volatile details never trigger a push on their own")
    func detailsDoNotPush() {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        var pushes = 0
        var time = job.start
        for step in 0..<200 {
            var update = job.update(.active, state: "Downloading", remaining: 7200 - Double(step) * 3)
            update.details.subtitle = .value("ubuntu.iso · \(10 + step % 7) MB/s")
            update.observedAt = time
            pushes += tracker.handle(update, at: time).count
            time += 3
            job.progress += 3.0 / 7200
        }
        #expect(pushes == 1)
    }

    @Test("a static display model pushes on progress error without end_date interpolation")
    func staticModel() {
        var job = Trajectory()
        job.runToEnd(rate: 1.0 / 3600)
        job.end()
        let result = EconomySimulation(model: .static, settings: settings).run(job.updates)
        #expect(!result.pushes.contains { $0.frame.patch["live_progress"] == true })
        #expect(result.maxError <= settings.staticMaxDisplayError + 0.011)
        #expect(result.totalPushes > 10)
    }

    @Test("heartbeats keep a paused activity alive before stale_ttl")
    func heartbeat() throws {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        job.progress = 0.3
        let seed = tracker.handle(job.update(.paused, state: "Paused", remaining: nil), at: job.time)
        let stale = try #require(seed.first?.ttls.stale)
        let deadline = try #require(tracker.nextDeadline)
        #expect(deadline > job.time && deadline < job.time + Double(stale))
        let beat = tracker.tick(at: deadline)
        #expect(beat.map(\.reason) == [.heartbeat])
        #expect(beat.first?.patch["progress"] == 0.3)
    }

    /// A job's first report under `budget`, and the seed it gives once its wait for the pace is
    /// over (under a budget a seed waits even with an estimate: `startWait`); `job`'s clock moves on
    /// to when the seed left.
    static func seedUnderBudget(
        _ tracker: inout ActivityTracker, _ job: inout Trajectory, remaining: Double = 600, budget: BudgetPressure
    ) -> [ActivityFrame] {
        let first = job.time
        #expect(
            tracker.handle(job.update(.active, state: "Downloading", remaining: remaining), at: first, budget: budget)
                .isEmpty, "under a budget the seed waits for its pace")
        guard let due = tracker.nextDeadline else { return [] }
        #expect(due == first + EconomySettings().startWait)
        job.time = due
        return tracker.tick(at: due, budget: budget)
    }

    @Test(
        "an exhausted budget lets only starts, ends, pauses and resumes through, all of them counted with what the reserve keeps room for"
    )
    func exhaustedBudget() {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        let exhausted = BudgetPressure(widening: 3, exhausted: true)
        let seed = Self.seedUnderBudget(&tracker, &job, budget: exhausted)
        #expect(seed.count == 1 && seed.allSatisfy(BudgetLedger.isEssential))
        // The bar far behind the truth: no correction goes out.
        job.time += 3
        job.progress = 0.5
        #expect(
            tracker.handle(job.update(.active, state: "Downloading", remaining: 300), at: job.time, budget: exhausted)
                .isEmpty)
        // A pause shows (the gliding bar would run on to its end_date and fall back), and so does
        // the resume.
        job.time += 3
        let paused = tracker.handle(
            job.update(.paused, state: "Paused", remaining: nil), at: job.time, budget: exhausted)
        #expect(
            paused.map(\.reason) == [.structural] && paused.allSatisfy(BudgetLedger.isEssential),
            "\(paused.map(\.reason))")
        #expect(paused.first?.content["end_date"] == nil)
        job.time += 60
        let resumed = tracker.handle(
            job.update(.active, state: "Downloading", remaining: 300), at: job.time, budget: exhausted)
        #expect(
            resumed.map(\.reason) == [.structural] && resumed.allSatisfy(BudgetLedger.isEssential),
            "\(resumed.map(\.reason))")
        job.end()
        let end = tracker.handle(job.updates[0], at: job.time + 1, budget: exhausted)
        #expect(end.count == 1 && end.allSatisfy(BudgetLedger.isEssential))
    }

    @Test(
        "under an exhausted budget a job running past its end_date is re-anchored once, counted with the reserve's starts and ends; later deadlines are held back"
    )
    func exhaustedDeadline() throws {
        func deadlines(essential allowed: Int) throws -> [ActivityFrame] {
            var settings = self.settings
            settings.essentialDeadlines = allowed
            var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
            var job = Trajectory()
            let exhausted = BudgetPressure(widening: 3, exhausted: true)
            var frames = Self.seedUnderBudget(&tracker, &job, remaining: 600, budget: exhausted)
            // Ten minutes' pace for two minutes, then a third of it, then a tenth: the job runs
            // past each end_date its glides aim at.
            job.run(rate: 1.0 / 600, for: 120)
            job.run(rate: 1.0 / 1800, for: 900)
            job.run(rate: 1.0 / 6000, for: 1800)
            for update in job.updates {
                let at = try #require(update.observedAt)
                while let due = tracker.nextDeadline, due <= at {
                    let ticked = tracker.tick(at: due, budget: exhausted)
                    frames += ticked
                    if ticked.isEmpty, tracker.nextDeadline == due { break }
                }
                frames += tracker.handle(update, at: at, budget: exhausted)
            }
            return frames.filter { $0.reason == .deadline }
        }
        let once = try deadlines(essential: 1)
        #expect(once.count == 1, "\(once.map(\.time))")
        #expect(once.allSatisfy(BudgetLedger.isEssential))
        // The re-anchor puts the bar on the count (it would otherwise fall back to the seed's).
        let frame = try #require(once.first)
        let count = try #require(frame.truthProgress)
        let pushed = try #require(frame.content["progress"]?.doubleValue)
        #expect(abs(pushed - count) <= settings.maxDisplayError, "pushed \(pushed), count \(count)")
        #expect(try deadlines(essential: 0).isEmpty)
        // The job outruns its second glide too: with room for more, that one would go out.
        #expect(try deadlines(essential: 3).count > 1)
    }

    @Test("under an exhausted budget a job flapping between paused and running shows its first pauses, not every one")
    func pauseFlapping() {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        let exhausted = BudgetPressure(widening: 3, exhausted: true)
        var essential = 0
        var pushed = 0
        for frame in Self.seedUnderBudget(&tracker, &job, budget: exhausted) {
            pushed += 1
            if BudgetLedger.isEssential(frame) { essential += 1 }
        }
        // Twenty pauses of 20 s, a minute apart.
        for _ in 0..<20 {
            job.time += 60
            job.progress += 0.02
            for frame in tracker.handle(
                job.update(.paused, state: "Paused", remaining: nil), at: job.time, budget: exhausted)
            {
                pushed += 1
                if BudgetLedger.isEssential(frame) { essential += 1 }
            }
            job.time += 20
            for frame in tracker.handle(
                job.update(.active, state: "Downloading", remaining: 300), at: job.time, budget: exhausted)
            {
                pushed += 1
                if BudgetLedger.isEssential(frame) { essential += 1 }
            }
        }
        // The seed, and each of the first `essentialPauses` pauses with its resume; nothing else.
        let expected = 1 + 2 * settings.essentialPauses
        #expect(pushed == expected, "\(pushed) pushes")
        #expect(essential == expected, "\(essential) essential")
    }

    @Test(
        "a job that used its share of the month's budget gets no more corrections; its pause and heartbeat still go out"
    )
    func jobAllowance() throws {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        let share = BudgetPressure(widening: 0.05 / 0.03, exhausted: false, jobAllowance: 1)
        var reasons: [PushReason] = []
        reasons += Self.seedUnderBudget(&tracker, &job, remaining: 100, budget: share).map(\.reason)
        #expect(reasons == [.start], "\(reasons)")
        // The server slows to a third: the bar runs ahead of the truth, again and again.
        for _ in 0..<120 {
            job.time += 2
            job.progress = min(0.9, job.progress + 0.01 / 3)
            reasons += tracker.handle(
                job.update(.active, state: "Downloading", remaining: 3 * (1 - job.progress) * 100), at: job.time,
                budget: share
            ).map(\.reason)
        }
        let corrections = reasons.filter { $0 == .displayError || $0 == .etaMoved || $0 == .deadline }
        #expect(corrections.count == 1, "\(reasons)")
        job.time += 2
        let paused = tracker.handle(job.update(.paused, state: "Paused", remaining: nil), at: job.time, budget: share)
        #expect(paused.map(\.reason) == [.structural], "\(paused.map(\.reason))")
        // Paused for hours: the heartbeat that keeps the activity from going stale still goes out,
        // on the next report after it is due.
        job.time = try #require(tracker.nextDeadline) + 1
        let beat = tracker.handle(job.update(.paused, state: "Paused", remaining: nil), at: job.time, budget: share)
        #expect(beat.map(\.reason) == [.heartbeat], "\(beat.map(\.reason))")
    }

    @Test(
        "under a monthly budget a new card text waits while it would leave the job's share no correction, or while the month runs hot, and rides along with the next push"
    )
    func cardTextKeepsCorrection() throws {
        // (the job's share, the month's projection, whether the text waits)
        let cases: [(allowance: Int, projection: Double, waits: Bool)] = [
            (1, 0, true), (2, 0, false), (3, settings.labelDeferralWidening, true),
        ]
        for (allowance, projection, waits) in cases {
            var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
            var job = Trajectory()
            let share = BudgetPressure(
                widening: 0.05 / 0.03, exhausted: false, jobAllowance: allowance, projection: projection)
            let seed = Self.seedUnderBudget(&tracker, &job, remaining: 100, budget: share)
            #expect(seed.map(\.reason) == [.start], "\(seed.map(\.reason))")
            // On the pace its seed glides at, then the text changes ("Verifying").
            job.progress = 0.1
            var frames: [ActivityFrame] = []
            for _ in 0..<5 {
                job.time += 2
                job.progress += 0.02
                frames += tracker.handle(
                    job.update(.active, state: "Verifying", remaining: (1 - job.progress) * 100), at: job.time,
                    budget: share)
            }
            if waits {
                #expect(frames.isEmpty, "share \(allowance), projection \(projection): \(frames.map(\.reason))")
            } else {
                #expect(frames.map(\.reason) == [.structural], "\(frames.map(\.reason))")
                #expect(frames.first?.content["state"]?.stringValue == "Verifying")
                continue
            }
            // The server slows to a third: the correction carries the text that waited (one made
            // ahead of the bar's drift leaves a coalescing window later).
            var correction: ActivityFrame?
            for _ in 0..<60 where correction == nil {
                job.time += 2
                job.progress = min(0.9, job.progress + 0.02 / 3)
                correction =
                    tracker.handle(
                        job.update(.active, state: "Verifying", remaining: 3 * (1 - job.progress) * 100), at: job.time,
                        budget: share
                    ).first
                if correction == nil, let due = tracker.nextDeadline, due <= job.time + settings.coalesceWindow {
                    correction = tracker.tick(at: due, budget: share).first
                }
            }
            let pushed = try #require(correction)
            #expect(pushed.reason == .displayError, "\(pushed.reason)")
            #expect(pushed.content["state"]?.stringValue == "Verifying")
        }
    }

    @Test("a card text that waited under a monthly budget goes out with the re-anchor before `end_date`")
    func waitingTextRidesDeadline() throws {
        var tracker = ActivityTracker(slug: "job", model: .interpolating, settings: settings)
        var job = Trajectory()
        let share = BudgetPressure(widening: 0.05 / 0.03, exhausted: false, jobAllowance: 1)
        _ = Self.seedUnderBudget(&tracker, &job, remaining: 100, budget: share)
        // A little slower than the glide (within the budget's tolerance), the text changing early.
        let rate = 0.0097
        job.progress = rate * (job.time - job.start)
        var frames: [ActivityFrame] = []
        while frames.isEmpty, job.time < job.start + 130 {
            let next = job.time + 2
            if let due = tracker.nextDeadline, due <= next {
                job.time = due
                frames = tracker.tick(at: due, budget: share)
                continue
            }
            job.time = next
            job.progress = min(1, rate * (job.time - job.start))
            frames = tracker.handle(
                job.update(.active, state: "Verifying", remaining: (1 - job.progress) / rate), at: job.time,
                budget: share)
        }
        #expect(frames.map(\.reason) == [.deadline], "\(frames.map(\.reason)) at \(job.time - job.start)")
        #expect(frames.first?.content["state"]?.stringValue == "Verifying")
    }

    @Test("under a monthly budget a job with neither bar nor countdown keeps no correction: its new card text goes out")
    func cardTextWithoutBar() throws {
        var tracker = ActivityTracker(slug: "plug", model: .interpolating, settings: settings)
        let share = BudgetPressure(widening: 0.05 / 0.03, exhausted: false, jobAllowance: 1)
        let start = 1_781_517_600.0
        func plug(_ state: String) -> ActivityUpdate {
            ActivityUpdate(
                slug: "plug", name: "Washer", phase: .active, content: GenericContent(state: state, icon: "bolt"),
                progress: nil, eta: nil, observedAt: start)
        }
        var frames = tracker.handle(plug("Running"), at: start, budget: share)
        if frames.isEmpty, let due = tracker.nextDeadline { frames = tracker.tick(at: due, budget: share) }
        #expect(frames.map(\.kind) == [.seed], "\(frames.map(\.kind))")
        let now = start + 120
        var text = plug("Soaking")
        text.observedAt = now
        let soaking = tracker.handle(text, at: now, budget: share)
        #expect(soaking.map(\.reason) == [.structural], "\(soaking.map(\.reason))")
        #expect(soaking.first?.content["state"]?.stringValue == "Soaking")
    }

    @Test("an absolute finish time is used as end_date, `fixedFinishPad` late")
    func absoluteFinish() throws {
        var tracker = ActivityTracker(slug: "timer", model: .interpolating, settings: settings)
        let update = ActivityUpdate(
            slug: "timer", name: "Washer", phase: .active, content: GenericContent(state: "Washing"), progress: 0.25,
            eta: .finishesAt(1_781_519_400), observedAt: 1_781_517_600)
        let frames = tracker.handle(update, at: 1_781_517_600)
        #expect(frames.first?.patch["end_date"] == .int(1_781_519_400 + Int64(settings.fixedFinishPad)))
    }
}
