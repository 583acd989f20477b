public import LiveBridgeCore

/// A family of generated jobs for `livebridge-bench`'s corpus: seeded variants of one shape, each
/// written as the source would report it and read through the source's own mapping, as a
/// recording would be. A `SourceDescriptor` carries its source's families (`trajectories`); the
/// bench runs `Corpus.variants` of each, and `--explain FAMILY:VARIANT` prints one.
public struct TrajectoryFamily: Sendable {
    /// The kind of home-lab job: the bench's month draws its jobs by kind.
    public enum Kind: String, Sendable, CaseIterable {
        case download, print, washer
    }

    /// Unique over every family (`octoprint`), the corpus table's row.
    public var name: String
    /// One line: what varies from variant to variant.
    public var summary: String
    public var kind: Kind
    /// The variant of `seed` as observations, `observedAt` counted from `base`; the same on every
    /// machine and every run.
    public var generate: @Sendable (_ seed: UInt64, _ base: Double) -> [ActivityUpdate]

    public init(
        name: String, summary: String, kind: Kind,
        generate: @escaping @Sendable (_ seed: UInt64, _ base: Double) -> [ActivityUpdate]
    ) {
        self.name = name
        self.summary = summary
        self.kind = kind
        self.generate = generate
    }
}

/// A print as a slicer models it and as the printer runs it, for generated print jobs: the
/// slicer's time estimate is right overall but for a bias, and wrong section by section.
public enum SlicedPrint {
    /// A print's 40 sections: their slicer seconds (0.5–1.5 × the mean, summing to `seconds`) and
    /// the seconds each really takes, `bias` slower or faster overall and ±15 % section by section.
    public static func sections(_ r: inout SeededRandom, seconds: Double, bias: Double)
        -> (weights: [Double], actual: [Double])
    {
        var weights = (0..<40).map { _ in r.uniform(0.5...1.5) }
        let sum = weights.reduce(0, +)
        weights = weights.map { $0 / sum * seconds }
        return (weights, weights.map { $0 * (1 + bias) * r.uniform(0.85...1.15) })
    }

    /// Slicer time done after `elapsed` real seconds of a print whose sections take `weights`
    /// seconds in the slicer's model and `actual` seconds on the printer.
    public static func slicerTime(done elapsed: Double, weights: [Double], actual: [Double]) -> Double {
        var done = 0.0
        var left = elapsed
        for index in weights.indices {
            if left >= actual[index] {
                done += weights[index]
                left -= actual[index]
            } else {
                return done + weights[index] * left / actual[index]
            }
        }
        return done
    }
}
