import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import LiveBridgeTestSupport
import Synchronization
import Testing

/// SABnzbd stopped and started, then silent (accepts, never answers) in the middle of a download:
/// the real adapter polling a scripted SABnzbd over real sockets, on virtual time, through the real
/// engine into the strict fake PushWard.
@Suite("Fault: SABnzbd going away", .serialized, .timeLimit(.minutes(1)))
struct SABnzbdSourceFaultTests {
    static let key = "0123456789abcdef0123456789abcdef"

    @Test("stopped for 2 minutes, then silent for 3 polls: detected, retried with backoff, same activity to the end")
    func stoppedThenSilent() async throws {
        let bridge = try await VirtualBridge()
        let base = bridge.clock.now
        let job = SABnzbdJobScript(totalMiB: 1200, rateMiBps: 1, start: base + 20)
        let sab = try ScriptedSABnzbd(apiKey: Self.key, clock: bridge.clock, script: job)
        defer { sab.shutdown() }
        let configuration = SABnzbdConfiguration(
            name: "home", url: sab.baseURL, apiKey: Self.key, idleInterval: 15, activeInterval: 3, timeout: 1)
        let slug = configuration.session.slug
        let adapter = SABnzbdAdapter(configuration: configuration)
        let observed = Mutex(0.0)
        let context = bridge.context(source: "home", type: "sabnzbd") { update in
            if let progress = update.progress { observed.withLock { $0 = progress } }
        }
        let running = Task { try? await adapter.run(context) }
        defer { running.cancel() }

        func progress() -> Double { observed.withLock { $0 } }
        enum Stage { case running, down, back, silent, recovered }
        var stage = Stage.running
        var downAt = 0.0
        var backAt = 0.0
        var firstPollAfterBack: Double?
        var healthWhileDown: ComponentHealth?
        var healthWhileSilent: ComponentHealth?
        var silentRequests = 0
        var silentStarted = ContinuousClock.now
        var silentDetected: Double?
        try await bridge.followSleeps(
            timeout: 40,
            before: { t in
                switch stage {
                case .running where progress() >= 0.2:
                    stage = .down
                    downAt = t
                    sab.goDown()
                case .down where t >= downAt + 120:
                    healthWhileDown = bridge.sourceHealth("home")
                    stage = .back
                    backAt = t
                    try sab.comeBack()
                case .back:
                    if firstPollAfterBack == nil, let poll = sab.requests.first(where: { $0.time >= backAt }) {
                        firstPollAfterBack = poll.time
                    }
                    if progress() >= 0.5 {
                        stage = .silent
                        silentRequests = sab.requests.count
                        silentStarted = ContinuousClock.now
                        sab.setSilent(true)
                    }
                case .silent:
                    if silentDetected == nil, bridge.sourceHealth("home")?.status == .degraded {
                        silentDetected = seconds(since: silentStarted)
                    }
                    if sab.requests.count - silentRequests >= 3 {
                        healthWhileSilent = bridge.sourceHealth("home")
                        stage = .recovered
                        sab.setSilent(false)
                    }
                default:
                    break
                }
            },
            until: { bridge.pushward.activity(slug)?.state == "ended" })

        // While stopped: refused, reported, polled with backoff (not every 3 s).
        let down = try #require(healthWhileDown)
        #expect(down.status == .degraded)
        #expect(down.lastError?.contains("refused") == true, "\(down.lastError ?? "")")
        let whileDown = sab.requests.filter { $0.time > downAt && $0.time < backAt }
        #expect(whileDown.isEmpty, "nothing reached a stopped SABnzbd")
        // While silent: each poll ends at its timeout; health says so.
        let silent = try #require(healthWhileSilent)
        #expect(silent.status == .degraded)
        #expect(silent.lastError?.contains("time limit") == true, "\(silent.lastError ?? "")")
        #expect(sab.requests.filter { !$0.answered }.count == 3)
        // The same activity all along, ended with the job's summary, in order.
        let activity = try #require(bridge.pushward.activity(slug))
        #expect(activity.state == "ended" && activity.content["state"] == "Complete")
        #expect(activity.content["subtitle"] == "1 job · 1.2 GB · 1.0 MB/s avg")
        #expect(bridge.creates(slug) == 1)
        #expect(bridge.pushward.violations.isEmpty, "\(bridge.pushward.violations)")
        #expect(bridge.sourceHealth("home")?.status == .ok)
        let back = try #require(firstPollAfterBack)
        Figures.record(
            "SABnzbd stopped and started → first successful poll",
            "at most \(Int(back - backAt)) s (virtual): the poll backoff while it was away (3 s doubling, capped at 60 s)"
        )
        Figures.record(
            "SABnzbd silent (accepts, never answers) → detected",
            "\(Figures.seconds(silentDetected ?? -1)) real (the 1 s request timeout), polls continue with backoff")
    }
}
