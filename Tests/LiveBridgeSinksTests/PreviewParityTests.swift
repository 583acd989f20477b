import Foundation
import LiveBridgeCore
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

/// The page's bar must be the Swift display model, bit for bit: the function the page embeds is
/// run by Node.js on a table of cases and compared with `DisplayAnchor.shown(at:model:)`.
@Suite("Preview interpolation parity with the Swift display model")
struct PreviewParityTests {
    struct Case: CustomStringConvertible {
        var label: String
        var anchor: DisplayAnchor
        var t: Double
        var description: String { label }
    }

    /// §12's worked example and every edge of the rule.
    static let table: [Case] = {
        let glide = DisplayAnchor(progress: 0.2, time: 1000, endDate: 1600, live: true)
        var cases = [
            Case(label: "before t0", anchor: glide, t: 999),
            Case(label: "at t0", anchor: glide, t: 1000),
            Case(label: "mid-glide (worked example: 0.6)", anchor: glide, t: 1300),
            Case(label: "just before E", anchor: glide, t: 1599.999),
            Case(label: "at E (back to p0)", anchor: glide, t: 1600),
            Case(label: "after E", anchor: glide, t: 2500),
            Case(
                label: "live false", anchor: DisplayAnchor(progress: 0.2, time: 1000, endDate: 1600, live: false),
                t: 1300),
            Case(
                label: "live without end_date",
                anchor: DisplayAnchor(progress: 0.2, time: 1000, endDate: nil, live: true), t: 1300),
            Case(
                label: "E in the past at push time, before",
                anchor: DisplayAnchor(progress: 0.3, time: 1000, endDate: 900, live: true), t: 950),
            Case(
                label: "E in the past at push time, after",
                anchor: DisplayAnchor(progress: 0.3, time: 1000, endDate: 900, live: true), t: 1100),
            Case(
                label: "E equal to t0", anchor: DisplayAnchor(progress: 0.3, time: 1000, endDate: 1000, live: true),
                t: 1000),
            Case(
                label: "p0 = 1 gliding", anchor: DisplayAnchor(progress: 1, time: 1000, endDate: 1600, live: true),
                t: 1300),
            Case(
                label: "p0 = 0 mid-glide", anchor: DisplayAnchor(progress: 0, time: 1000, endDate: 1600, live: true),
                t: 1450),
            Case(
                label: "p0 above 1 is clamped",
                anchor: DisplayAnchor(progress: 1.4, time: 1000, endDate: 1600, live: true), t: 1300),
            Case(
                label: "p0 below 0 is clamped",
                anchor: DisplayAnchor(progress: -0.5, time: 1000, endDate: 1600, live: true), t: 1300),
            Case(
                label: "real Unix times, fractional push time",
                anchor: DisplayAnchor(progress: 0.4217, time: 1_781_517_600.25, endDate: 1_781_518_399, live: true),
                t: 1_781_517_800.75),
        ]
        // Deterministic pseudo-random anchors and times around them.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for index in 0..<200 {
            let t0 = 1_781_517_600 + (next() * 86_400).rounded() / 4
            let end: Double? = next() < 0.1 ? nil : (t0 + (next() * 7200 - 600)).rounded()
            let anchor = DisplayAnchor(progress: next() * 1.2 - 0.1, time: t0, endDate: end, live: next() < 0.8)
            cases.append(Case(label: "random \(index)", anchor: anchor, t: t0 + next() * 8000 - 1000))
        }
        return cases
    }()

    static func runJavaScript(_ source: String) async throws -> String {
        guard let node = ExternalTool.locate(["node", "nodejs"]) else {
            throw PreviewTestError(
                description:
                    "Node.js not found; install it with `make deps` (scripts/deps/40-browser.sh installs nodejs)")
        }
        let directory = try TemporaryDirectory(prefix: "parity")
        defer { directory.remove() }
        let script = directory.file("parity.js")
        try source.write(toFile: script, atomically: true, encoding: .utf8)
        let outcome = try await ExternalTool.run(node, [script], timeout: 30)
        guard outcome.status == 0 else {
            throw PreviewTestError(description: "node exited with \(outcome.status): \(outcome.stderr.suffix(2000))")
        }
        return outcome.stdout
    }

    @Test("the page's shownProgress equals DisplayAnchor.shown for every case", .timeLimit(.minutes(1)))
    func parity() async throws {
        let cases: [JSONValue] = Self.table.map { item in
            [
                "anchor": [
                    "progress": .double(item.anchor.progress), "time": .double(item.anchor.time),
                    "endDate": item.anchor.endDate.map { .double($0) } ?? .null, "live": .bool(item.anchor.live),
                ],
                "t": .double(item.t),
            ]
        }
        let source =
            PreviewPage.interpolationFunction + "\n"
            + "const cases = \(JSONWriter.string(.array(cases)));\n"
            + "console.log(JSON.stringify(cases.map(c => \(PreviewPage.interpolationFunctionName)(c.anchor, c.t))));\n"
        let output = try await Self.runJavaScript(source)
        let results = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines)).arrayValue ?? []
        try #require(results.count == Self.table.count, "node printed: \(output.prefix(500))")
        for (item, result) in zip(Self.table, results) {
            let expected = item.anchor.shown(at: item.t, model: .interpolating)
            let shown = try #require(result.doubleValue, "\(item): \(result)")
            #expect(abs(shown - expected) <= 1e-12, "\(item): page \(shown), Swift \(expected)")
        }
        // The named cases pin the model's literal values too.
        let byLabel = Dictionary(uniqueKeysWithValues: zip(Self.table.map(\.label), results.compactMap(\.doubleValue)))
        #expect(abs(byLabel["mid-glide (worked example: 0.6)"]! - 0.6) < 1e-12)
        #expect(byLabel["at E (back to p0)"] == 0.2 && byLabel["after E"] == 0.2 && byLabel["before t0"] == 0.2)
        #expect(byLabel["E in the past at push time, after"] == 0.3 && byLabel["p0 = 1 gliding"] == 1)
        #expect(byLabel["p0 above 1 is clamped"] == 1 && abs(byLabel["p0 below 0 is clamped"]! - 0.5) < 1e-12)
    }

    @Test("the served page embeds exactly the function the parity test runs")
    func pageEmbedsTheFunction() {
        let page = PreviewPage.html(title: "t")
        #expect(page.contains(PreviewPage.interpolationFunction))
        #expect(page.contains("function \(PreviewPage.interpolationFunctionName)(anchor, t)"))
        // The page draws the bar, the percentage and the island ring through it.
        #expect(page.contains("const p = shownProgress(anchor, t);"))
    }
}
