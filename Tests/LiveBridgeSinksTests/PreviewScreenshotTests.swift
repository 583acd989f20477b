import Foundation
import LiveBridgeCore
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

/// A realistic home-lab scene: a download whose speed changes, a print through heating and
/// layers, a washer on a fixed Home Assistant timer, and a download that already finished.
enum PreviewScene {
    static let start: Double = 1_781_517_600
    /// When the screenshot is taken.
    static let shot = start + 420

    static func download(at t: Double) -> ActivityUpdate? {
        let elapsed = t - start
        guard elapsed >= 0 else { return nil }
        let fast = 0.0009, faster = 0.00115
        let progress = elapsed < 200 ? 0.05 + fast * elapsed : 0.05 + fast * 200 + faster * (elapsed - 200)
        let rate = elapsed < 200 ? fast : faster
        var content = GenericContent(
            state: "Downloading", icon: "arrow.down.circle.fill", accentColor: "blue")
        content.urlAction = .value(
            ActionObject(url: "https://sab.example.lan/", foreground: true, title: "Open", icon: "safari"))
        content.secondaryURLAction = .value(
            ActionObject(
                url: "https://ha.example.lan/api/webhook/sab-pause", method: "POST",
                headers: ["X-Token": "s3cr3t-token"],
                title: "Pause", icon: "pause.circle"))
        var details = GenericContent()
        details.subtitle = .value(
            String(format: "ubuntu-24.04.1-desktop-amd64.iso · %.1f MB/s", elapsed < 200 ? 38.6 : 49.3))
        return ActivityUpdate(
            slug: "sabnzbd-home", name: "SABnzbd (home)", phase: .active, content: content, details: details,
            progress: progress, eta: .remaining((1 - progress) / rate), priority: 2, observedAt: t)
    }

    /// Heats from 15 minutes before the scene, prints at one speed, then slows down on a
    /// detailed section: the moved ETA is pushed, with fresh details (layer 120 of 300).
    static func printer(at t: Double) -> ActivityUpdate? {
        let heatingEnds = start - 840, slowdown = start + 390
        let fast = 0.4 / 1233, slow = fast * 0.8
        var details = GenericContent()
        guard t >= heatingEnds else {
            let heated = t - (start - 900)
            details.subtitle = .value(
                String(format: "benchy.3mf · Nozzle %.0f °C · Bed %.0f °C", 60 + heated * 2.6, 30 + heated * 0.58))
            return ActivityUpdate(
                slug: "bambu-x1c", name: "Bambu X1C", phase: .active,
                content: GenericContent(state: "Heating", icon: "flame.fill", accentColor: "orange"), details: details,
                progress: 0, priority: 1, observedAt: t)
        }
        let progress = t < slowdown ? (t - heatingEnds) * fast : (slowdown - heatingEnds) * fast + (t - slowdown) * slow
        let rate = t < slowdown ? fast : slow
        details.subtitle = .value("Layer \(Int((progress * 300).rounded()))/300 · benchy.3mf · 220 °C / 65 °C")
        return ActivityUpdate(
            slug: "bambu-x1c", name: "Bambu X1C", phase: .active,
            content: GenericContent(state: "Printing", icon: "mdi:printer-3d-nozzle", accentColor: "green"),
            details: details, progress: progress, eta: .remaining((1 - progress) / rate), priority: 1, observedAt: t)
    }

    static func washer(at t: Double) -> ActivityUpdate? {
        guard t >= start else { return nil }
        let began = start - 1800, finish = start + 1800
        let progress = (t - began) / (finish - began)
        let rinsing = t - start >= 240
        var content = GenericContent(
            state: rinsing ? "Rinsing" : "Washing", icon: "washer.fill", subtitle: "Cotton 40° · 1400 rpm",
            accentColor: "cyan")
        content.tapAction = .value(ActionObject(url: "homeassistant://navigate/lovelace/laundry"))
        return ActivityUpdate(
            slug: "ha-washer", name: "Washer", phase: .active, content: content, progress: progress,
            eta: .finishesAt(finish), observedAt: t)
    }

    static func finished(at t: Double) -> ActivityUpdate? {
        let elapsed = t - start
        guard elapsed >= 0, elapsed <= 160 else { return nil }
        let progress = min(1, 0.62 + elapsed * 0.0026)
        if progress >= 1 {
            return ActivityUpdate(
                slug: "sabnzbd-debian", name: "SABnzbd (home) · debian", phase: .ended(.success),
                content: GenericContent(
                    state: "Complete", icon: "checkmark.circle.fill",
                    subtitle: "debian-12.8.0-amd64-DVD-1.iso · 3.7 GB",
                    accentColor: "green"),
                progress: 1, observedAt: t)
        }
        return ActivityUpdate(
            slug: "sabnzbd-debian", name: "SABnzbd (home) · debian", phase: .active,
            content: GenericContent(
                state: "Downloading", icon: "arrow.down.circle.fill", subtitle: "debian-12.8.0-amd64-DVD-1.iso",
                accentColor: "blue"),
            progress: progress, eta: .remaining((1 - progress) / 0.0026), observedAt: t)
    }

    static func updates(at t: Double) -> [ActivityUpdate] {
        [finished(at: t), download(at: t), printer(at: t), washer(at: t)].compactMap { $0 }
    }
}

@Suite("Preview page screenshot of a realistic scene")
struct PreviewScreenshotTests {
    /// Set `LIVEBRIDGE_UPDATE_DOCS_SCREENSHOT=1` to also copy the screenshot to docs/preview.png.
    @Test(
        "a download, a print at layer 120/300, a washer timer and an ended job render as cards", .timeLimit(.minutes(2))
    )
    func realisticScene() async throws {
        let browser = try HeadlessBrowser()
        let harness = try await PreviewHarness.make(start: PreviewScene.start - 900, budget: 250)
        defer { harness.shutdown() }
        await harness.run(until: PreviewScene.shot, every: 3) { PreviewScene.updates(at: $0) }

        let html = try await browser.dumpDOM(harness.url, width: 1440, height: 1180)
        let dom = PreviewDOM(html)
        try html.write(
            toFile: try PreviewArtifacts.directory() + "/preview-scene.html", atomically: true, encoding: .utf8)
        #expect(dom.sections.map(\.slug) == ["sabnzbd-home", "bambu-x1c", "ha-washer", "sabnzbd-debian"])
        let printer = try #require(dom.section("bambu-x1c"))
        #expect(printer.html.contains("/300 · benchy.3mf"))
        #expect(printer.motion == "gliding")
        #expect(dom.section("sabnzbd-debian")?.state == "ended")
        #expect(!dom.sections.contains { $0.html.contains("s3cr3t-token") })

        let path = try PreviewArtifacts.directory() + "/preview-scene.png"
        try await browser.screenshot(harness.url, to: path, width: 1440, height: 1180)
        print("preview screenshot: \(path)")
        #expect(FileManager.default.fileExists(atPath: path))
        if ProcessInfo.processInfo.environment["LIVEBRIDGE_UPDATE_DOCS_SCREENSHOT"] == "1" {
            let docs = PreviewArtifacts.packageRoot + "/docs/preview.png"
            try? FileManager.default.removeItem(atPath: docs)
            try FileManager.default.copyItem(atPath: path, toPath: docs)
            print("updated \(docs)")
        }
    }
}
