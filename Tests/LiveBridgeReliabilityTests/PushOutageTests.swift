import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import LiveBridgeTestSupport
import Synchronization
import Testing

/// The push service refuses connections for ten (virtual) minutes while a SABnzbd download and a
/// Bambu print run; the SABnzbd job finishes during the outage, the print after it.
@Suite("Fault: push service refusing connections", .serialized, .timeLimit(.minutes(1)))
struct PushOutageTests {
    @Test("10 minutes of refused connections mid-job: latest state after, ends delivered, in order, bounded queue")
    func tenMinuteOutage() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        // SABnzbd: 900 MiB at 1 MiB/s from +1 min, done at +16 min (inside the outage).
        let job = SABnzbdJobScript(totalMiB: 900, rateMiBps: 1, start: base + 60)
        let sabnzbd = try Recordings.sabnzbd(job, from: base, through: base + 1200)
        // Bambu: a 40-minute print from +2 min (calibration first), finishing after the outage.
        let bambu = try Recordings.bambu(printMinutes: 40, base: base + 120)
        let outageStart = base + 540
        let outageEnd = base + 1140
        let lastUpdate = try #require(bambu.last?.observedAt)
        var wentDown = false
        var cameBack = false
        var requestsBeforeOutage = 0
        var failuresAtComeBack = 0
        var syncedAt: Double?
        var firstDeliveryAfter: Double?
        let decided = Mutex<[(time: Double, slug: String)]>([])
        await bridge.engine.addListener { event in
            if case .pushed(let frame) = event.kind { decided.withLock { $0.append((event.time, frame.slug)) } }
        }

        try await bridge.play(sabnzbd + bambu, through: lastUpdate + 120) { t in
            if !wentDown && t >= outageStart {
                wentDown = true
                #expect(bridge.pushward.activity(Recordings.sabnzbdSlug)?.state == "ongoing")
                #expect(bridge.pushward.activity(Recordings.bambuSlug)?.state == "ongoing")
                requestsBeforeOutage = bridge.pushward.records.count
                bridge.pushward.goDown()
            }
            if wentDown && !cameBack && t >= outageEnd {
                cameBack = true
                #expect(bridge.pushward.records.count == requestsBeforeOutage, "nothing reached a closed port")
                failuresAtComeBack = bridge.failedAttempts("unavailable")
                try bridge.pushward.comeBack()
            }
            if cameBack, firstDeliveryAfter == nil, bridge.pushward.records.count > requestsBeforeOutage {
                firstDeliveryAfter = bridge.pushward.records.last?.time
            }
            if cameBack, syncedAt == nil, await bridge.queue.pendingCount == 0,
                await bridge.inSync(Recordings.sabnzbdSlug), await bridge.inSync(Recordings.bambuSlug)
            {
                syncedAt = t
            }
        }
        await bridge.advance(to: bridge.clock.now + 60)

        // Every activity shows its latest state; finished jobs are ended.
        let download = try #require(bridge.pushward.activity(Recordings.sabnzbdSlug))
        #expect(download.state == "ended")
        #expect(download.content["state"] == "Complete" && download.content["progress"] == 1)
        #expect(download.content["live_progress"] == nil && download.content["end_date"] == nil)
        let print = try #require(bridge.pushward.activity(Recordings.bambuSlug))
        #expect(print.state == "ended" && print.content["state"] == "Complete")
        #expect(await bridge.inSync(Recordings.sabnzbdSlug))
        #expect(await bridge.inSync(Recordings.bambuSlug))
        let back = try #require(firstDeliveryAfter)
        let synced = try #require(syncedAt)
        // One activity each: the outage never made a second create.
        #expect(bridge.creates(Recordings.sabnzbdSlug) == 1 && bridge.creates(Recordings.bambuSlug) == 1)
        // No frame out of order (the fake checks X-LiveBridge-Sequence), no contract violation.
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        // Bounded memory: never more than the cap waiting per slug, at any step.
        for (slug, most) in bridge.maximumPending {
            #expect(most <= VirtualBridge.queueCap, "\(slug) held \(most) frames")
        }
        // What the trackers decided while the service was down was coalesced, not replayed: the
        // download's last card and its end (decided during the outage) leave as one request, and
        // no activity needs more than one to show its latest state.
        let duringOutage = decided.withLock { $0.filter { $0.time >= outageStart && $0.time < outageEnd } }
        let decidedDuringOutage = duringOutage.count
        // The requests that carry frames (a place freeing also asks `GET /activities` for a
        // preempted activity: a query, not a frame).
        let after = bridge.pushward.records.filter {
            $0.time >= outageEnd && $0.time < back + 5 && $0.method != "GET"
        }
        let requestsAfter = after.count
        let downloadDecided = duringOutage.filter { $0.slug == Recordings.sabnzbdSlug }.count
        let downloadRequests = after.filter { $0.path.contains(Recordings.sabnzbdSlug) }.count
        #expect(
            downloadDecided >= 2 && downloadRequests == 1, "\(downloadDecided) frames → \(downloadRequests) requests")
        #expect(requestsAfter <= 2, "\(decidedDuringOutage) frames → \(requestsAfter) requests")
        // No retry storm: the breaker spaces the attempts (ten minutes, a handful of tries).
        let attempts = failuresAtComeBack
        #expect(attempts >= 3 && attempts <= 20, "\(attempts) attempts in 10 minutes")
        #expect(synced - outageEnd <= 300 + 60, "the breaker's longest pause bounds the recovery")
        #expect(bridge.sinkHealth?.status == .ok)
        Figures.record(
            "push service back → latest state delivered (virtual time, breaker included)",
            "first request \(Int(back - outageEnd)) s, every activity in sync \(Int(synced - outageEnd)) s after "
                + "the service came back; \(decidedDuringOutage) frames decided during the outage went out as "
                + "\(requestsAfter) requests; \(attempts) refused attempts during the 10-minute outage; at most "
                + "\(bridge.maximumPending.values.max() ?? 0) frames waiting per slug (cap \(VirtualBridge.queueCap))")
        await bridge.shutdown()
    }

    @Test("many short jobs on one slug while the service is down: the queue stays within its cap, the last shows")
    func repeatedSessionsDuringOutage() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        // Twelve small downloads one after the other, each its own session (SABnzbd idle between).
        var lines: [String] = []
        let jobs = 12
        for index in 0..<jobs {
            let start = base + 60 + Double(index) * 50
            var job = SABnzbdJobScript(totalMiB: 20, rateMiBps: 1, start: start)
            job.id = "SABnzbd_nzo_short\(index)"
            job.name = "Short.Job.\(index)"
            lines += job.lines(from: start - 3, through: start + 47, every: 3)
        }
        let updates = try SABnzbdReplay.updates(
            fromJSONLines: lines, settings: SABnzbdMapperSettings(slug: Recordings.sabnzbdSlug, name: "SABnzbd (home)")
        )
        let sessions = updates.filter { $0.phase.isEnded }.count
        #expect(sessions == jobs, "each job is a session of its own")
        let outageStart = base + 100
        let outageEnd = outageStart + 600
        var wentDown = false
        var cameBack = false
        try await bridge.play(updates, through: outageEnd + 400, step: 1) { t in
            if !wentDown && t >= outageStart {
                wentDown = true
                bridge.pushward.goDown()
            }
            if !cameBack && t >= outageEnd {
                cameBack = true
                try bridge.pushward.comeBack()
            }
        }
        for (slug, most) in bridge.maximumPending {
            #expect(most <= VirtualBridge.queueCap, "\(slug) held \(most) frames while ten sessions ended")
        }
        let activity = try #require(bridge.pushward.activity(Recordings.sabnzbdSlug))
        #expect(activity.state == "ended" && activity.content["state"] == "Complete")
        #expect(activity.content["subtitle"] == "1 job · 20 MB · 1.0 MB/s avg")
        #expect(await bridge.inSync(Recordings.sabnzbdSlug))
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        await bridge.shutdown()
    }
}
