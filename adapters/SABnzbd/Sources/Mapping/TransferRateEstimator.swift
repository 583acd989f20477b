/// A download rate measured from the moments the bytes-done count moved.
///
/// SABnzbd's `kbpersec` warms up low, lags rate changes by 10–15 s and decays slowly in a stall,
/// and `mbleft` moves in steps of a few articles, so a poll between two steps repeats the last
/// count. Measuring between the steps' corners over a 20 s window gives a steady rate, and
/// anchoring the remaining bytes at the last corner gives a finish time that does not saw up and
/// down with the steps. The owner resets it whenever downloading (re)starts.
public struct TransferRateEstimator: Sendable, Hashable {
    struct Corner: Sendable, Hashable {
        var time: Double
        var done: Double
    }

    /// Seconds of corners the rate is measured over.
    public var window: Double
    /// Shortest span between the first and last corner that gives a rate.
    public var minimumSpan: Double
    private(set) var corners: [Corner] = []
    private var lastDone: Double?

    /// An estimator over `window` seconds that needs `minimumSpan` seconds of corners.
    public init(window: Double = 20, minimumSpan: Double = 6) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Forgets everything.
    public mutating func reset() {
        corners.removeAll()
        lastDone = nil
    }

    /// Number of corners since the last reset.
    public var count: Int { corners.count }

    /// When the count last moved, if it did since the reset.
    public var lastChange: Double? { corners.last?.time }

    /// Adds the bytes done (cumulative) seen at `time`; only a change makes a corner.
    public mutating func add(time: Double, done: Double) {
        defer { lastDone = max(lastDone ?? done, done) }
        guard let previous = lastDone, done > previous else { return }
        corners.append(Corner(time: time, done: done))
        // Keep one corner at or before the window's start so the span covers the whole window.
        while corners.count > 2, corners[1].time <= time - window {
            corners.removeFirst()
        }
    }

    /// Bytes per second between the window's corners, or nil while they span less than
    /// `minimumSpan`.
    public var rate: Double? {
        guard let first = corners.first, let last = corners.last else { return nil }
        let span = last.time - first.time
        guard span >= minimumSpan else { return nil }
        return (last.done - first.done) / span
    }

    /// Mean seconds between corners in the window.
    var meanGap: Double? {
        guard corners.count >= 2, let first = corners.first, let last = corners.last else { return nil }
        return (last.time - first.time) / Double(corners.count - 1)
    }

    /// When `remaining` bytes (as counted at the last corner) will be done, at the measured rate.
    ///
    /// While the next corner is overdue (a slowdown or a stall), the finish moves with `now`
    /// instead, so it never lies in the past.
    public func finish(remaining: Double, now: Double) -> Double? {
        guard let rate, rate > 0, let anchor = lastChange else { return nil }
        let allowance = max(3, 2 * (meanGap ?? 0))
        let start = now - anchor <= allowance ? anchor : now
        return max(now, start + remaining / rate)
    }
}
