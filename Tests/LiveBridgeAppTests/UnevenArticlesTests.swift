import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// A slow server's articles landing one by one at uneven times (the corpus's `uneven-articles`
/// family, the shape of the slow SABnzbd recordings): the pace is measured over as many of their
/// gaps as their unevenness asks for (`EconomySettings.paceNoise`).
@Suite("Uneven articles")
struct UnevenArticlesTests {
    /// The family with the default settings against `without` (one mechanism off): fewer pushes
    /// and fewer `end_date` reversals, no more jobs off by ε.
    static func expectSteadier(
        than without: EconomySettings, _ against: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let measured = CorpusFamilyRun.run("uneven-articles", EconomySettings())
        let other = CorpusFamilyRun.run("uneven-articles", without)
        #expect(
            measured.pushes < other.pushes, "\(measured.pushes) pushes, \(other.pushes) \(against)",
            sourceLocation: sourceLocation)
        #expect(
            measured.reversals < other.reversals, "\(measured.reversals) reversals, \(other.reversals) \(against)",
            sourceLocation: sourceLocation)
        #expect(
            measured.overEpsilon <= other.overEpsilon,
            "\(measured.overEpsilon) jobs over ε, \(other.overEpsilon) \(against)", sourceLocation: sourceLocation)
    }

    @Test("a pace over uneven articles holds enough of them: fewer pushes and reversals, no more jobs off by ε")
    func steadierPace() {
        var short = EconomySettings()
        short.paceNoise = 0
        Self.expectSteadier(than: short, "over a quarter of the job's age")
    }

    @Test(
        "a slow server's first articles are not projected: fewer pushes and reversals than a pace read from the first bursts, no more jobs off by ε"
    )
    func firstBurstsNotProjected() {
        var projecting = EconomySettings()
        projecting.lookaheadStaircaseSpan = 0
        Self.expectSteadier(than: projecting, "projecting the first bursts")
    }

    @Test(
        "a step later than usual but within the longest of the recent waits never stops the bar (a push to stand, another to glide)"
    )
    func lateStepKeepsGliding() {
        var checked = 0
        for variant in 0..<Corpus.variants {
            let updates = Corpus.job(named: "uneven-articles:\(variant)")?.updates ?? []
            let pushes = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates).pushes
            // When the count moved, as the observations show it.
            var changes: [Double] = []
            var last: Double?
            for update in updates where update.phase == .active {
                guard let p = update.progress, let t = update.observedAt else { continue }
                if last.map({ p > $0 + 1e-9 }) ?? true { changes.append(t) }
                last = p
            }
            for push in pushes where push.frame.kind == .update && push.frame.content["live_progress"] == nil {
                // A bar standing while the job still has most of a glide's worth to go.
                guard (push.frame.truthProgress ?? 1) < 0.9 else { continue }
                let before = changes.filter { $0 <= push.time }
                guard before.count >= 9, let since = before.last else { continue }
                let recent = zip(before.suffix(9), before.suffix(8)).map { $1 - $0 }
                checked += 1
                #expect(
                    push.time - since > recent.max()! - 1e-6,
                    "variant \(variant) at \(push.time - (updates.first?.observedAt ?? 0)): stood \(push.time - since) s after a step, recent waits up to \(recent.max()!) s"
                )
            }
        }
        // Standing bars remain where the count is late beyond its rhythm (a stall).
        #expect(checked > 0)
    }
}
