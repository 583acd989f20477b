import Foundation
import Synchronization
import Testing

@testable import LiveBridgeCore

/// A year of jobs costs what one day costs: ended activities are forgotten, persisting an
/// update writes only what changed, and nothing grows with the history. All on virtual time.
@Suite("Bounded state")
struct BoundedStateTests {
    /// An engine on `store` with one recording sink, driven by hand (`runDue`).
    struct Bridge {
        let engine: ActivityEngine
        let metrics: MetricsRegistry
        let logs: InMemoryLogHandler

        init(
            sink: RecordingSink, clock: VirtualClock, store: any StateStore,
            settings: EconomySettings = EconomySettings()
        ) async {
            let metrics = MetricsRegistry()
            let logs = InMemoryLogHandler()
            let queue = DeliveryQueue(
                sink: sink, clock: clock, logger: .disabled, metrics: metrics, health: .detached(clock: clock),
                jitterSeed: 3)
            engine = ActivityEngine(
                bindings: [
                    .init(sink: sink, queue: queue, ledger: BudgetLedger(sink: sink.name, limit: nil, store: store))
                ],
                settings: settings, clock: clock, store: store,
                logger: Logger(label: "engine", level: .debug, handler: logs, now: { clock.now }), metrics: metrics)
            await engine.start()
            self.metrics = metrics
            self.logs = logs
        }

        /// Starts `slug`, moves it on once, ends it and lets the two-phase end finish (about 10 s).
        func runJob(_ slug: String, clock: VirtualClock) async {
            var job = Trajectory(start: clock.now)
            job.slug = slug
            let steps: [(ActivityPhase, String, Double?, Double)] = [
                (.active, "Building", 600, 3), (.active, "Testing", 300, 2), (.ended(.success), "Complete", nil, 5),
            ]
            for (phase, state, remaining, pause) in steps {
                job.time = clock.now
                await engine.emit(job.update(phase, state: state, remaining: remaining))
                await engine.runDue()
                clock.advance(by: pause)
                job.progress += 0.5
            }
            await engine.runDue()
        }

        /// Starts a job that outlasts the test.
        func startRunning(_ slug: String, clock: VirtualClock) async {
            var job = Trajectory(start: clock.now)
            job.slug = slug
            await engine.emit(job.update(.active, state: "Printing", remaining: 36000))
            await engine.runDue()
        }

        var warnings: [String] { logs.lines.filter { $0.contains("level=warning") } }
    }

    /// A bridge on a memory store at a fixed start time.
    struct Fixture {
        let clock = VirtualClock(start: 1_781_517_600)
        let store = MemoryStateStore()
        let sink: RecordingSink
        let bridge: Bridge

        init() async {
            sink = RecordingSink(clock: clock)
            bridge = await Bridge(sink: sink, clock: clock, store: store)
        }
    }

    @Test("an ended activity's tracker is dropped once its end is delivered; a restart does not load it")
    func endedTrackerIsForgotten() async throws {
        let fixture = await Fixture()
        let (clock, store, sink, bridge) = (fixture.clock, fixture.store, fixture.sink, fixture.bridge)
        await bridge.runJob("build-41", clock: clock)
        #expect(sink.state.withLock { $0.activityStates["build-41"] } == "ended")
        #expect(await bridge.engine.tracker(sink: "fake", slug: "build-41") == nil)
        #expect(await bridge.engine.trackerCount == 0)
        #expect(await bridge.engine.tombstone("build-41") == clock.now + bridge.engine.tombstoneTTL)

        // Killed here (nothing shut down): the journal is all a restart has.
        #expect(store.keys.contains(TrackerJournal.journalKey))
        let restarted = await Bridge(sink: sink, clock: clock, store: store)
        #expect(await restarted.engine.tracker(sink: "fake", slug: "build-41") == nil)
        #expect(await restarted.engine.slugs.isEmpty)
        // The restart folded the journal into a checkpoint that holds no tracker.
        #expect(!store.keys.contains(TrackerJournal.journalKey))
        let checkpoint = try #require(try store.readJSON(TrackerJournal.checkpointKey))
        #expect(checkpoint["sinks"]?["fake"] == .object([:]))
        #expect(restarted.warnings.isEmpty, "\(restarted.warnings)")
    }

    @Test("a running activity survives a restart; ended ones in a checkpoint written before are dropped")
    func runningSurvivesEndedDropped() async throws {
        let fixture = await Fixture()
        let (clock, store, sink, bridge) = (fixture.clock, fixture.store, fixture.sink, fixture.bridge)
        await bridge.startRunning("print", clock: clock)
        await bridge.runJob("build-1", clock: clock)
        await bridge.engine.shutdown(endActivities: false, flushTimeout: 1)
        // A checkpoint in the old shape, which kept every ended activity for ever.
        var old = try #require(try store.readJSON(TrackerJournal.checkpointKey))
        let print = try #require(old["sinks"]?["fake"]?["print"])
        var ended = print
        ended["slug"] = "old-job"
        ended["lifecycle"] = "ended"
        ended["sequence"] = 40
        ended["delivered"] = 40
        old["sinks"] = ["fake": ["print": print, "old-job": ended]]
        old["sequenceFloor"] = nil
        try store.writeJSON(TrackerJournal.checkpointKey, old)

        let restarted = await Bridge(sink: sink, clock: clock, store: store)
        #expect(await restarted.engine.slugs == ["print"])
        #expect(restarted.logs.lines.contains { $0.contains("forgot activities that had ended") })
        let checkpoint = try #require(try store.readJSON(TrackerJournal.checkpointKey))
        #expect(checkpoint["sinks"]?["fake"]?["old-job"] == nil)
        #expect(checkpoint["sequenceFloor"]?["fake"] == 40, "its numbering is kept")
    }

    @Test("a forgotten slug started again numbers after its old frames, across a restart; the tombstone expires")
    func tombstoneAndNumbering() async throws {
        let fixture = await Fixture()
        let (clock, store, sink, bridge) = (fixture.clock, fixture.store, fixture.sink, fixture.bridge)
        await bridge.runJob("washer", clock: clock)
        let firstRun = sink.state.withLock { $0.accepted.map(\.frame.sequence) }
        #expect(firstRun.count == 4)  // seed, update, final, end

        // A late frame for the slug (the washer reported once more): a fresh activity whose
        // frames cannot be taken for older ones.
        await bridge.runJob("washer", clock: clock)
        let secondRun = sink.state.withLock { $0.accepted.dropFirst(firstRun.count).map(\.frame.sequence) }
        #expect(secondRun.first ?? 0 > firstRun.last ?? .max)
        #expect(sink.state.withLock { $0.accepted.dropFirst(firstRun.count).first?.frame.kind } == .seed)
        #expect(await bridge.engine.tombstoneCount == 1, "one tombstone per slug, the latest expiry")

        // Killed and started again: the numbering survives in the journal.
        let restarted = await Bridge(sink: sink, clock: clock, store: store)
        await restarted.runJob("washer", clock: clock)
        let thirdRun = sink.state.withLock { $0.accepted.dropFirst(firstRun.count + secondRun.count) }
        #expect(thirdRun.first?.frame.sequence ?? 0 > secondRun.last ?? .max)
        #expect(sink.state.withLock { $0.outOfOrder }.isEmpty)

        // The slug's series stay in /metrics while the tombstone lasts, and leave with it.
        #expect(restarted.metrics.render().contains("slug=\"washer\""))
        let expiry = try #require(await restarted.engine.tombstone("washer"))
        clock.advance(to: expiry - 1)
        await restarted.engine.runDue()
        #expect(restarted.metrics.render().contains("slug=\"washer\""))
        clock.advance(to: expiry)
        await restarted.engine.runDue()
        #expect(await restarted.engine.tombstone("washer") == nil)
        #expect(!restarted.metrics.render().contains("slug=\"washer\""))
    }

    @Test("an end the service refuses for good is forgotten too")
    func refusedEndIsForgotten() async throws {
        let clock = VirtualClock(start: 1_781_517_600)
        let sink = RecordingSink(clock: clock)
        var settings = EconomySettings()
        settings.endFrames = 1
        let engine = await Bridge(sink: sink, clock: clock, store: MemoryStateStore(), settings: settings).engine
        var job = Trajectory(start: clock.now)
        await engine.emit(job.update(.active, state: "Building", remaining: 600))
        await engine.runDue()
        clock.advance(by: 5)
        job.time = clock.now
        sink.fail([SinkError(.rejected, status: 422, message: "refused")])
        await engine.emit(job.update(.ended(.success), state: "Complete", remaining: nil))
        await engine.runDue()
        #expect(sink.state.withLock { $0.attempts.last?.frame.kind } == .end)
        #expect(await engine.tracker(sink: "fake", slug: "job") == nil)
        #expect(await engine.tombstone("job") != nil)
    }

    @Test("an end for a slug that never started leaves nothing behind")
    func strayEndLeavesNothing() async throws {
        let fixture = await Fixture()
        let (clock, store, bridge) = (fixture.clock, fixture.store, fixture.bridge)
        for index in 0..<50 {
            var job = Trajectory(start: clock.now)
            job.slug = "never-\(index)"
            await bridge.engine.emit(job.update(.ended(.success), state: "Complete", remaining: nil))
        }
        #expect(await bridge.engine.trackerCount == 0)
        #expect(store.keys.allSatisfy { $0 != TrackerJournal.journalKey })
    }

    @Test("a year of jobs with unique slugs: memory, the data directory and /metrics stay bounded")
    func yearOfJobs() async throws {
        let fixture = await Fixture()
        let (clock, store, sink, bridge) = (fixture.clock, fixture.store, fixture.sink, fixture.bridge)
        // One job every 20 minutes for two weeks: longer apart than the tombstones last.
        var largestJournal = 0
        var largestCheckpoint = 0
        for index in 0..<1000 {
            await bridge.runJob("ci-build-\(index)", clock: clock)
            clock.advance(by: 1200 - 10)
            await bridge.engine.runDue()
            largestJournal = max(largestJournal, (try store.read(TrackerJournal.journalKey))?.count ?? 0)
            largestCheckpoint = max(largestCheckpoint, (try store.read(TrackerJournal.checkpointKey))?.count ?? 0)
        }
        #expect(sink.state.withLock { $0.activityStates.values.filter { $0 == "ended" }.count } == 1000)
        #expect(await bridge.engine.trackerCount == 0)
        #expect(await bridge.engine.tombstoneCount <= 1)
        // Only the per-sink series are left (requests, queue length, budget): no slug accumulates.
        #expect(!bridge.metrics.render().contains("slug="), "\(bridge.metrics.render())")
        #expect(bridge.metrics.seriesCount <= 4, "\(bridge.metrics.render())")
        #expect(largestJournal <= ActivityEngine.journalLimit + 8192)
        #expect(largestCheckpoint < 1024, "the checkpoint holds only what is alive")
        let total = store.keys.reduce(0) { $0 + ((try? store.read($1))?.count ?? 0) }
        #expect(total < 2048, "the whole data directory after 1000 jobs: \(total) bytes")
    }

    @Test("a busy hour of jobs: the journal is folded into the checkpoint before it passes its limit")
    func journalIsCompacted() async throws {
        let fixture = await Fixture()
        let (clock, store, bridge) = (fixture.clock, fixture.store, fixture.bridge)
        await bridge.startRunning("long-print", clock: clock)
        var largestJournal = 0
        for index in 0..<300 {
            await bridge.runJob("job-\(index)", clock: clock)
            largestJournal = max(largestJournal, (try store.read(TrackerJournal.journalKey))?.count ?? 0)
        }
        #expect(largestJournal <= ActivityEngine.journalLimit + 8192)
        // A job every 10 s: the tombstones of the last 15 minutes' jobs, in memory only.
        #expect((88...91).contains(await bridge.engine.tombstoneCount))
        #expect(await bridge.engine.slugs == ["long-print"])
        let checkpoint = try #require(try store.read(TrackerJournal.checkpointKey))
        #expect(checkpoint.count < 8192)
    }

    // MARK: - Crash safety

    /// Runs three activities on a file store and returns the journal's bytes and the snapshot
    /// each complete line carries, in order.
    func journalOfThreeJobs(directory: String) async throws -> [UInt8] {
        let clock = VirtualClock(start: 1_781_517_600)
        let store = FileStateStore(directory: directory)
        let bridge = await Bridge(sink: RecordingSink(clock: clock), clock: clock, store: store)
        for slug in ["a", "b", "c"] {
            var job = Trajectory(start: clock.now)
            job.slug = slug
            await bridge.engine.emit(job.update(.active, state: "Running \(slug)", remaining: 600))
            await bridge.engine.runDue()
            // Within the checkpoint delay: all of it is still in the journal.
            clock.advance(by: 0.2)
        }
        return try #require(try store.read(TrackerJournal.journalKey))
    }

    @Test("killed at any byte of a journal write: every line written before is restored, nothing else")
    func crashAtAnyByte() async throws {
        let directory = try TemporaryDirectory(prefix: "journal")
        defer { directory.remove() }
        let journal = try await journalOfThreeJobs(directory: directory.path)
        let lines = journal.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        #expect(lines.count >= 6, "a decision and an acknowledgement per activity")
        var boundaries: [Int] = []
        var offset = 0
        for line in lines {
            offset += line.count + 1
            boundaries.append(offset)
        }
        let cuts = Set(stride(from: 0, through: journal.count, by: 61)).union(boundaries.flatMap { [$0 - 1, $0] })
        for cut in cuts.sorted() where cut >= 0 && cut <= journal.count {
            let store = MemoryStateStore()
            try store.write(TrackerJournal.journalKey, Array(journal.prefix(cut)))
            var reader = TrackerJournal(store: store)
            let contents = reader.load()
            let complete = boundaries.filter { $0 <= cut }.count
            var expected: [String: JSONValue] = [:]
            for line in lines.prefix(complete) {
                guard let record = TrackerJournal.record(line), case .tracker(let snapshot) = record.entry else {
                    Issue.record("line is not a tracker record")
                    continue
                }
                expected[record.slug] = snapshot
            }
            #expect(contents.trackers["fake"] ?? [:] == expected, "cut at byte \(cut)")
            let torn = !boundaries.contains(cut) && cut > 0
            #expect(contents.problems.count == (torn ? 1 : 0), "cut at byte \(cut): \(contents.problems)")
            if torn { #expect(contents.problems.first?.contains("the last record is incomplete") == true) }
        }
    }

    @Test("a damaged journal line or checkpoint is reported clearly; the rest is restored")
    func damagedFilesReported() async throws {
        let directory = try TemporaryDirectory(prefix: "damaged")
        defer { directory.remove() }
        let journal = try await journalOfThreeJobs(directory: directory.path)
        var lines = journal.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        lines.insert(Array("\u{0}\u{0}garbage".utf8), at: 1)
        let store = FileStateStore(directory: directory.path)
        try store.write(TrackerJournal.journalKey, Array(lines.joined(separator: [UInt8(ascii: "\n")])) + [10])
        try store.write(TrackerJournal.checkpointKey, Array("{\"version\": 1, \"sinks\": {".utf8))

        let clock = VirtualClock(start: 1_781_517_700)
        let bridge = await Bridge(sink: RecordingSink(clock: clock), clock: clock, store: store)
        #expect(await bridge.engine.slugs == ["a", "b", "c"], "every acknowledged activity is still there")
        let warnings = bridge.warnings.joined(separator: "\n")
        #expect(warnings.contains("trackers.journal: line 2 is not a tracker record"), "\(warnings)")
        #expect(warnings.contains("trackers.json") && warnings.contains("not valid JSON"), "\(warnings)")
        // Start-up rewrote both: the next start finds nothing damaged.
        let again = await Bridge(sink: RecordingSink(clock: clock), clock: clock, store: store)
        #expect(again.warnings.isEmpty, "\(again.warnings)")
        #expect(await again.engine.slugs == ["a", "b", "c"])
    }
}

@Suite("Metrics series removal")
struct MetricsRemovalTests {
    @Test("a gone slug's series leave /metrics; others stay")
    func removeSeries() {
        let metrics = MetricsRegistry()
        for slug in ["a", "b", "c"] {
            metrics.increment("livebridge_pushes_sent_total", ["sink": "phone", "slug": slug])
            metrics.increment("livebridge_pushes_skipped_total", ["sink": "phone", "slug": slug])
        }
        metrics.set("livebridge_budget_used", ["sink": "phone"], 3)
        metrics.increment("livebridge_pushes_failed_total", ["sink": "phone", "reason": "unavailable"])
        metrics.removeSeries(label: "slug", values: ["a", "c"])
        let text = metrics.render()
        #expect(!text.contains("slug=\"a\"") && !text.contains("slug=\"c\""))
        #expect(metrics.value("livebridge_pushes_sent_total", ["sink": "phone", "slug": "b"]) == 1)
        #expect(metrics.seriesCount == 4)
        // A slug that comes back starts its series again; a label without an index works too.
        metrics.increment("livebridge_pushes_sent_total", ["sink": "phone", "slug": "a"])
        #expect(metrics.value("livebridge_pushes_sent_total", ["sink": "phone", "slug": "a"]) == 1)
        metrics.removeSeries(label: "reason", values: ["unavailable"])
        #expect(!metrics.render().contains("reason="))
        metrics.removeSeries(label: "slug", values: ["a", "b"])
        #expect(metrics.seriesCount == 1)
    }
}

@Suite("State store appends")
struct StateStoreAppendTests {
    @Test("a file append creates the file private to the user and adds at the end")
    func fileAppend() throws {
        let directory = try TemporaryDirectory(prefix: "append")
        defer { directory.remove() }
        let store = FileStateStore(directory: directory.path + "/data")
        try store.append("log/journal", Array("one\n".utf8))
        try store.append("log/journal", Array("two\n".utf8))
        #expect(try store.read("log/journal") == Array("one\ntwo\n".utf8))
        var status = stat()
        #expect(stat(directory.path + "/data/log/journal", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let memory = MemoryStateStore()
        try memory.append("journal", [1])
        try memory.append("journal", [2])
        #expect(try memory.read("journal") == [1, 2])
    }
}

/// A directory under /tmp for one test.
struct TemporaryDirectory {
    let path: String

    init(prefix: String) throws {
        var template = Array("/tmp/livebridge-\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = try #require(made.map { String(cString: $0) })
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
