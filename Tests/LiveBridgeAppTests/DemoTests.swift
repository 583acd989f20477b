import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeTestSupport
import Synchronization
import Testing

/// Lines a running command prints, as a stream tests can wait on (event-driven, no polling).
final class LineTap: Sendable {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let all = Mutex<[String]>([])

    var output: CommandOutput {
        CommandOutput(
            out: { line in
                self.all.withLock { $0.append(line) }
                self.continuation.yield(line)
            },
            err: { line in
                self.all.withLock { $0.append("stderr: " + line) }
                self.continuation.yield(line)
            })
    }

    /// The first line containing `text` (bounded by `seconds` of real time, a failure bound).
    func first(containing text: String, within seconds: Double = 30) async -> String? {
        await firstWithin(seconds) {
            for await line in self.stream where line.contains(text) { return line }
            return nil
        }
    }
}

@Suite("livebridge demo", .serialized)
struct DemoTests {
    @Test("plays all four sources once through the real mapping and exits cleanly")
    func playsOnce() async throws {
        let tap = LineTap()
        // 150×: faster, a millisecond of scheduling becomes most of a second of demo time, and the
        // economy's windows (coalescing, stall detection) are counted in demo time.
        let status = await LiveBridgeCommand.run(
            ["demo", "--speed", "150", "--once", "--port", "0"], environment: [:], output: tap.output)
        let lines = tap.all.withLock { $0 }
        #expect(status == 0, "\(lines.suffix(5))")
        #expect(lines.first?.contains("open http://127.0.0.1:") == true)
        for slug in ["sabnzbd-demo", "bambu-demo", "ha-washer", "klipper-demo"] {
            #expect(lines.contains { $0.contains("\(slug) #") && $0.contains(" seed (") }, "\(slug) never started")
            #expect(
                lines.contains { $0.contains(slug) && $0.contains(" end (end) state=ended") }, "\(slug) never ended")
        }
        #expect(lines.contains { $0.contains("Paused: filament runout") })
        #expect(lines.contains { $0.contains("Extracting") })
        #expect(lines.contains { $0.contains("Rinsing") })
        #expect(lines.contains { $0.contains("klipper-demo") && $0.contains("voron_cube.gcode · ends") })
        #expect(lines.last?.hasPrefix("demo stopped after 1 round(s)") == true)
    }

    @Test("usage errors are reported with the usage")
    func usage() async {
        let tap = LineTap()
        #expect(await LiveBridgeCommand.run(["demo", "--sped", "3"], environment: [:], output: tap.output) == 64)
        #expect(tap.all.withLock { $0.joined() }.contains("did you mean --speed?"))
    }

    @Test("the demo page shows the four jobs in a real browser")
    func pageInBrowser() async throws {
        let browser = try HeadlessBrowser()
        let tap = LineTap()
        let demo = Task {
            await LiveBridgeCommand.run(["demo", "--speed", "60", "--port", "0"], environment: [:], output: tap.output)
        }
        defer { demo.cancel() }
        let opened = try #require(await tap.first(containing: "open http://"))
        let url = try #require(opened.split(separator: " ").first { $0.hasPrefix("http://") }).description
        // Wait until every source has started on the phone (the console prints each push).
        #expect(await tap.first(containing: "klipper-demo #") != nil)
        let dom = try await browser.dumpDOM(url, virtualTimeBudget: 1200)
        for slug in ["sabnzbd-demo", "bambu-demo", "ha-washer", "klipper-demo"] {
            #expect(dom.contains("data-slug=\"\(slug)\""), "no card for \(slug)")
        }
        #expect(dom.contains("Downloading") && dom.contains("Washing"))
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../.build/artifacts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("demo.png").standardizedFileURL.path
        try await browser.screenshot(url, to: path, width: 1440, height: 1000)
        #expect(FileManager.default.fileExists(atPath: path))
        print("demo screenshot: \(path)")
        demo.cancel()
        #expect(await demo.value == 0)
    }
}
