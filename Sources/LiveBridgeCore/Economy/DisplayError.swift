/// How far the bar a phone draws is from the truth: the one measure the simulation, the bench and
/// the tests use.
public enum DisplayError {
    /// Largest and mean |shown − truth| over a grid, and the number of grid points.
    public struct Figures: Sendable, Equatable {
        public var max: Double
        public var mean: Double
        public var samples: Int

        public init(max: Double, mean: Double, samples: Int) {
            self.max = max
            self.mean = mean
            self.samples = samples
        }
    }

    /// The grid the error is measured on: `start`, `start + step`, … up to `end` inclusive.
    public static func grid(from start: Double, through end: Double, step: Double) -> [Double] {
        var times: [Double] = []
        var t = start
        while t <= end {
            times.append(t)
            t += step
        }
        return times
    }

    /// The truth at each of `times` (ascending): linear between the samples, flat outside them.
    public static func truth(_ samples: [(time: Double, progress: Double)], at times: [Double]) -> [Double] {
        guard !samples.isEmpty else { return times.map { _ in 0 } }
        var index = 0
        return times.map { t in
            while index + 1 < samples.count, samples[index + 1].time <= t { index += 1 }
            let current = samples[index]
            if current.time > t || index + 1 >= samples.count { return current.progress }
            let next = samples[index + 1]
            return current.progress + (next.progress - current.progress) * (t - current.time)
                / (next.time - current.time)
        }
    }

    /// The bar `anchors` (ascending by time) draw under `model` against `truth` (its value at each
    /// of `times`), from the first anchor on: before it there is no card to be wrong.
    public static func measure(times: [Double], truth: [Double], anchors: [DisplayAnchor], model: DisplayModel)
        -> Figures
    {
        guard let first = anchors.first else { return Figures(max: 0, mean: 0, samples: 0) }
        var anchorIndex = 0
        var maxError = 0.0
        var sum = 0.0
        var count = 0
        for (t, value) in zip(times, truth) where t >= first.time {
            count += 1
            while anchorIndex + 1 < anchors.count, anchors[anchorIndex + 1].time <= t { anchorIndex += 1 }
            let error = abs(anchors[anchorIndex].shown(at: t, model: model) - value)
            maxError = max(maxError, error)
            sum += error
        }
        return Figures(max: maxError, mean: count > 0 ? sum / Double(count) : 0, samples: count)
    }
}
