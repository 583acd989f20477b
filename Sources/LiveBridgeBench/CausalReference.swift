import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// What a sender that cannot see the future can do on a print whose slicer estimate is biased,
/// against the oracle that can: the yardstick for how much of a print family's gap to the oracle
/// any policy could close.
///
/// The oracle glides once from the start of printing to the true end (its three pushes: the seed,
/// the card change, the end). A sender that reads the observations as they come pushes the card
/// change with the source's own finish, and once the bar is 0.9 ε off the count corrects it once:
/// anchored on the count, aimed at the finish the print's own pace since it began printing gives
/// (measured from the time its current count was first seen). Where the rest of the print stays
/// within ε, one correction was enough — the most that 1.5 × the oracle's three pushes allows.
enum CausalReference {
    /// True when one correction (or none) keeps the print's bar within `epsilon` to its end.
    static func holdsWithOneCorrection(_ updates: [ActivityUpdate], epsilon: Double) -> Bool {
        let truth = JobTruth(updates)
        let observations = updates.filter { $0.phase == .active && $0.observedAt != nil && $0.progress != nil }
        // The stretch the oracle glides over: from the last card change (preparation → printing).
        let start = truth.changes.last ?? truth.start
        guard let first = observations.first(where: { $0.observedAt! >= start }),
            let finish = first.eta?.finish(observedAt: first.observedAt!), let p0 = first.progress
        else { return false }
        let t0 = first.observedAt!
        let initial = DisplayAnchor(progress: p0, time: t0, endDate: finish.rounded(), live: true)
        var anchor = initial
        var corrected = false
        var firstSeen: (progress: Double, time: Double) = (p0, t0)
        for observation in observations where observation.observedAt! > t0 {
            let t = observation.observedAt!
            let p = observation.progress!
            if p > firstSeen.progress { firstSeen = (p, t) }
            guard !corrected, abs(anchor.shown(at: t, model: .interpolating) - p) > 0.9 * epsilon else { continue }
            let elapsed = firstSeen.time - t0
            guard elapsed > 0, p > p0 else { return false }
            let rate = (p - p0) / elapsed
            anchor = DisplayAnchor(progress: p, time: t, endDate: (t + (1 - p) / rate).rounded(), live: true)
            corrected = true
        }
        // From the correction (or the card change) on, every grid point within ε.
        let times = truth.grid().filter { $0 >= anchor.time && $0 < truth.end }
        for (t, value) in zip(times, truth.values(at: times))
        where abs(anchor.shown(at: t, model: .interpolating) - value) > epsilon {
            return false
        }
        return true
    }

    /// Per print family of the corpus: how many of its variants one correction holds.
    static func run(epsilon: Double, variants: Int = Corpus.variants) -> [(family: String, held: Int, of: Int)] {
        Corpus.families.enumerated().filter { $0.element.kind == .print }.map { index, family in
            let held = (0..<variants).filter { variant in
                let seed = CorpusBench.seed(family: index, variant: variant)
                return holdsWithOneCorrection(family.generate(seed, ReplayCommand.base), epsilon: epsilon)
            }.count
            return (family.name, held, variants)
        }
    }
}
