import Testing

@testable import LiveBridgeCore

@Suite("Pace estimate")
struct PaceEstimateTests {
    /// A pace fed advances of one step each, `gaps` seconds apart.
    static func pace(gaps: [Double]) -> PaceEstimate {
        var pace = PaceEstimate()
        var t = 0.0
        pace.add(progress: 0, at: t, window: 10_000, settings: EconomySettings())
        for (index, gap) in gaps.enumerated() {
            t += gap
            pace.add(progress: Double(index + 1) * 0.01, at: t, window: 10_000, settings: EconomySettings())
        }
        return pace
    }

    @Test("how uneven the gaps between advances are: unknown before four, none for a count moving every poll")
    func irregularity() throws {
        #expect(Self.pace(gaps: [10, 20, 30]).irregularity(EconomySettings()) == nil)
        #expect(try #require(Self.pace(gaps: [2, 2, 2, 2, 2, 2]).irregularity(EconomySettings())) < 1e-9)
        // Articles landing 5 to 40 s apart: their spread is of the order of their mean.
        let uneven = try #require(Self.pace(gaps: [5, 40, 12, 30, 8, 35, 20, 10]).irregularity(EconomySettings()))
        #expect(uneven > 0.5 && uneven < 1, "\(uneven)")
        // The same rhythm at another speed is as uneven.
        let slower = try #require(
            Self.pace(gaps: [10, 80, 24, 60, 16, 70, 40, 20]).irregularity(EconomySettings()))
        #expect(abs(slower - uneven) < 1e-9)
    }

    @Test(
        "a restart where the count confirmed a change counts its pace from the shortest span, and keeps the speed before"
    )
    func confirmedRestart() throws {
        let settings = EconomySettings()
        // One step a second, then one every two seconds from t = 10.
        var pace = Self.pace(gaps: Array(repeating: 1, count: 10) + [2, 2])
        let old = try #require(pace.rate(at: 14, settings))
        var plain = pace
        plain.restart(at: 10)
        // Two advances over 4 s: fewer than `paceMinimumGaps` of the usual gap, no pace yet.
        #expect(4 < settings.paceMinimumGaps * (plain.gap ?? 0))
        #expect(plain.rate(at: 14, settings) == nil && plain.rateBeforeChange == nil)
        pace.restart(at: 10, changedFrom: old)
        let rate = try #require(pace.rate(at: 14, settings))
        #expect(abs(rate - 0.005) < 1e-9)
        #expect(pace.rateBeforeChange == old)
        // Not under the shortest span a pace needs at all.
        var short = Self.pace(gaps: Array(repeating: 1, count: 10) + [1.5])
        short.restart(at: 10, changedFrom: old)
        #expect(short.rate(at: 11.5, settings) == nil)
    }

    /// A count read every `poll` seconds from 0 at rest: `opening` from the first reading after the
    /// start on, on top of `rate` per second counted in steps of `step`.
    static func opening(_ opening: Double, rate: Double, step: Double, poll: Double, readings: Int) -> PaceEstimate {
        var pace = PaceEstimate()
        for index in 0...readings {
            let t = Double(index) * poll
            let moved = rate * t
            let count = index == 0 ? 0 : opening + (moved / step).rounded(.down) * step
            pace.add(progress: count, at: t, window: 10_000, settings: EconomySettings())
        }
        return pace
    }

    @Test(
        "a first advance from rest far above the advances after it (a repair job's missing articles counted at once) is the start's burst, not the pace; a staircase's first step landing early in its first poll, or an even start, is the pace"
    )
    func openingBurst() throws {
        let settings = EconomySettings()
        // 10.8 % at the first reading 30 s in, then an article of 0.82 % every 90 s.
        let burst = Self.opening(0.108, rate: 0.0082 / 90, step: 0.0082, poll: 30, readings: 12)
        #expect(burst.openingBurst(settings))
        let rate = try #require(burst.rate(at: 360, settings))
        #expect(abs(rate - 0.0082 / 90) < 0.2 * 0.0082 / 90, "\(rate)")
        // Nor its step: the count's articles, not the burst.
        let step = try #require(burst.step)
        #expect(abs(step - 0.0082) < 1e-9, "\(step)")
        // The same count with no burst, its first article landing by the first reading (a third
        // of the usual wait): that advance ran three times the pace, but it is one article.
        let staircase = Self.opening(0.0082, rate: 0.0082 / 90, step: 0.0082, poll: 30, readings: 12)
        #expect(!staircase.openingBurst(settings))
        // A download moving at every poll from its start.
        let even = Self.opening(0, rate: 0.01 / 3, step: 0.0001, poll: 3, readings: 12)
        #expect(!even.openingBurst(settings))
        // Known only from the third advance on: one advance after the burst says nothing yet.
        let early = Self.opening(0.108, rate: 0.0082 / 90, step: 0.0082, poll: 30, readings: 3)
        #expect(!early.openingBurst(settings))
    }

    @Test("three advances a sensor's half minute apart are three of its gaps, whatever its timestamps' milliseconds")
    func gapCountJitter() throws {
        // Reported 30.02, 30.00 and 29.98 s apart: 90.00 s in all, against a smoothed gap a few
        // ms above 30 s.
        let pace = Self.pace(gaps: [30.02, 30.0, 29.98])
        let gap = try #require(pace.gap)
        #expect(pace.span < 3 * gap, "the span falls short of three smoothed gaps by milliseconds")
        var exact = EconomySettings()
        exact.gapCountJitter = 0
        #expect(pace.rate(at: pace.span, exact) == nil, "read to the millisecond, the pace would wait a reading")
        let rate = try #require(pace.rate(at: pace.span, EconomySettings()))
        #expect(abs(rate - 0.03 / 90) < 1e-12)
        // Two gaps are not three, however the milliseconds fall.
        #expect(Self.pace(gaps: [30.02, 30.0]).rate(at: 60.02, EconomySettings()) == nil)
    }

    @Test("the window a pace over uneven advances needs grows with their unevenness, up to the longest window")
    func unevenWindow() {
        // A looser noise than the default, so the window stays below its cap here.
        var loose = EconomySettings()
        loose.paceNoise = 0.15
        let policy = EconomyPolicy(settings: loose, model: .interpolating)
        var memory = EconomyPolicy.Memory()
        memory.pace = Self.pace(gaps: [2, 2, 2, 2, 2, 2])
        #expect(policy.unevenWindow(memory) < 1e-9)
        #expect(EconomyPolicy(settings: EconomySettings(), model: .interpolating).unevenWindow(memory) < 1e-9)
        memory.pace = Self.pace(gaps: [5, 40, 12, 30, 8, 35, 20, 10])
        let window = policy.unevenWindow(memory)
        // (cv / paceNoise)² of the usual gap: far more than the four gaps every pace holds.
        let cv = memory.pace.irregularity(EconomySettings()) ?? 0
        let expected = (cv / 0.15) * (cv / 0.15) * (memory.pace.gap ?? 0)
        #expect(window < EconomySettings().paceWindowMaximum)
        #expect(abs(window - expected) < 1e-6)
        #expect(window > 4 * (memory.pace.gap ?? 0))
        // The default (ε) asks for more of them than half an hour holds.
        let strict = EconomyPolicy(settings: EconomySettings(), model: .interpolating)
        #expect(strict.unevenWindow(memory) == EconomySettings().paceWindowMaximum)
        var off = EconomySettings()
        off.paceNoise = 0
        #expect(EconomyPolicy(settings: off, model: .interpolating).unevenWindow(memory) == 0)
        var slow = memory
        slow.pace = Self.pace(gaps: [50, 400, 120, 300, 80, 350, 200, 100])
        #expect(policy.unevenWindow(slow) == EconomySettings().paceWindowMaximum)
    }

    /// Restarts of the pace window over a count advancing one step per article, the articles
    /// `usual` seconds apart on average and each 0.2–1.8 × that (seeded), the speed halving at
    /// `halvesAt` articles if given; returns the articles after which the window restarted, and
    /// the pace after the last one.
    static func restarts(seed: UInt64, articles: Int, halvesAt: Int? = nil, confidence: Double)
        -> (articles: [Int], rate: Double?)
    {
        var random = SeededRandom(seed: seed)
        var settings = EconomySettings()
        settings.paceChangeConfidence = confidence
        var pace = PaceEstimate()
        pace.add(progress: 0, at: 0, window: 100_000, settings: settings)
        var t = 0.0
        var restarts: [Int] = []
        for article in 1...articles {
            let usual = article > (halvesAt ?? .max) ? 40.0 : 20.0
            t += usual * Double.random(in: 0.2...1.8, using: &random)
            let before = pace.corners.count
            pace.add(
                progress: Double(article) * 0.001, at: t, window: 100_000, settings: settings, detectsChange: true)
            if pace.corners.count <= before { restarts.append(article) }
        }
        return (restarts, pace.rate(at: t, settings))
    }

    /// The pace over a count that waited `start` seconds for its first article, then advanced one
    /// article at each of `gaps`; the articles after which the window restarted at a change.
    static func changes(start: Double, gaps: [Double]) -> [Int] {
        let settings = EconomySettings()
        var pace = PaceEstimate()
        pace.add(progress: 0, at: 0, window: 100_000, settings: settings, detectsChange: true)
        var t = start
        var restarts: [Int] = []
        for (index, gap) in ([0] + gaps).enumerated() {
            t += gap
            let before = pace.corners.count
            pace.add(
                progress: Double(index + 1) * 0.0133, at: t, window: 100_000, settings: settings, detectsChange: true)
            if pace.corners.count <= before { restarts.append(index + 1) }
        }
        return restarts
    }

    @Test("the wait before a download's first article is not read as a slower speed; a real change still is")
    func startWaitIsNoSpeed() {
        // A slow server's first articles (`uneven-articles` 1): the first after 92 s, then one
        // connection's, 4–40 s apart. Against the first 92 s, the burst of six articles in 76 s
        // at t = 320–396 read as a speed doubled, and the countdown went 12 minutes short.
        let uneven: [Double] = [40, 28, 8, 36, 4, 20, 32, 24, 36, 8, 24, 20, 4, 20]
        #expect(Self.changes(start: 92, gaps: uneven).isEmpty)
        // After the same wait, articles 20 s apart, then 60 s apart: a change of speed.
        let slowing = Array(repeating: 20.0, count: 12) + Array(repeating: 60.0, count: 6)
        #expect(!Self.changes(start: 92, gaps: slowing).isEmpty)
    }

    @Test("articles landing unevenly at one speed restart the pace window a third as often; a halving still takes over")
    func changeBeyondChance() {
        let confidence = EconomySettings().paceChangeConfidence
        var byChance = 0
        var withoutConfidence = 0
        for seed in UInt64(1)...20 {
            byChance += Self.restarts(seed: seed, articles: 200, confidence: confidence).articles.count
            withoutConfidence += Self.restarts(seed: seed, articles: 200, confidence: 0).articles.count
            // 20 articles after the speed halves, the pace is the new speed (0.001 per 40 s),
            // not the average since the start (0.001 per 23 s), within what 20 uneven articles
            // can tell.
            let halving = Self.restarts(seed: seed, articles: 120, halvesAt: 100, confidence: confidence)
            let rate = halving.rate ?? 0
            #expect(abs(rate * 40_000 - 1) < 0.3, "seed \(seed): \(halving)")
        }
        // Four or five articles at a time run 1.6 × faster or slower than the ones before by
        // chance alone, many times over 20 steady downloads; a fraction as often beyond chance.
        #expect(withoutConfidence >= 100, "\(withoutConfidence)")
        #expect(byChance * 3 <= withoutConfidence, "\(byChance) of \(withoutConfidence)")
    }
}
