import Foundation
import LiveBridgeCore
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

/// The real page in a real browser: headless Chromium loads it from the preview sink while an
/// engine on a virtual clock feeds three jobs, and the bars it draws are checked against the
/// simulated truth and the Swift display model at two instants.
@Suite("Preview page in headless Chromium")
struct PreviewBrowserTests {
    static let start: Double = 1_781_517_600

    /// A download at a constant 1/1200 per second: the bar glides.
    static func downloadTruth(_ t: Double) -> Double { 0.1 + (t - start) / 1200 }
    /// A print that pauses after a minute: the bar holds still.
    static let pausedAt = start + 60
    static func printTruth(_ t: Double) -> Double { 0.2 + (min(t, pausedAt) - start) / 3600 }
    /// A washer that finishes after 90 s.
    static let washerDone = start + 90

    static func updates(at t: Double) -> [ActivityUpdate] {
        var updates = [
            ActivityUpdate(
                slug: "download", name: "Download", phase: .active,
                content: GenericContent(state: "Downloading", icon: "arrow.down.circle", accentColor: "blue"),
                progress: downloadTruth(t), eta: .remaining((1 - downloadTruth(t)) * 1200), observedAt: t)
        ]
        let paused = t >= pausedAt
        updates.append(
            ActivityUpdate(
                slug: "printer", name: "Printer", phase: paused ? .paused : .active,
                content: paused
                    ? GenericContent(state: "Paused", icon: "pause.circle.fill", accentColor: "orange")
                    : GenericContent(state: "Printing", icon: "printer.fill", accentColor: "green"),
                progress: printTruth(t), eta: paused ? nil : .remaining((1 - printTruth(t)) * 3600), observedAt: t))
        if t <= washerDone + 10 {
            let done = t >= washerDone
            updates.append(
                ActivityUpdate(
                    slug: "washer", name: "Washer", phase: done ? .ended(.success) : .active,
                    content: done
                        ? GenericContent(state: "Complete", icon: "checkmark.circle.fill", accentColor: "green")
                        : GenericContent(state: "Washing", icon: "washer", accentColor: "cyan"),
                    progress: done ? 1 : 0.5 + (t - start) / 180, eta: done ? nil : .finishesAt(washerDone),
                    observedAt: t))
        }
        return updates
    }

    /// Checks the page at the current virtual instant.
    func checkPage(_ harness: PreviewHarness, browser: HeadlessBrowser, instant: Double) async throws {
        let dom = PreviewDOM(try await browser.dumpDOM(harness.url))
        let now = try #require(dom.now, "the page drew nothing: no data-now on <body>")
        // The page follows the bridge's clock (frozen here) plus the little time it ran itself.
        #expect(now >= instant && now <= instant + 3, "page time \(now) vs bridge time \(instant)")
        #expect(Set(dom.sections.map(\.slug)) == ["download", "printer", "washer"])
        let board = harness.sink.currentBoard

        let download = try #require(dom.section("download"))
        let downloadShown = try #require(download.shown)
        #expect(download.state == "ongoing" && download.motion == "gliding")
        #expect(abs(downloadShown - Self.downloadTruth(now)) <= 0.03, "download bar vs simulated truth")
        let downloadModel = try #require(board.activity("download")).shownProgress(at: now)
        #expect(
            abs(downloadShown - downloadModel) <= 1e-4,
            "download bar vs DisplayAnchor: \(downloadShown) \(downloadModel)")
        #expect(download.percent == "\(Int((downloadShown * 100 + 1e-9).rounded(.down)))%")
        #expect(download.html.contains("class=\"island\""))

        let printer = try #require(dom.section("printer"))
        let printerShown = try #require(printer.shown)
        #expect(printer.state == "ongoing" && printer.motion == "static")
        #expect(abs(printerShown - Self.printTruth(now)) <= 0.005, "paused bar vs simulated truth")
        #expect(printer.html.contains("Paused"))

        let washer = try #require(dom.section("washer"))
        #expect(washer.state == "ended" && washer.motion == "static" && washer.percent == "100%")
        #expect(washer.shown == 1)
        #expect(washer.html.contains("class=\"card ended\""))
        #expect(washer.html.contains("class=\"badge-ended\">Ended<"))
        #expect(washer.html.contains("class=\"island-gone\"") && !washer.html.contains("class=\"island\""))
    }

    @Test("cards, gliding and paused bars at two instants, and the ended look", .timeLimit(.minutes(3)))
    func pageMatchesTruth() async throws {
        let browser = try HeadlessBrowser()
        let harness = try await PreviewHarness.make(start: Self.start)
        defer { harness.shutdown() }

        let first = Self.start + 150
        await harness.run(until: first, every: 5) { Self.updates(at: $0) }
        try await checkPage(harness, browser: browser, instant: first)

        let second = Self.start + 420
        await harness.run(until: second, every: 5) { Self.updates(at: $0) }
        try await checkPage(harness, browser: browser, instant: second)

        let path = try PreviewArtifacts.directory() + "/preview-browser-test.png"
        try await browser.screenshot(harness.url, to: path, width: 1280, height: 900)
        print("preview browser test screenshot: \(path)")
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
