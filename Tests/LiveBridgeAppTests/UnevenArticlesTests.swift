import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// A slow server's articles landing one by one at uneven times (the corpus's `uneven-articles`
/// family, the shape of the slow SABnzbd recordings): the pace is measured over as many of their
/// gaps as their unevenness asks for (`EconomySettings.paceNoise`).
@Suite("Uneven articles")
struct UnevenArticlesTests {
    struct Outcome {
        var pushes = 0
        /// Jobs whose bar was more than ε from the truth at some moment.
        var overEpsilon = 0
    }

    static func run(_ settings: EconomySettings, variants: Range<Int>) -> Outcome {
        var outcome = Outcome()
        for variant in variants {
            let updates = Corpus.job(named: "uneven-articles:\(variant)")?.updates ?? []
            #expect(!updates.isEmpty)
            let result = EconomySimulation(model: .interpolating, settings: settings).run(updates)
            outcome.pushes += result.pushes.count
            if result.maxError > settings.maxDisplayError + 1e-9 { outcome.overEpsilon += 1 }
        }
        return outcome
    }

    @Test("a pace over uneven articles holds enough of them: fewer pushes, no more jobs off by ε")
    func steadierPace() {
        var short = EconomySettings()
        short.paceNoise = 0
        let variants = 0..<10
        let measured = Self.run(EconomySettings(), variants: variants)
        let shortWindow = Self.run(short, variants: variants)
        #expect(
            measured.pushes < shortWindow.pushes,
            "\(measured.pushes) pushes, \(shortWindow.pushes) over a quarter of the job's age")
        #expect(
            measured.overEpsilon <= shortWindow.overEpsilon,
            "\(measured.overEpsilon) jobs over ε, \(shortWindow.overEpsilon) over a quarter of the job's age")
    }
}
