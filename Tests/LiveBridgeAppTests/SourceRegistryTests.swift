import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeTestSupport
import Synchronization
import Testing

/// A source that exists only in this test: its descriptor is all that tells the command line,
/// `replay` and the demo about it.
enum TickSource {
    /// `{"tick": n, "of": total}` per line, `t` seconds in.
    static var descriptor: SourceDescriptor {
        SourceDescriptor(
            type: "tick", summary: "counts ticks",
            replay: ReplayFormat(
                name: "tick", summary: "tick counts", detects: { $0.objectValue?["tick"] != nil }
            ) { lines, base in
                try lines.enumerated().filter { !$0.element.isEmpty }.map { offset, line in
                    guard let json = try? JSONParser.parse(line), let t = json["t"]?.doubleValue,
                        let tick = json["tick"]?.doubleValue, let total = json["of"]?.doubleValue, total > 0
                    else { throw ReplayError(line: offset + 1, message: "expected {\"t\", \"tick\", \"of\"}") }
                    var update = ActivityUpdate(
                        slug: "tick", name: "Tick", phase: tick >= total ? .ended(.success) : .active,
                        content: GenericContent(state: tick >= total ? "Done" : "Ticking"), progress: tick / total)
                    update.observedAt = base + t
                    return update
                }
            },
            demo: DemoScenario(summary: "a tick counter") { base in
                [
                    ActivityUpdate(
                        slug: "tick-demo", name: "Tick", phase: .active, content: GenericContent(state: "Ticking"),
                        progress: 0, observedAt: base)
                ]
            }
        ) { entry, _ in
            entry.reader.finish()
            return nil
        }
    }
}

@Suite("The source registry: one descriptor per source")
struct SourceRegistryTests {
    var registry: ComponentRegistry {
        var registry = ComponentRegistry.standard
        registry.sources.append(TickSource.descriptor)
        return registry
    }

    @Test("the usage text lists every registered source's replay format")
    func usageListsFormats() {
        #expect(LiveBridgeCommand.usage().contains("--format updates|sabnzbd|bambu|homeassistant|mqtt]"))
        #expect(LiveBridgeCommand.usage(registry).contains("--format updates|sabnzbd|bambu|homeassistant|mqtt|tick]"))
    }

    @Test("replay detects a registered source's format from its first record and runs it")
    func replayDetects() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/ticks.jsonl"
        let lines = (0...10).map { "{\"t\": \($0 * 6), \"tick\": \($0), \"of\": 10}" }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let err = Mutex("")
        let output = CommandOutput(out: { _ in }, err: { text in err.withLock { $0 += text } })
        let status = await LiveBridgeCommand.run(
            ["replay", file, "--quiet"], environment: [:], output: output, registry: registry)
        #expect(status == 0, "\(err.withLock { $0 })")
        #expect(err.withLock { $0 }.contains("replay (tick, pushward): pushes="))
        // Without the descriptor the same file is read as `updates`, which it is not.
        err.withLock { $0 = "" }
        let unknown = await LiveBridgeCommand.run(["replay", file, "--quiet"], environment: [:], output: output)
        #expect(unknown != 0)
    }

    @Test("a registered format's line error names the line")
    func replayError() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/ticks.jsonl"
        try "{\"t\": 0, \"tick\": 0, \"of\": 10}\n{\"t\": 1, \"tick\": \"x\"}".write(
            toFile: file, atomically: true, encoding: .utf8)
        let err = Mutex("")
        let output = CommandOutput(out: { _ in }, err: { text in err.withLock { $0 += text } })
        let status = await LiveBridgeCommand.run(
            ["replay", file, "--format", "tick"], environment: [:], output: output, registry: registry)
        #expect(status == 65)
        #expect(err.withLock { $0 }.contains("line 2: expected {\"t\", \"tick\", \"of\"}"))
    }

    @Test("the demo plays every registered source's scenario, each starting after the one before")
    func demoScenarios() throws {
        let updates = try DemoCommand.scenario(base: 1000, registry: registry)
        let firstSeen = Dictionary(grouping: updates, by: \.slug).mapValues { $0.compactMap(\.observedAt).min() ?? 0 }
        #expect(firstSeen["tick-demo"] == 1000 + 4 * DemoCommand.stagger, "the fifth demo, after the standard four")
        for slug in ["sabnzbd-demo", "bambu-demo", "ha-washer", "klipper-demo"] {
            #expect(firstSeen[slug] != nil, "\(slug)")
        }
        #expect(updates.map { $0.observedAt ?? 0 } == updates.map { $0.observedAt ?? 0 }.sorted())
    }
}
