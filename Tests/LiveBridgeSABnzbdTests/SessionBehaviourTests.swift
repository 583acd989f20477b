import LiveBridgeCore
import LiveBridgeSABnzbd
import Testing

/// The session mapping on hand-made answers: each pitfall of a real SABnzbd, one test.
@Suite("Session mapping behaviours")
struct SessionBehaviourTests {
    var session = SABnzbdMapper(settings: SABnzbdMapperSettings(slug: "sabnzbd-home", name: "SABnzbd (home)"))
    var time = 1_000_000.0

    /// Feeds one poll `seconds` after the previous one.
    mutating func poll(
        _ queue: SABnzbdQueue, _ history: SABnzbdHistory? = Make.history([]), after seconds: Double = 3
    ) -> [ActivityUpdate] {
        time += seconds
        return session.observe(SABnzbdObservation(time: time, queue: queue, history: history))
    }

    /// Job "a" (60 MiB) downloading one 1.5 MiB article a poll, 1.5 s apart, from `left` MiB left.
    mutating func download(_ left: inout Double, polls: Int, kbps: Double) {
        for _ in 0..<polls {
            left -= 1.5
            _ = poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: kbps, timeleft: "0:00:30"), after: 1.5)
        }
    }

    @Test("Idle with slots at a job's start is waiting, never done; held back for the start grace")
    mutating func idleWithSlots() {
        let waiting = Make.queue([Make.slot("a", mb: 100, left: 100)], kbps: 0, timeleft: "0:00:00")
        #expect(poll(waiting, after: 0).isEmpty)
        #expect(poll(waiting, after: 3).isEmpty)
        let shown = poll(waiting, after: 3)
        #expect(shown.count == 1)
        #expect(shown.first?.stateText == "Waiting" && shown.first?.phase == .active && shown.first?.progress == 0)
        #expect(shown.first?.statesFinish == true, "SABnzbd states a `timeleft` once the job has a speed")
        for _ in 0..<5 { #expect(!poll(waiting).contains { $0.isEnd }) }
        #expect(session.isOpen)
    }

    @Test("every answer is an update: a count repeated between its articles is reported as it came, with its time")
    mutating func everyAnswerReported() {
        _ = poll(Make.queue([Make.slot("a", mb: 60, left: 60)], kbps: 1000, timeleft: "0:01:00"), after: 0)
        var left = 60.0
        download(&left, polls: 4, kbps: 1000)
        // Three polls between two articles: the same count, three observations (the policy reads a
        // staircase from the repeats; a filter here would hide the flat stretch it is judged on).
        var repeats: [ActivityUpdate] = []
        for _ in 0..<3 {
            repeats += poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 1000, timeleft: "0:00:40"), after: 1)
        }
        #expect(repeats.count == 3, "\(repeats.map(\.progress))")
        #expect(Set(repeats.compactMap(\.progress)).count == 1)
        #expect(repeats.compactMap(\.observedAt) == [time - 2, time - 1, time])
    }

    @Test("a job paused on its own drops out of the queue totals but is not completion")
    mutating func jobPause() {
        _ = poll(Make.queue([Make.slot("a", mb: 100, left: 60)]), after: 0)
        _ = poll(Make.queue([Make.slot("a", mb: 100, left: 50)]))
        // SABnzbd: slot Paused, queue mb/mbleft 0.00, speed decaying.
        var paused = Make.queue([Make.slot("a", status: "Paused", mb: 100, left: 50)], kbps: 300)
        paused.totalBytes = 0
        paused.remainingBytes = 0
        for _ in 0..<20 {
            let updates = poll(paused)
            #expect(!updates.contains { $0.isEnd || $0.stateText == "Complete" })
        }
        let last = poll(paused, after: 40)
        #expect(last.first?.stateText == "Job paused" && last.first?.phase == .paused && last.first?.eta == nil)
        #expect(abs(session.progress - 0.5) < 1e-6)
    }

    @Test("par2 volumes added mid-download and jobs joining never move the bar backwards")
    mutating func neverBackwards() {
        _ = poll(Make.queue([Make.slot("a", mb: 68.96, left: 51.34)]), after: 0)
        let before = session.progress
        // A missing article: SABnzbd queues another par2 volume.
        _ = poll(Make.queue([Make.slot("a", mb: 69.34, left: 51.71)]))
        #expect(session.progress >= before)
        _ = poll(Make.queue([Make.slot("a", mb: 69.34, left: 40)]))
        let mid = session.progress
        #expect(mid > before)
        // A second job joins: the counter changes, the bar does not drop.
        let joined = poll(Make.queue([Make.slot("a", mb: 69.34, left: 38), Make.slot("b", mb: 60, left: 60)]))
        #expect(session.progress >= mid)
        #expect(joined.first?.subtitleText == "1/2 · Job.a")
        // Job a leaves for post-processing, b downloads.
        let switched = poll(
            Make.queue([Make.slot("b", mb: 60, left: 58)]),
            Make.history([Make.done("a", status: "Extracting", mb: 69, loaded: true, actionLine: "Unpacking: Job.a")]))
        #expect(session.progress >= mid)
        #expect(switched.first?.stateText == "Downloading" && switched.first?.subtitleText == "2/2 · Job.b")
        // The bar reaches 1 exactly when the last byte is in.
        _ = poll(
            Make.queue([]),
            Make.history([Make.done("b", status: "Queued", mb: 60), Make.done("a", mb: 69, completed: time)]))
        #expect(session.progress == 1)
    }

    @Test("a job added after everything was downloaded restarts the bar at the byte share, not at full")
    mutating func joinAfterFull() {
        _ = poll(Make.queue([Make.slot("a", mb: 50, left: 10)]), after: 0)
        _ = poll(Make.queue([]), Make.history([Make.done("a", status: "Extracting", mb: 50, loaded: true)]))
        #expect(session.progress == 1)
        let updates = poll(
            Make.queue([Make.slot("b", mb: 50, left: 50)]),
            Make.history([Make.done("a", status: "Extracting", mb: 50, loaded: true)]))
        #expect(abs(session.progress - 0.5) < 1e-6)
        #expect(updates.first?.stateText == "Downloading" && updates.first?.subtitleText == "2/2 · Job.b")
    }

    @Test("a stall is judged by bytes, not status: Stalled after stallAfter, Downloading again when bytes come")
    mutating func stall() {
        _ = poll(Make.queue([Make.slot("a", mb: 100, left: 80)]), after: 0)
        _ = poll(Make.queue([Make.slot("a", mb: 100, left: 70)]))
        var last: [ActivityUpdate] = []
        var speed = 1022.0
        for _ in 0..<21 {
            speed *= 0.8
            last += poll(Make.queue([Make.slot("a", mb: 100, left: 70)], kbps: speed, timeleft: "0:03:37"))
            #expect(!last.contains { $0.isEnd })
        }
        let stalled = last.last
        #expect(stalled?.stateText == "Stalled" && stalled?.phase == .paused && stalled?.eta == nil)
        #expect(stalled?.details.subtitle.value?.contains("no data for 1m") == true)
        let moving = poll(Make.queue([Make.slot("a", mb: 100, left: 60)]))
        #expect(moving.first?.stateText == "Downloading")
    }

    @Test("a job paused while its articles still land says Paused once they stop: one card change, count settled")
    mutating func pauseWhileArticlesLand() {
        var left = 40.0
        download(&left, polls: 8, kbps: 1000)
        // Paused by the user: SABnzbd finishes the three articles it was fetching.
        var states: [String] = []
        for _ in 0..<3 {
            left -= 1.5
            let paused = Make.queue([Make.slot("a", status: "Paused", mb: 60, left: left)], kbps: 1000)
            states += poll(paused, after: 1.5).compactMap(\.stateText)
        }
        #expect(!states.contains("Job paused"), "\(states)")
        // The connections go idle: the meter reads 0.
        let settled = poll(Make.queue([Make.slot("a", status: "Paused", mb: 60, left: left)], kbps: 0), after: 1.5)
        #expect(settled.first?.stateText == "Job paused" && settled.first?.phase == .paused)
        #expect(abs(session.progress - (60 - left) / 60) < 1e-6, "the bar ends on the bytes that landed")
        // A late article after the card says paused does not bring "Downloading" back.
        left -= 0.4
        let late = poll(Make.queue([Make.slot("a", status: "Paused", mb: 60, left: left)], kbps: 0), after: 1.5)
        #expect(late.allSatisfy { $0.stateText == "Job paused" })
    }

    @Test("resumed, the remaining time comes from the rate before the pause, not SABnzbd's warming meter")
    mutating func resumeUsesEarlierRate() {
        var left = 50.0
        download(&left, polls: 10, kbps: 1024)
        for _ in 0..<10 {
            _ = poll(Make.queue([Make.slot("a", mb: 60, left: left)], paused: true, kbps: 0), after: 3)
        }
        // Resumed: the meter starts from 100 KB/s and SABnzbd says ten times too long.
        _ = poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 100, timeleft: "0:06:00"), after: 1)
        _ = poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 300, timeleft: "0:02:00"), after: 1)
        left -= 1.5
        let moving = poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 500, timeleft: "0:01:12"), after: 1)
        let remaining = moving.last?.eta.map { $0.finish(observedAt: time) - time }
        // 1 MiB/s before the pause: `left` MiB in about `left` seconds.
        #expect(remaining.map { abs($0 - left) < 0.2 * left } == true, "\(String(describing: remaining))")
    }

    @Test("a slow download counted in whole articles 90 s apart is not stalled between its steps")
    mutating func slowArticles() {
        // 17 KB/s with 1.5 MB articles: the byte count moves every 90 s, polled every 30 s.
        var left = 60.0
        var states: [String] = []
        _ = poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 17, timeleft: "0:59:00"), after: 0)
        for step in 0..<30 {
            if step % 3 == 2 { left -= 1.5 }
            let updates = poll(
                Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 17, timeleft: "0:58:00"), after: 30)
            states += updates.compactMap(\.stateText)
        }
        #expect(!states.contains("Stalled"), "states: \(states)")
        #expect(session.stallThreshold >= 3 * 90 - 1e-9)
        // Silent for three of its usual gaps: now it is stalled.
        var stalled: [ActivityUpdate] = []
        for _ in 0..<10 {
            stalled += poll(Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 0, timeleft: "0:00:00"), after: 30)
        }
        #expect(stalled.last?.stateText == "Stalled")
    }
    @Test(
        "a slow server's articles landing at uneven times: the finish the session reports holds within a quarter of the time left",
        arguments: [1, 2, 3, 4, 5] as [UInt64])
    mutating func burstyArticlesSteadyFinish(seed: UInt64) {
        // 1.5 MiB articles from a server at 50 KiB/s on a few connections: each lands 10–50 s after
        // the one before (30 s on average, in no fixed order), polled every 3 s.
        let article = 1.5
        let meanWait = article * 1024 / 50
        var left = 60.0
        var generator = SeededWaits(seed: seed)
        var nextArticle = time + generator.wait(around: meanWait)
        var finishes: [(time: Double, finish: Double)] = []
        // SABnzbd's meter counts the bytes as they stream in: 50 KiB/s, whatever the articles do.
        let queue = { (left: Double) in
            Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 50, timeleft: SABnzbdClock.text(left * 1024 / 50))
        }
        _ = poll(queue(left), after: 0)
        while left > 6 {
            if time + 3 >= nextArticle {
                left -= article
                nextArticle += generator.wait(around: meanWait)
            }
            for update in poll(queue(left), after: 3) {
                if let eta = update.eta { finishes.append((time, eta.finish(observedAt: time))) }
            }
        }
        let start = finishes.first?.time ?? time
        var worst = 0.0
        for (earlier, later) in zip(finishes, finishes.dropFirst()) where later.time - start >= 4 * meanWait {
            let timeLeft = max(1, later.finish - later.time)
            worst = max(worst, abs(later.finish - earlier.finish) / timeLeft)
        }
        #expect(worst < 0.25, "the finish jumped by \(worst) of the time left between two reports")
    }

    @Test("a slow download's first two articles seconds apart do not set the finish: SABnzbd's timeleft does")
    mutating func firstArticlesNoRate() {
        // 20 KiB/s on one connection, 1.5 MiB articles: one every ~77 s; the first two land 6 s
        // apart (the connection's first article was half done when the job was added).
        var left = 60.0
        let queue = { (left: Double) in
            Make.queue([Make.slot("a", mb: 60, left: left)], kbps: 20, timeleft: SABnzbdClock.text(left * 1024 / 20))
        }
        _ = poll(queue(left), after: 0)
        for _ in 0..<12 { _ = poll(queue(left), after: 3) }
        left -= 1.5
        _ = poll(queue(left), after: 3)
        left -= 1.5
        _ = poll(queue(left), after: 6)
        let updates = poll(queue(left), after: 3)
        let remaining = updates.last?.eta.map { $0.finish(observedAt: time) - time }
        // The rate of the two articles (1.5 MiB in 6 s) would say 228 s; the meter says 2918 s.
        let meter = left * 1024 / 20
        #expect(remaining.map { abs($0 - meter) < 0.1 * meter } == true, "\(String(describing: remaining))")
    }

    @Test("history: a job being processed joins, an old finished one does not, a fresh one does")
    mutating func historyJoins() {
        let old = Make.done("old", mb: 5, completed: time - 3600)
        #expect(poll(Make.queue([]), Make.history([old]), after: 0).isEmpty)
        #expect(!session.isOpen)
        // A job that downloaded between idle polls and is now being verified.
        let verifying = Make.done("v", status: "Verifying", mb: 20, loaded: true, actionLine: "Repairing: 10%")
        let updates = poll(Make.queue([]), Make.history([verifying, old]))
        #expect(updates.first?.stateText == "Verifying" && updates.first?.subtitleText == "Job.v")
        #expect(session.jobIDs == ["v"])
    }

    @Test("a job that ran entirely between two polls still shows, and ends with its summary")
    mutating func unseenJob() {
        _ = poll(Make.queue([]), Make.history([]), after: 0)
        let fresh = Make.done("f", mb: 12, downloadTime: 6, postProcessingTime: 2, completed: time + 1)
        var updates: [ActivityUpdate] = []
        for _ in 0..<3 { updates += poll(Make.queue([]), Make.history([fresh])) }
        // Shown (every poll reports what it saw, the same summary while the idle polls run out),
        // then ended once.
        #expect(updates.first?.phase == .active && updates.last?.phase == .ended(.success))
        #expect(updates.dropLast().allSatisfy { $0.phase == .active && $0.stateText == updates.first?.stateText })
        #expect(updates.filter(\.phase.isEnded).count == 1)
        #expect(updates.last?.subtitleText == "1 job · 12 MB · 2.0 MB/s avg · unpack 2s")
        // It does not come back on later polls.
        #expect(poll(Make.queue([]), Make.history([fresh])).isEmpty)
    }

    @Test("a garbled answer's absurd figures (10³⁰⁰ bytes, slots, seconds) are read and shown bounded, never trap")
    mutating func absurdFigures() throws {
        let queue = try SABnzbdQueue(
            answer: JSONParser.parse(
                #"{"queue": {"status": "Downloading", "kbpersec": "1e300", "noofslots": "1e300", "mb": "10", "#
                    + #""mbleft": "5", "slots": [{"nzo_id": "a", "filename": "A", "mb": "10", "mbleft": "5"}]}}"#))
        #expect(queue.totalSlots == 1, "a count no integer holds falls back to the slots listed")
        let history = try #require(
            try SABnzbdHistory.decode(
                answer: JSONParser.parse(
                    #"{"history": {"ppslots": "1e300", "slots": [{"nzo_id": "a", "name": "A", "status": "Completed", "#
                        + #""bytes": 1e300, "download_time": 5, "postproc_time": 1e300, "completed": 1}]}}"#)))
        #expect(history.postProcessingSlots == 0, "a count no integer holds falls back to the slots not yet final")
        var downloading = poll(queue, after: 0)
        for _ in 0..<3 { downloading += poll(queue) }
        #expect(downloading.last?.details.subtitle.value == "A · >999 PB/s")
        var updates: [ActivityUpdate] = []
        for _ in 0..<3 { updates += poll(Make.queue([]), history) }
        #expect(updates.last?.phase == .ended(.success))
        #expect(updates.last?.subtitleText == "1 job · >999 PB · >999 PB/s avg · unpack >999d")
        #expect(SABnzbdText.size(999.4 * 1024 * 1024 * 1024 * 1024 * 1024) == "999 PB")
        #expect(SABnzbdText.duration(999 * 86400 + 3600) == "999d 1h" && SABnzbdText.duration(-.infinity) == "0s")
        #expect(SABnzbdClock.text(1e300) == "24000:00:00" && SABnzbdClock.text(.nan) == "0:00:00")
    }

    @Test("the session ends endAfterIdlePolls polls after the last job is final, not before")
    mutating func endTiming() {
        _ = poll(Make.queue([Make.slot("a", mb: 10, left: 5)]), after: 0)
        let done = Make.history([Make.done("a", mb: 10, completed: time)])
        #expect(!poll(Make.queue([]), done).contains { $0.isEnd })
        #expect(!poll(Make.queue([]), done).contains { $0.isEnd })
        let end = poll(Make.queue([]), done)
        #expect(end.map(\.phase) == [.ended(.success)])
        #expect(!session.isOpen)
    }

    @Test("a new job during the quiet polls keeps the session going")
    mutating func newJobWhileSettling() {
        _ = poll(Make.queue([Make.slot("a", mb: 10, left: 5)]), after: 0)
        let done = Make.done("a", mb: 10, completed: time)
        _ = poll(Make.queue([]), Make.history([done]))
        let next = poll(Make.queue([Make.slot("b", mb: 10, left: 9)]), Make.history([done]))
        #expect(next.first?.stateText == "Downloading" && next.first?.subtitleText == "2/2 · Job.b")
        #expect(session.isOpen)
    }

    @Test("a job deleted in SABnzbd ends its session as cancelled")
    mutating func deleted() {
        _ = poll(Make.queue([Make.slot("a", mb: 10, left: 5)]), after: 0)
        var updates: [ActivityUpdate] = []
        for _ in 0..<6 { updates += poll(Make.queue([]), Make.history([])) }
        #expect(updates.last?.phase == .ended(.cancelled))
        #expect(updates.last?.stateText == "Removed")
    }

    @Test("a job failing mid-session does not fill the bar; the end says some failed")
    mutating func failureMidSession() {
        _ = poll(Make.queue([Make.slot("a", mb: 50, left: 35), Make.slot("b", mb: 50, left: 50)]), after: 0)
        let before = session.progress
        let failed = Make.done(
            "a", status: "Failed", mb: 15, failMessage: "Repair failed, not enough repair blocks (206 short)",
            completed: time)
        _ = poll(Make.queue([Make.slot("b", mb: 50, left: 50)]), Make.history([failed]))
        #expect(abs(session.progress - before) < 1e-9)
        var updates: [ActivityUpdate] = []
        let completed = Make.done("b", mb: 50, downloadTime: 10, completed: time)
        for _ in 0..<3 { updates += poll(Make.queue([]), Make.history([completed, failed])) }
        let end = updates.last
        #expect(end?.phase == .ended(.failure) && end?.stateText == "1 of 2 failed")
        #expect(end?.content.accentColor.value == "orange")
        #expect(
            end?.subtitleText
                == "1 job · 50 MB · 5.0 MB/s avg · Job.a failed: Repair failed, not enough repair blocks (206 short)")
    }

    @Test("a globally paused queue starts no session; a job added during a pause joins after the resume")
    mutating func globalPause() {
        let paused = Make.queue([Make.slot("a", status: "Queued", mb: 10, left: 10)], paused: true, kbps: 0)
        #expect(!SABnzbdMapper.hasWork(paused))
        #expect(poll(paused, after: 0).isEmpty && !session.isOpen)
        _ = poll(Make.queue([Make.slot("a", mb: 10, left: 8)]))
        let pausedAgain = poll(
            Make.queue(
                [Make.slot("a", status: "Queued", mb: 10, left: 8), Make.slot("b", status: "Queued", mb: 5, left: 5)],
                paused: true, kbps: 0))
        #expect(pausedAgain.first?.stateText == "Paused" && pausedAgain.first?.subtitleText == "Job.a")
        let resumed = poll(Make.queue([Make.slot("a", mb: 10, left: 7), Make.slot("b", mb: 5, left: 5)]))
        #expect(resumed.first?.subtitleText == "1/2 · Job.a")
    }

    @Test("SABnzbd's timeleft in H:MM:SS and D:HH:MM:SS is the ETA before a rate is measured")
    mutating func timeleftFormats() {
        #expect(SABnzbdClock.seconds("0:00:51") == 51)
        #expect(SABnzbdClock.seconds("12:03:04") == 43384)
        #expect(SABnzbdClock.seconds("1:02:03:04") == 93784)
        #expect(
            SABnzbdClock.seconds("5") == nil && SABnzbdClock.seconds("1:02") == nil && SABnzbdClock.seconds("") == nil)
        _ = poll(Make.queue([Make.slot("a", mb: 900_000, left: 899_000)], timeleft: "1:02:03:04"), after: 0)
        let updates = poll(Make.queue([Make.slot("a", mb: 900_000, left: 899_000)], timeleft: "1:02:03:04"), after: 1)
        #expect(updates.first?.eta == .remaining(93784))
    }

    @Test("SABnzbd's clock written back: H:MM:SS with hours past a day, whole seconds, and read back the same")
    func clockText() {
        #expect(SABnzbdClock.text(51) == "0:00:51")
        #expect(SABnzbdClock.text(43384.4) == "12:03:04")
        #expect(SABnzbdClock.text(93784) == "26:03:04")
        #expect(SABnzbdClock.text(-3) == "0:00:00")
        for seconds in [0.0, 59, 60, 3599, 3600, 86399, 86400, 360_000] {
            #expect(SABnzbdClock.seconds(SABnzbdClock.text(seconds)) == seconds)
        }
    }

    @Test("a snapshot restores the same session: jobs and progress; finished jobs count in the summary")
    mutating func snapshotRoundTrip() throws {
        _ = poll(Make.queue([Make.slot("a", mb: 10, left: 2), Make.slot("b", mb: 10, left: 10)]), after: 0)
        _ = poll(Make.queue([Make.slot("b", mb: 10, left: 9)]), Make.history([Make.done("a", mb: 10, completed: time)]))
        let progress = session.progress
        let snapshot = session.snapshot
        var restored = try #require(SABnzbdMapper(snapshot: snapshot, settings: session.settings))
        #expect(restored.jobIDs == ["a", "b"] && restored.progress == progress && restored.emitted)
        #expect(SABnzbdMapper(snapshot: snapshot, settings: SABnzbdMapperSettings(slug: "other", name: "x")) == nil)
        time += 60
        let next = restored.observe(
            SABnzbdObservation(time: time, queue: Make.queue([Make.slot("b", mb: 10, left: 4)]), history: nil))
        #expect(next.first?.subtitleText == "2/2 · Job.b" && (next.first?.progress ?? 0) > progress)
        var updates: [ActivityUpdate] = []
        let history = Make.history([Make.done("b", mb: 10, completed: time), Make.done("a", mb: 10, completed: time)])
        for _ in 0..<3 {
            time += 3
            updates += restored.observe(SABnzbdObservation(time: time, queue: Make.queue([]), history: history))
        }
        #expect(
            updates.last?.phase == .ended(.success) && updates.last?.subtitleText.hasPrefix("2 jobs · 20 MB") == true)
    }
}

/// Waits between a slow server's articles: `around` × 1/3…5/3, deterministic per seed (SplitMix64).
struct SeededWaits {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func wait(around mean: Double) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return mean * (1 / 3 + 4 / 3 * Double(z >> 11) / Double(1 << 53))
    }
}
