import Foundation
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// The adapter against real printers as far as it can tell: a mosquitto broker with TLS (a
/// certificate with CN = serial, made at test time) and password login, a simulated firmware
/// publishing on it, and the real engine and PushWard sink in front of a strict fake PushWard.
@Suite("Bambu adapter against a TLS mosquitto broker", .serialized, .timeLimit(.minutes(2)))
struct BambuBrokerTests {
    static let x1Serial = "00M09A350100123"
    static let p1Serial = "01P00A000000001"

    static let calibration = [
        "Preparing", "Heatbed preheating", "Homing toolhead", "Auto bed leveling", "Heating hotend",
        "Cleaning nozzle tip",
    ]

    @Test("an X1 full-report print: one activity from Preparing through every stage to a green Complete")
    func x1Print() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "x1c", serial: Self.x1Serial, model: .x1)
            try await printer.connect()
            #expect(bench.creates(printer.slug) == 0, "an idle printer has no activity")
            try await printer.play(SimulatedPrintScript(model: .x1, name: "Benchy", layers: 40).steps())
            await bench.advance(by: 10)
            await printer.close()

            let slug = "bambu-00m09a350100123"
            #expect(printer.slug == slug)
            #expect(bench.states(slug) == Self.calibration + ["Printing", "Complete"])
            let activity = try #require(bench.fake.activity(slug))
            #expect(activity.creates == 1)
            #expect(activity.state == "ended")
            #expect(activity.content["state"] == "Complete" && activity.content["accent_color"] == "green")
            #expect(activity.content["progress"] == 1)
            #expect(activity.content["subtitle"] == "Benchy")
            #expect(activity.name == "x1c")
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
            // The printing frame says "Printing", carries the layer in its volatile subtitle and glides to
            // the finish.
            let contents = bench.fake.records.compactMap { $0.body?["content"] }
            let printing = try #require(
                contents.first { $0["subtitle"]?.stringValue?.hasPrefix("Layer 1/40 · ") == true })
            #expect(printing["state"] == "Printing")
            #expect(printing["live_progress"] == true && printing["end_date"]?.intValue != nil)
            #expect(
                contents.contains {
                    $0["subtitle"]?.stringValue?.contains("Benchy · 2") == true
                        && $0["subtitle"]?.stringValue?.hasSuffix("°C · Standard") == true
                })
            #expect(printer.simulator.pushallRequests == 1, "pushall only on connect")
            let health = try #require(bench.health(of: "x1c"))
            #expect(health.details["connection"] == "stopped")
            #expect(health.details["certificate"]?.hasPrefix("sha256 ") == true)
            #expect(health.lastEventAt != nil)
            #expect(!bench.logText.contains(BenchPrinter.accessCode), "the access code never reaches a log line")
        }
    }

    @Test("a P1 delta print: deltas merged onto the pushall answer; the activity shows the same story")
    func p1DeltaPrint() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await printer.connect()
            let steps = SimulatedPrintScript(model: .p1, name: "Gridfinity Bin", layers: 60).steps()
            try await printer.play(steps)
            await bench.advance(by: 10)
            await printer.close()
            #expect(bench.states(printer.slug) == Self.calibration + ["Printing", "Complete"])
            // Every report after the first was a delta; the state still knew the job name from the pushall merge.
            let reports = printer.events.items.compactMap { event -> BambuReport? in
                if case .report(let report, _, _) = event { return report }
                return nil
            }
            #expect(reports.count == steps.count + 1)
            #expect(reports.dropFirst().allSatisfy { $0.messageKind == 1 })
            #expect(reports.first?.messageKind == 0)
            #expect(bench.fake.activity(printer.slug)?.content["subtitle"] == "Gridfinity Bin")
            #expect(bench.fake.activity(printer.slug)?.creates == 1)
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test(
        "pause/resume, filament runout, cancel and failure reach the phone as such",
        arguments: [
            (
                SimulatedPrinterModel.p1, SimulatedPrintScript.Ending.pause(atPercent: 40, reports: 3),
                ["Printing", "Paused by the user", "Printing", "Complete"], "green"
            ),
            (
                .a1, .runout(atPercent: 50, reports: 2),
                ["Printing", "Paused: filament runout", "Printing", "Complete"], "green"
            ),
            (.p1, .cancel(atPercent: 30), ["Printing", "Cancelled"], "orange"),
            (.x1, .fail(atPercent: 55), ["Printing", "Failed: Z-axis step loss"], "red"),
        ])
    func endings(model: SimulatedPrinterModel, ending: SimulatedPrintScript.Ending, expected: [String], color: String)
        async throws
    {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "printer", serial: Self.p1Serial, model: model)
            try await printer.connect()
            try await printer.play(SimulatedPrintScript(model: model, name: "Hook", ending: ending).steps())
            await bench.advance(by: 10)
            await printer.close()
            #expect(bench.states(printer.slug) == Self.calibration + expected)
            let activity = try #require(bench.fake.activity(printer.slug))
            #expect(activity.state == "ended" && activity.creates == 1)
            #expect(activity.content["accent_color"]?.stringValue == color)
            #expect(activity.content["live_progress"] == nil && activity.content["end_date"] == nil)
            if expected.contains(where: { $0.hasPrefix("Paused") }) {
                let paused = try #require(
                    bench.fake.records.first { $0.body?["content"]?["state"]?.stringValue?.hasPrefix("Paused") == true }
                )
                #expect(paused.body?["content"]?["live_progress"] == .null, "a paused bar stops gliding")
            }
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }
}
