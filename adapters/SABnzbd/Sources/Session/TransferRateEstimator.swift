/// A download rate measured from bytes done over a sliding window.
///
/// SABnzbd's `kbpersec` warms up low, lags rate changes by 10–15 s and decays slowly in a stall,
/// and `mbleft` moves in steps of a few articles; bytes over a 20 s window smooths both. The
/// owner resets it whenever downloading (re)starts, so a pause never drags the rate down.
public struct TransferRateEstimator: Sendable, Hashable {
    struct Sample: Sendable, Hashable {
        var time: Double
        var done: Double
    }

    /// Seconds of history the rate is measured over.
    public var window: Double
    /// Shortest span that gives a rate; shorter spans give nil (the caller falls back).
    public var minimumSpan: Double
    private(set) var samples: [Sample] = []

    public init(window: Double = 20, minimumSpan: Double = 6) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Forgets every sample.
    public mutating func reset() {
        samples.removeAll()
    }

    /// Number of samples since the last reset.
    public var count: Int { samples.count }

    /// Adds the bytes done (cumulative, any origin) at `time`.
    public mutating func add(time: Double, done: Double) {
        if let last = samples.last, time <= last.time {
            samples[samples.count - 1].done = max(last.done, done)
            return
        }
        samples.append(Sample(time: time, done: done))
        // Keep one sample at or before the window's start so the span covers the whole window.
        while samples.count > 2, samples[1].time <= time - window {
            samples.removeFirst()
        }
    }

    /// Bytes per second over the window, or nil when the samples span less than `minimumSpan`.
    public var rate: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let span = last.time - first.time
        guard span >= minimumSpan else { return nil }
        return max(0, last.done - first.done) / span
    }
}
