import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// Deterministic synthetic jobs, shaped like what the adapters see from real sources.
///
/// Each generator emits the observations the adapter would emit (the bench's stand-in for the
/// adapter's mapping): the truth the source reports, at the resolution it reports it.
enum SyntheticJobs {
    // MARK: - Bambu Lab print

    /// A print as a Bambu Lab printer reports it: a preparation stage (heating, levelling) without
    /// an estimate, then printing with `mc_percent` in whole percent and `mc_remaining_time` in
    /// whole minutes, one report every `interval` seconds.
    ///
    /// The printer's progress and estimate follow the slicer's time model, while the real speed
    /// of each of 48 sections differs from it (×0.92…1.18, seeded): the estimate is honest but
    /// wrong by a few percent, changing from section to section, as on real printers. An optional
    /// pause (filament change) holds everything for `pauseMinutes`.
    static func print(
        seed: UInt64, slicerMinutes: Double, pauseAtFraction: Double? = nil, pauseMinutes: Double = 0,
        interval: Double = 2, base: Double
    ) -> [ActivityUpdate] {
        var random = SeededRandom(seed: seed)
        let slicerTotal = slicerMinutes * 60
        let sections = 48
        var weights = (0..<sections).map { _ in random.uniform(0.5...1.5) }
        let sum = weights.reduce(0, +)
        weights = weights.map { $0 / sum * slicerTotal }
        let actual = weights.map { $0 * random.uniform(0.92...1.18) }
        let preparation = 240 + random.uniform(0...120).rounded()
        let layers = 240
        let slug = "print"
        let name = "X1 Carbon"

        func update(_ t: Double, _ phase: ActivityPhase, _ state: String, percent: Int, minutes: Int?, layer: Int)
            -> ActivityUpdate
        {
            var details = GenericContent()
            details.subtitle = .value("Layer \(layer) of \(layers)")
            return ActivityUpdate(
                slug: slug, name: name, phase: phase, content: GenericContent(state: state, icon: "printer.fill"),
                details: details, progress: Double(percent) / 100, eta: minutes.map { .remaining(Double($0) * 60) },
                observedAt: base + t)
        }

        var result: [ActivityUpdate] = []
        var t = 0.0
        while t < preparation {
            result.append(update(t, .active, "Preparing", percent: 0, minutes: nil, layer: 0))
            t += interval
        }
        // Printing: map print time (excluding any pause) to slicer time done.
        let printStart = t
        var pauseStart: Double?
        var pauseEnd: Double?
        let printDuration = actual.reduce(0, +)
        while true {
            var printTime = t - printStart
            if let pauseStart, let pauseEnd {
                if t >= pauseEnd {
                    printTime -= pauseEnd - pauseStart
                } else if t >= pauseStart {
                    printTime = pauseStart - printStart
                }
            }
            if printTime >= printDuration { break }
            let done = SlicedPrint.slicerTime(done: printTime, weights: weights, actual: actual)
            let fraction = min(1, done / slicerTotal)
            let percent = Int((fraction * 100).rounded(.down))
            let minutes = Int(((slicerTotal - done) / 60).rounded(.down))
            let layer = max(1, Int((fraction * Double(layers)).rounded(.up)))
            if let pauseAtFraction, pauseStart == nil, fraction >= pauseAtFraction {
                pauseStart = t
                pauseEnd = t + pauseMinutes * 60
            }
            let paused = pauseStart.map { t >= $0 && t < pauseEnd! } ?? false
            result.append(
                update(
                    t, paused ? .paused : .active, paused ? "Paused" : "Printing", percent: percent,
                    minutes: paused ? nil : minutes, layer: layer))
            t += interval
        }
        result.append(update(t, .ended(.success), "Finished", percent: 100, minutes: 0, layer: layers))
        return result
    }

    // MARK: - Home Assistant washer

    /// A washer cycle as a Home Assistant timer: a fixed `finishes_at` set at the start, progress
    /// from the timer (elapsed ÷ duration) re-read once a minute, finished one second after the
    /// finish time.
    static func washer(minutes: Double, interval: Double = 60, base: Double) -> [ActivityUpdate] {
        let duration = minutes * 60
        let finish = base + duration
        var result: [ActivityUpdate] = []
        var t = 0.0
        while t < duration {
            result.append(
                ActivityUpdate(
                    slug: "washer", name: "Washer", phase: .active,
                    content: GenericContent(state: "Washing", icon: "washer.fill"), progress: t / duration,
                    eta: .finishesAt(finish), observedAt: base + t))
            t += interval
        }
        result.append(
            ActivityUpdate(
                slug: "washer", name: "Washer", phase: .ended(.success),
                content: GenericContent(state: "Done", icon: "washer.fill"), progress: 1,
                observedAt: base + duration + 1))
        return result
    }

    // MARK: - SABnzbd download

    /// One stretch of a download at a mean speed (bytes per second) for `seconds`; nil seconds
    /// means "until the download is complete".
    struct SpeedRegime: Sendable {
        var bytesPerSecond: Double
        var seconds: Double?
    }

    /// A download as SABnzbd reports it, polled every `interval` seconds: progress from bytes,
    /// `timeleft` from the speed over the last 10 s (so it jitters and jumps when the speed
    /// changes; unknown while stalled), then `postProcessing` seconds of verifying and unpacking
    /// at 100 %.
    static func download(
        seed: UInt64, totalBytes: Double, regimes: [SpeedRegime], noise: Double = 0.05, interval: Double = 2,
        postProcessing: Double = 120, base: Double
    ) -> [ActivityUpdate] {
        var random = SeededRandom(seed: seed)
        let slug = "download"
        let name = "SABnzbd"
        var result: [ActivityUpdate] = []
        var done = 0.0
        var t = 0.0
        var recent: [Double] = []
        var smoothed: Double? { recent.isEmpty ? nil : recent.reduce(0, +) / Double(recent.count) }
        var regimeIndex = 0
        var regimeStart = 0.0
        var wobble = 0.0
        func observe(_ phase: ActivityPhase, _ state: String, progress: Double, remaining: Double?) {
            var details = GenericContent()
            if let smoothed { details.subtitle = .value(String(Int((smoothed / 1e6).rounded())) + " MB/s") }
            result.append(
                ActivityUpdate(
                    slug: slug, name: name, phase: phase,
                    content: GenericContent(state: state, icon: "arrow.down.circle", subtitle: "Linux.ISO.Collection"),
                    details: details, progress: progress, eta: remaining.map { .remaining($0) }, observedAt: base + t))
        }
        while done < totalBytes {
            while let seconds = regimes[regimeIndex].seconds, t - regimeStart >= seconds,
                regimeIndex + 1 < regimes.count
            {
                regimeStart += seconds
                regimeIndex += 1
            }
            let remainingBytes = totalBytes - done
            let remaining = smoothed.flatMap { $0 > 0 ? (remainingBytes / $0).rounded() : nil }
            observe(.active, "Downloading", progress: done / totalBytes, remaining: remaining)
            // Next interval: the regime's speed with mean-reverting noise; SABnzbd's shown speed
            // is the average over the last 10 s.
            wobble = 0.8 * wobble + random.uniform(-noise...noise)
            let speed = max(0, regimes[regimeIndex].bytesPerSecond * (1 + wobble))
            done = min(totalBytes, done + speed * interval)
            recent.append(speed)
            if Double(recent.count) * interval > 10 { recent.removeFirst() }
            t += interval
        }
        let processingEnd = t + postProcessing
        while t < processingEnd {
            observe(.active, "Post-processing", progress: 1, remaining: nil)
            t += interval
        }
        observe(.ended(.success), "Completed", progress: 1, remaining: nil)
        return result
    }
}
