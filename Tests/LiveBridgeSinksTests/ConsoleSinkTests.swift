import LiveBridgeCore
import LiveBridgeSinks
import Synchronization
import Testing

@Suite("Console sink")
struct ConsoleSinkTests {
    final class Lines: Sendable {
        let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
        var writer: ConsoleSink.Writer { { line in self.storage.withLock { $0.append(line) } } }
    }

    /// Runs a short download through a real tracker and the console sink.
    func run(format: ConsoleSink.Format, model: DisplayModel = .interpolating) async throws -> [String] {
        let lines = Lines()
        let clock = VirtualClock()
        let sink = ConsoleSink(name: "dry-run", format: format, displayModel: model, writer: lines.writer, clock: clock)
        var tracker = ActivityTracker(slug: "sabnzbd-home", model: sink.displayModel, settings: EconomySettings())
        let start = clock.now
        for t in stride(from: 0.0, through: 600, by: 60) {
            clock.advance(to: start + t)
            let update = ActivityUpdate(
                slug: "sabnzbd-home", name: "SABnzbd (home)", phase: t < 600 ? .active : .ended(.success),
                content: GenericContent(state: t < 600 ? "Downloading" : "Complete"),
                details: GenericContent(subtitle: "11.8 MB/s"), progress: t < 600 ? t / 600 : nil,
                eta: t < 600 ? .remaining(600 - t) : nil, observedAt: clock.now)
            for frame in tracker.handle(update, at: clock.now) { _ = try await sink.deliver(frame) }
        }
        clock.advance(by: 4)
        for frame in tracker.tick(at: clock.now) { _ = try await sink.deliver(frame) }
        return lines.all
    }

    @Test("text: one readable line per frame, from seed to end")
    func text() async throws {
        let lines = try await run(format: .text)
        #expect(lines.count >= 3)
        let first = try #require(lines.first)
        let expected = "2026-06-15T10:00:00Z sabnzbd-home #1 seed (start) 0% \"Downloading\" · 11.8 MB/s · ends "
        #expect(first.hasPrefix(expected))
        #expect(first.contains("(gliding)") && first.contains("patch {"))
        let final = try #require(lines.dropLast().last)
        #expect(
            final.contains("final (final)") && final.contains("outcome=success") && final.contains("100% \"Complete\""))
        let last = try #require(lines.last)
        #expect(last.contains("end (end) state=ended") && !last.contains("patch"))
    }

    @Test("jsonl: every line is a JSON object with the frame's fields")
    func jsonLines() async throws {
        let lines = try await run(format: .jsonl)
        let objects = try lines.map { try JSONParser.parse($0) }
        #expect(objects.count == lines.count && objects.count >= 3)
        #expect(objects.map { $0["sequence"]?.intValue } == Array(1...objects.count).map { Optional($0) })
        let seed = try #require(objects.first)
        #expect(seed["kind"] == "seed" && seed["sink"] == "dry-run" && seed["slug"] == "sabnzbd-home")
        #expect(seed["name"] == "SABnzbd (home)" && seed["state"] == "ongoing" && seed["reason"] == "start")
        #expect(seed["content"]?["live_progress"] == true && seed["patch"]?["template"] == "generic")
        #expect(objects.last?["kind"] == "end" && objects.last?["state"] == "ended")
    }

    @Test("the static display model previews the state-object economy (more pushes, no glide)")
    func staticModel() async throws {
        let interpolating = try await run(format: .jsonl)
        let stillBar = try await run(format: .jsonl, model: .static)
        #expect(stillBar.count > interpolating.count)
        let seed = try JSONParser.parse(try #require(stillBar.first))
        #expect(seed["content"]?["live_progress"] == nil && seed["content"]?["remaining_time"] == 600)
    }

    @Test("secrets never reach the console")
    func redaction() async throws {
        let secret = "sok_CANARYconsole0123456789"
        Redactor.shared.register(secret)
        let lines = Lines()
        let sink = ConsoleSink(name: "dry-run", format: .text, writer: lines.writer, clock: VirtualClock())
        let frame = ActivityFrame(
            slug: "x", name: "x", kind: .update, activityState: "ongoing", patch: ["subtitle": .string(secret)],
            content: ["progress": 0.5, "subtitle": .string(secret)], time: 0, reason: .structural, sequence: 1)
        _ = try await sink.deliver(frame)
        #expect(lines.all.count == 1 && !lines.all[0].contains("CANARY") && lines.all[0].contains("[redacted]"))
        #expect(sink.type == "console" && sink.displayModel == .interpolating)
    }
}
