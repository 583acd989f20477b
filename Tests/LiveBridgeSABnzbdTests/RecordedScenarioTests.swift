import LiveBridgeCore
import LiveBridgeSABnzbd
import Testing

/// The pure mapping over every recorded scenario: phases, texts, summary, progress and timing.
@Suite("Recorded scenarios through the session mapping")
struct RecordedScenarioTests {
    static let settings = SABnzbdMapperSettings(slug: "sabnzbd-home", name: "SABnzbd (home)")

    /// The updates for a recording with `t` relative to its first line.
    func replay(_ path: String, settings: SABnzbdMapperSettings = Self.settings) throws -> [ActivityUpdate] {
        try Fixtures.replay(path, settings: settings)
    }

    /// Splits updates into sessions (each ends with an `.ended` update, the last may be open).
    func sessions(_ updates: [ActivityUpdate]) -> [[ActivityUpdate]] {
        var result: [[ActivityUpdate]] = [[]]
        for update in updates {
            result[result.count - 1].append(update)
            if update.isEnd { result.append([]) }
        }
        return result.filter { !$0.isEmpty }
    }

    func expectMonotonic(_ updates: [ActivityUpdate], sourceLocation: SourceLocation = #_sourceLocation) {
        for session in sessions(updates) {
            let values = session.compactMap(\.progress)
            for (before, after) in zip(values, values.dropFirst()) where after < before - 1e-9 {
                Issue.record("progress went backwards: \(before) → \(after)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("a-steady: one job downloads and completes; the summary uses SABnzbd's own figures")
    func steady() throws {
        let updates = try replay("a-steady/raw.jsonl")
        #expect(updates.stateSequence == ["Downloading", "Complete"])
        let first = try #require(updates.first)
        // The 0.5 s "Idle with slots" at the start is neither shown nor taken for done, and the
        // seed waits for the second speed sample so that it already carries the finish time.
        #expect(abs((first.observedAt ?? 0) - 1.001) < 0.01 && first.stateText == "Downloading")
        #expect(first.progress == 0 && first.eta != nil)
        #expect(first.subtitleText == "Steady.Job.A")
        #expect(first.details.subtitle.value?.hasPrefix("Steady.Job.A · ") == true)
        #expect(first.details.subtitle.value?.hasSuffix("KB/s") == true)
        let end = try #require(updates.last)
        #expect(end.phase == .ended(.success))
        #expect(end.stateText == "Complete" && end.content.accentColor.value == "green")
        #expect(end.subtitleText == "1 job · 62 MB · 1.0 MB/s avg")
        #expect(end.details == GenericContent())
        // Completed at t=62.52; ends two polls later.
        #expect(abs((end.observedAt ?? 0) - 63.52) < 0.01)
        expectMonotonic(updates)
        #expect(updates.allSatisfy { $0.slug == "sabnzbd-home" && $0.name == "SABnzbd (home)" })
    }

    @Test("a-steady: the remaining time comes from bytes left and a smoothed rate, close to the real finish")
    func steadyETA() throws {
        let updates = try replay("a-steady/raw.jsonl")
        let finish = 62.52
        let measured = updates.filter { ($0.observedAt ?? 0) >= 10 && ($0.observedAt ?? 0) <= 55 }
        #expect(!measured.isEmpty)
        for update in measured {
            let predicted = try #require(update.finishTime, "no ETA at \(update.observedAt ?? 0)")
            #expect(abs(predicted - finish) < 4, "at \(update.observedAt ?? 0): finish \(predicted)")
        }
    }

    @Test("c-two-jobs: X/Y counter, job switch without going backwards, post-processing, two-job summary")
    func twoJobs() throws {
        let updates = try replay("c-two-jobs/raw.jsonl")
        #expect(updates.stateSequence == ["Downloading", "Queued for processing", "Complete"])
        let subtitles = updates.filter { !$0.isEnd }.map(\.subtitleText)
        #expect(subtitles.first == "1/2 · First.Job.C1")
        #expect(subtitles.contains("2/2 · Second.Job.C2"))
        // Job 2 was added 1 s in: the session counts both from then on.
        let switchUpdate = try #require(updates.first { $0.subtitleText == "2/2 · Second.Job.C2" })
        #expect((switchUpdate.progress ?? 0) > 0.45 && (switchUpdate.progress ?? 0) < 0.55)
        let processing = try #require(updates.first { $0.stateText == "Queued for processing" })
        #expect(processing.content.accentColor.value == "purple" && processing.progress == 1)
        // Post-processing moves no byte: its progress holds; a download's moves on.
        let processingHolds = updates.filter { $0.stateText == "Queued for processing" }.allSatisfy { $0.progressHolds }
        let downloadMoves = updates.filter { $0.stateText == "Downloading" }.allSatisfy { !$0.progressHolds }
        #expect(processingHolds && downloadMoves)
        let end = try #require(updates.last)
        #expect(end.phase == .ended(.success) && end.subtitleText == "2 jobs · 62 MB · 1.0 MB/s avg")
        expectMonotonic(updates)
    }

    @Test("d-pause-resume: a global pause holds the bar without an ETA, and is not completion")
    func pauseResume() throws {
        let updates = try replay("d-pause-resume/raw.jsonl")
        #expect(updates.stateSequence == ["Downloading", "Paused", "Downloading", "Complete"])
        let paused = updates.filter { $0.stateText == "Paused" }
        #expect(!paused.isEmpty)
        #expect(paused.allSatisfy { $0.phase == .paused && $0.eta == nil })
        #expect(paused.allSatisfy { abs(($0.progress ?? 0) - 0.3173) < 0.01 })
        let pausedAt = try #require(paused.first?.observedAt)
        #expect(abs(pausedAt - 23.0) < 0.1)
        // The first sample after the resume: SABnzbd's speed meter is warming up (its timeleft
        // runs long), so the remaining time comes from the rate before the pause, 1 MiB/s.
        let resumed = try #require(updates.first { $0.stateText == "Downloading" && ($0.observedAt ?? 0) > pausedAt })
        let resumedAt = try #require(resumed.observedAt)
        let left = try #require(resumed.eta.map { $0.finish(observedAt: resumedAt) - resumedAt })
        let expected = (1 - (resumed.progress ?? 0)) * 61.92
        #expect(abs(left - expected) < 0.1 * expected, "\(left) s left, \(expected) s at 1 MiB/s")
        let end = try #require(updates.last)
        // SABnzbd's download_time (62 s) excludes the 20 s pause.
        #expect(end.phase == .ended(.success) && end.subtitleText == "1 job · 62 MB · 1.0 MB/s avg")
        expectMonotonic(updates)
    }

    @Test("f-failed: a job with every article missing goes red with SABnzbd's fail message")
    func failed() throws {
        let updates = try replay("f-failed/raw.jsonl")
        #expect(updates.stateSequence == ["Queued for processing", "Failed"])
        let doomed = try #require(updates.first)
        #expect(
            doomed.details.subtitle.value
                == "Failed.Job.F · Aborted, cannot be completed - https://sabnzbd.org/not-complete")
        let end = try #require(updates.last)
        #expect(end.phase == .ended(.failure))
        #expect(end.content.accentColor.value == "red" && end.content.icon.value == "xmark.octagon.fill")
        #expect(end.subtitleText == "Aborted, cannot be completed - https://sabnzbd.org/not-complete")
        // Nothing was fetched: the bar does not claim otherwise.
        #expect(end.progress == 0)
    }

    @Test(
        "b-speedchange, two samples: once the server halves its speed, the third correction at most carries the new pace",
        arguments: ["b-speedchange", "b-speedchange-80mib"])
    func rateHalved(_ folder: String) throws {
        // Where the scenario halved the server's rate (the driver's own record).
        let events = try Fixtures.lines("\(folder)/events.jsonl").map { try JSONParser.parse($0) }
        let change = try #require(events.first { $0["event"]?.stringValue == "rate" }?["at_progress"]?.doubleValue)
        let simulated = try EconomyFigureTests.figures("\(folder)/raw.jsonl", pollInterval: 0)
        let complete = try #require(simulated.pushes.first { $0.frame.content["state"]?.stringValue == "Complete" })
        // The pushes while the download runs at its new speed, before its last few percent.
        let after = simulated.pushes.filter {
            $0.frame.kind == .update && $0.frame.content["state"]?.stringValue == "Downloading"
                && ($0.frame.content["progress"]?.doubleValue ?? 0) >= change
                && ($0.frame.content["progress"]?.doubleValue ?? 1) < 0.95
        }
        // Each correction that kept the old pace's `end_date` was off again a second or two
        // later: four of them before the pace restarted at the change.
        #expect(!after.isEmpty && after.count <= 3, "\(after.map(\.time))")
        // The last one counts down to when the download really finished.
        let last = try #require(after.last)
        let endDate = try #require(last.frame.content["end_date"]?.doubleValue)
        #expect(last.frame.content["live_progress"]?.boolValue == true)
        #expect(abs(endDate - complete.time) <= 0.15 * (complete.time - last.time), "\(endDate) vs \(complete.time)")
    }

    @Test("g-unrepairable-early: a job SABnzbd aborts half way holds its bar; the failed card never glides")
    func abortedHalfWay() throws {
        let updates = try replay("g-unrepairable-early/raw.jsonl")
        #expect(updates.stateSequence == ["Downloading", "Queued for processing", "Failed"])
        let downloaded = try #require(updates.last { $0.stateText == "Downloading" }?.progress)
        #expect(downloaded > 0.5 && downloaded < 0.7, "SABnzbd gave up at \(downloaded)")
        let after = updates.drop { $0.stateText == "Downloading" }
        #expect(after.count >= 2)
        // Nothing moves once SABnzbd gave up: the progress stands where the download left it.
        #expect(after.allSatisfy { $0.progressHolds || $0.isEnd })
        #expect(after.allSatisfy { abs(($0.progress ?? -1) - downloaded) < 1e-9 })
        #expect(updates.last?.phase == .ended(.failure))
        expectMonotonic(updates)
        // Through the tracker: the failed card stands still (no countdown, no glide to 100 %).
        let simulated = try EconomyFigureTests.figures("g-unrepairable-early/raw.jsonl", pollInterval: 0)
        let failed = simulated.pushes.filter { $0.frame.content["state"]?.stringValue == "Failed" }
        #expect(!failed.isEmpty)
        for push in failed {
            #expect(push.frame.content["live_progress"]?.boolValue != true, "\(push.frame.content)")
        }
    }

    @Test("5.0 run 2: post-processing stages with action_line details; a mixed session says so")
    func postProcessingStages() throws {
        let updates = try replay("sab5-samples/run2.jsonl")
        let all = sessions(updates)
        #expect(all.count == 2)
        // A 4.8 MB job done within the start grace: created and ended at once, with its result.
        #expect(all[0].stateSequence == ["Complete"])
        #expect(all[0].first?.phase == .active && all[0].last?.phase == .ended(.success))
        #expect(all[0].filter(\.phase.isEnded).count == 1)
        #expect(all[0].last?.subtitleText == "1 job · 4.8 MB · 4.8 MB/s avg")
        #expect(
            all[1].stateSequence == [
                "Downloading", "Queued for processing", "Verifying", "Repairing", "Running script", "1 of 2 failed",
            ])
        let repairing = all[1].filter { $0.stateText == "Repairing" }.compactMap(\.details.subtitle.value)
        #expect(repairing.contains("1/2 · Broken.Job.C · Repairing: 50%"))
        #expect(all[1].contains { $0.details.subtitle.value == "1/2 · Broken.Job.C · Running script: slow.sh" })
        let end = try #require(all[1].last)
        #expect(end.phase == .ended(.failure) && end.content.accentColor.value == "orange")
        #expect(
            end.subtitleText
                == "1 job · 22 MB · 3.2 MB/s avg · unpack 6s · Failed.Job.D failed: Aborted, cannot be completed - "
                + "https://sabnzbd.org/not-complete")
        // The history's old jobs at the start are not part of any session.
        #expect(!updates.contains { $0.subtitleText.contains("Job.A") })
        expectMonotonic(updates)
    }

    @Test("5.0 run 3: propagation, pauses, a job paused on its own, extraction; three-job summary")
    func propagationAndExtraction() throws {
        let updates = try replay("sab5-samples/run3.jsonl")
        #expect(
            updates.stateSequence == [
                "Waiting for propagation", "Paused", "Waiting for propagation", "Downloading",
                "Waiting for propagation",
                "Waiting", "Downloading", "Extracting", "Waiting for propagation", "Verifying", "Complete",
            ])
        // Propagation is waiting, not done: the bar stays where it is and there is no ETA.
        let propagating = updates.filter { $0.stateText == "Waiting for propagation" }
        #expect(propagating.allSatisfy { $0.eta == nil && ($0.progress ?? 1) < 1 })
        #expect(propagating.first?.details.subtitle.value == "Prop.Job.E2 · PROPAGATING 1 min")
        let extracting = try #require(updates.first { $0.stateText == "Extracting" })
        #expect(extracting.details.subtitle.value == "3/3 · Extract.Job.F · Unpacking: Extract.Job")
        let end = try #require(updates.last)
        #expect(end.phase == .ended(.success) && end.subtitleText == "3 jobs · 175 MB · 29 MB/s avg · unpack 4s")
        expectMonotonic(updates)
    }

    @Test("4.5 run: the downloading job is found below a propagating one at slots[0]")
    func activeJobIsNotSlotZero() throws {
        let updates = try replay("sab5-samples/run45.jsonl")
        let first = try #require(updates.first)
        #expect(first.stateText == "Downloading" && first.subtitleText == "2/2 · Second.Job.B")
        #expect(first.eta == nil, "a propagating job in the session means no honest finish time")
        #expect(
            updates.contains { $0.stateText == "Waiting for propagation" && $0.subtitleText == "1/2 · Prop.Job.E3" })
        expectMonotonic(updates)
    }

    @Test(
        "every recording: valid content, the slug and name throughout, observedAt set", arguments: Fixtures.recordings)
    func wellFormed(path: String) throws {
        let updates = try replay(path)
        #expect(!updates.isEmpty)
        for update in updates {
            #expect(throws: Never.self) { try update.content.validateAsCard(progress: update.progress ?? 0) }
            #expect(update.observedAt != nil && update.slug == "sabnzbd-home")
            #expect((0...1).contains(update.progress ?? 0))
        }
        expectMonotonic(updates)
    }

    @Test("replaying at a 3 s poll interval keeps the phases and the summary")
    func coarsePolling() throws {
        for (path, summary) in [
            ("a-steady/raw.jsonl", "1 job · 62 MB · 1.0 MB/s avg"),
            ("c-two-jobs/raw.jsonl", "2 jobs · 62 MB · 1.0 MB/s avg"),
            ("d-pause-resume/raw.jsonl", "1 job · 62 MB · 1.0 MB/s avg"),
        ] {
            let updates = try Fixtures.replay(path, settings: Self.settings, pollInterval: 3)
            let end = try #require(updates.last, "\(path)")
            #expect(end.phase == .ended(.success) && end.subtitleText == summary, "\(path)")
            expectMonotonic(updates)
        }
    }
}
