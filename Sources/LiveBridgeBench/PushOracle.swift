import LiveBridgeApp
import LiveBridgeCore

/// The fewest pushes any sender using `live_progress` needs to keep the bar within ε of the truth
/// on a job, knowing the whole future: the yardstick for the tracker's economy.
///
/// The sender may push at any point of the 1 s grid the error is measured on. A push anchors the
/// phone at (t0, p0 = truth(t0), E) with `end_date` E in whole seconds (the wire format), and the
/// phone draws what `DisplayAnchor` draws: a glide from p0 to 1.0 at E, and p0 again once E has
/// passed (the fallback rule); a push without `live_progress` (a static anchor) is allowed too.
/// Pushes the card needs anyway — the seed, every change of its text or phase, and one end
/// frame — are mandatory; the oracle adds the fewest progress pushes between them.
///
/// Method (docs/performance.md argues optimality): `reach(q)` is the last grid point a push at q
/// can keep within ε, maximised over E and the static anchor in one forward scan (the slopes
/// that keep each point within ε form an interval that only shrinks). Between two mandatory
/// pushes, pushes are chosen greedily: the next push is the point, among those the current push
/// still covers (plus the first one it does not), whose own reach is furthest — the classic
/// minimum-jumps greedy, optimal because a push's effect does not depend on earlier pushes.
struct PushOracle: Sendable {
    /// ε, the largest |shown − truth| allowed at any grid point.
    var epsilon: Double
    /// When set, every glide's `end_date` must be a countdown a person would take as the truth:
    /// within `fraction` of the time left (at least `minimum` seconds) of the job's real finish
    /// (`JobTruth.finish`). Nil: any `end_date` (the oracle).
    var honestCountdown: (fraction: Double, minimum: Double)?

    init(epsilon: Double, honestCountdown: (fraction: Double, minimum: Double)? = nil) {
        self.epsilon = epsilon
        self.honestCountdown = honestCountdown
    }

    /// The oracle's schedule for one job.
    struct Result: Sendable {
        /// Pushes including the seed and one end frame.
        var pushes: Int
        /// Pushes the card needed anyway (seed, text/phase changes, end).
        var mandatory: Int
        /// The anchors the phone is given, in time order (the last is the end frame's).
        var anchors: [DisplayAnchor]
    }

    /// Solves `truth` on its 1 s grid.
    func solve(_ truth: JobTruth) -> Result {
        let allTimes = truth.grid()
        // Grid points before the end frame are kept by running pushes; the end frame covers the rest.
        let times = allTimes.filter { $0 < truth.end }
        let values = truth.values(at: times)
        let endAnchor = DisplayAnchor(progress: truth.finalProgress, time: truth.end, endDate: nil, live: false)
        guard !times.isEmpty else {
            let seed = DisplayAnchor(
                progress: truth.values(at: [truth.start])[0], time: truth.start, endDate: nil, live: false)
            return Result(pushes: 2, mandatory: 2, anchors: [seed, endAnchor])
        }
        // Mandatory pushes: the seed and each text/phase change, at the first grid point at or after it.
        var mandatoryIndices: [Int] = [0]
        var lateChanges = 0
        for change in truth.changes {
            let index = Int((change - truth.start - 1e-9).rounded(.up))
            if index >= times.count {
                lateChanges += 1
            } else if index > mandatoryIndices.last! {
                mandatoryIndices.append(index)
            }
        }
        var scanner = ReachScanner(times: times, values: values, epsilon: epsilon)
        if let honest = honestCountdown {
            let finish = truth.finish
            scanner.endDates = { t0 in
                let tolerance = max(honest.minimum, honest.fraction * max(0, finish - t0))
                return (finish - tolerance)...(finish + tolerance)
            }
        }
        var anchors: [DisplayAnchor] = []
        for (segment, first) in mandatoryIndices.enumerated() {
            let last = segment + 1 < mandatoryIndices.count ? mandatoryIndices[segment + 1] - 1 : times.count - 1
            for (index, endDate) in scanner.cover(first...last) {
                anchors.append(
                    DisplayAnchor(progress: values[index], time: times[index], endDate: endDate, live: endDate != nil))
            }
        }
        anchors.append(endAnchor)
        return Result(
            pushes: anchors.count + lateChanges, mandatory: mandatoryIndices.count + lateChanges + 1, anchors: anchors)
    }
}

/// Reach computation and greedy cover over one job's grid, memoised per start point.
struct ReachScanner {
    let times: [Double]
    let values: [Double]
    /// ε, tightened by a hair so floating-point rounding never makes a verified anchor exceed ε.
    let epsilon: Double
    /// The `end_date`s a glide from a given time may carry (nil: any).
    var endDates: ((Double) -> ClosedRange<Double>)?
    private var memo: [Int: (limit: Int, reach: Int, endDate: Double?)] = [:]

    init(times: [Double], values: [Double], epsilon: Double) {
        self.times = times
        self.values = values
        self.epsilon = epsilon - 1e-9
    }

    /// The fewest pushes keeping every point of `range` within ε, the first at its lower bound:
    /// (grid index, `end_date` or nil for a static anchor) per push.
    mutating func cover(_ range: ClosedRange<Int>) -> [(Int, Double?)] {
        let limit = range.upperBound
        var current = range.lowerBound
        var (reached, endDate) = reach(current, limit: limit)
        var pushes: [(Int, Double?)] = [(current, endDate)]
        while reached < limit {
            // Candidates: every point the current push still covers, and the first it does not.
            var best = reached + 1
            var bestReach = reach(best, limit: limit)
            if bestReach.reach < limit {
                var candidate = reached
                while candidate > current {
                    let result = reach(candidate, limit: limit)
                    if result.reach > bestReach.reach {
                        best = candidate
                        bestReach = result
                        if result.reach >= limit { break }
                    }
                    candidate -= 1
                }
            }
            current = best
            (reached, endDate) = bestReach
            pushes.append((current, endDate))
        }
        return pushes
    }

    /// The last grid index (≤ `limit`) a push at `q` keeps within ε, and the `end_date` that does
    /// it (nil: a static anchor).
    mutating func reach(_ q: Int, limit: Int) -> (reach: Int, endDate: Double?) {
        if let cached = memo[q], cached.limit == limit { return (cached.reach, cached.endDate) }
        let result = scan(q, limit: limit)
        memo[q] = (limit, result.reach, result.endDate)
        return result
    }

    private func scan(_ q: Int, limit: Int) -> (reach: Int, endDate: Double?) {
        let p0 = values[q]
        let t0 = times[q]
        // A static anchor (or the fallback to p0 after E): holds while the truth stays near p0.
        func holdsStill(from index: Int) -> Int {
            var k = index
            while k + 1 <= limit, abs(values[k + 1] - p0) <= epsilon { k += 1 }
            return k
        }
        let still = holdsStill(from: q)
        if still >= limit || p0 >= 1 { return (still, nil) }
        var best = (reach: still, endDate: nil as Double?)
        // Glide: shown(t) = p0 + (1 − p0)(t − t0)/(E − t0) for t < E. With u = 1/(E − t0), each
        // point k gives lo_k ≤ u ≤ hi_k; the feasible interval only shrinks as k grows.
        let span = 1 - p0
        let allowed = endDates?(t0)
        var uLow = -Double.infinity
        var uHigh = Double.infinity
        var glideThrough: (k: Int, endDate: Double)?
        var fallbackAfter: (k: Int, endDate: Double)?
        var k = q + 1
        while k <= limit {
            let dt = times[k] - t0
            uLow = max(uLow, (values[k] - epsilon - p0) / (span * dt))
            uHigh = min(uHigh, (values[k] + epsilon - p0) / (span * dt))
            if uHigh <= 0 || uLow > uHigh { break }
            // Whole-second E with E > t_k (point k still gliding) inside the feasible interval.
            var lowest = max(times[k].rounded(.down) + 1, (t0 + 1 / uHigh).rounded(.up))
            var highest = uLow > 0 ? (t0 + 1 / uLow).rounded(.down) : Double.infinity
            if let allowed {
                lowest = max(lowest, allowed.lowerBound.rounded(.up))
                highest = min(highest, allowed.upperBound.rounded(.down))
            }
            if lowest > highest { break }
            glideThrough = (k, lowest)
            // E between t_k and t_{k+1}: later points fall back to p0.
            if k + 1 <= limit, lowest <= times[k + 1] { fallbackAfter = (k, lowest) }
            k += 1
        }
        if let glideThrough, glideThrough.k > best.reach { best = (glideThrough.k, glideThrough.endDate) }
        if let fallbackAfter {
            let held = holdsStill(from: fallbackAfter.k)
            if held > best.reach { best = (held, fallbackAfter.endDate) }
        }
        return best
    }
}
