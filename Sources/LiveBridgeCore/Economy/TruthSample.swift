/// The latest truth about one job, each value with the time it was true.
///
/// A Home Assistant sensor's value was true at its `last_changed`, not when another entity's
/// change brought the activity's next update; a printer report or a SABnzbd answer is true when
/// it arrived. The policy compares the phone's bar with the progress *at the progress's time*.
public struct TruthSample: Sendable, Hashable, Codable {
    public var progress: Double?
    /// When the latest observation arrived (Unix seconds).
    public var time: Double
    /// When `progress` was true; at or before `time`.
    public var progressTime: Double
    /// Absolute finish time, when known.
    public var finish: Double?
    /// True when `finish` is a fixed timestamp from the source.
    public var fixedFinish: Bool
    /// The step the source reports progress in (0.01 for whole percent; 0 = fine-grained).
    public var resolution: Double
    /// How precisely the source states its finish, seconds (60 for whole minutes).
    public var finishResolution: Double
    /// True when the source says the progress stands in this stage (`ActivityUpdate.progressHolds`).
    public var holds: Bool

    public init(
        progress: Double?, time: Double, progressTime: Double? = nil, finish: Double?, fixedFinish: Bool,
        resolution: Double = 0, finishResolution: Double = 0, holds: Bool = false
    ) {
        self.progress = progress
        self.time = time
        self.progressTime = min(time, progressTime ?? time)
        self.finish = finish
        self.fixedFinish = fixedFinish
        self.resolution = resolution
        self.finishResolution = finishResolution
        self.holds = holds
    }
}

/// The job's measured pace: progress per second over a recent window, from the points where the
/// reported progress moved (a stepwise source's flat stretches are not read as a slowdown until
/// a step is overdue).
public struct PaceEstimate: Sendable, Hashable {
    struct Corner: Sendable, Hashable {
        var time: Double
        var progress: Double
    }

    private(set) var corners: [Corner] = []
    /// True while the first corner is the job's first report, before its first advance: the
    /// wait from there to that advance is the start's (connections opening, the first article
    /// on its way), not one of the job's gaps.
    private(set) var startsAtRest = false
    /// The rate before the latest change of speed the count showed (`restartAtChange`), while the
    /// pace is measured from that change: nil once the window has moved past the corner it
    /// restarted at, a stall or a pause has moved the corners, or the pace restarted otherwise.
    private(set) var rateBeforeChange: Double?
    /// True while the corners start at a change of speed the count confirmed
    /// (`restart(at:changedFrom:)`).
    private(set) var confirmed = false
    /// Smoothed seconds between two advances.
    private(set) var gap: Double?
    /// The last few times between two advances, for `longGap`.
    private(set) var recentGaps: [Double] = []
    /// The longest of the recent times between two advances: a count whose articles land in
    /// bursts a minute apart (a slow server's four connections) waits that long between bursts as
    /// a matter of course, however quick the advances within a burst; only a wait well beyond it
    /// is a stall.
    var longGap: Double? { recentGaps.max() ?? gap }
    /// How uneven the recent times between two advances are (their coefficient of variation), nil
    /// before `EconomySettings.irregularityMinimumGaps` of them.
    func irregularity(_ settings: EconomySettings) -> Double? {
        guard recentGaps.count >= settings.irregularityMinimumGaps else { return nil }
        let mean = recentGaps.reduce(0, +) / Double(recentGaps.count)
        guard mean > 0 else { return nil }
        let variance = recentGaps.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(recentGaps.count - 1)
        return variance.squareRoot() / mean
    }
    /// Smoothed size of the progress's advances.
    private(set) var step: Double?
    /// True once the source said the same progress again after it moved: a count polled between
    /// its steps (SABnzbd's articles, a printer's whole percent), whose reports are a staircase.
    private(set) var repeats = false
    /// The latest time a value was added, and the latest time a value below the last corner's
    /// was seen (the poll before its step): the step came between the two.
    private(set) var seenAt: Double?
    private(set) var belowAt: Double?

    public init() {}

    /// Adds the progress `progress` true at `time`; keeps the corners of the last `window` seconds,
    /// and restarts them at a change of speed when `detectsChange`. True when the progress moved
    /// (a corner was added).
    @discardableResult
    mutating func add(
        progress: Double, at time: Double, window: Double, stallGap: Double = .infinity, settings: EconomySettings,
        detectsChange: Bool = false
    ) -> Bool {
        let seen = seenAt
        seenAt = max(seenAt ?? time, time)
        guard let last = corners.last else {
            corners.append(Corner(time: time, progress: progress))
            startsAtRest = true
            return true
        }
        if progress < last.progress - 1e-9 {
            // Backwards: another job (or a reset counter); the old pace says nothing about it.
            reset()
            seenAt = time
            corners.append(Corner(time: time, progress: progress))
            startsAtRest = true
            return true
        }
        guard progress > last.progress + 1e-9, time > last.time else {
            if time > last.time, abs(progress - last.progress) <= 1e-9 { repeats = true }
            return false
        }
        let advance = progress - last.progress
        // The first advance from the job's first report at rest stands in until the second: it
        // may be the start's burst (`openingBurst`), no step of the count.
        let provisional = startsAtRest && corners.count == 2
        self.step = Self.smooth(provisional ? nil : self.step, advance, weight: settings.paceSmoothing)
        var step = time - last.time
        // The wait as it was: a count that waits a minute between its bursts learns that rhythm
        // from its first such wait, and its next ones are no stall; a real stall makes the source
        // look that slow only for its next few advances.
        recentGaps.append(step)
        if recentGaps.count > settings.paceRecentGaps { recentGaps.removeFirst() }
        if corners.count >= 2, step > stallGap {
            // The first advance after a stall or a pause: the pace is the job's speed while it
            // moves, so the stretch it stood still is cut out of the timeline (the corners before
            // it move later by that much) instead of read as a slowdown.
            let usual = gap ?? 0
            let shift = step - usual
            for index in corners.indices { corners[index].time += shift }
            if shift != 0 { rateBeforeChange = nil }
            step = usual
        }
        gap = Self.smooth(gap, step, weight: settings.paceSmoothing)
        belowAt = seen.map { min($0, time) }
        corners.append(Corner(time: time, progress: progress))
        while corners.count > 2, corners[1].time <= time - window {
            corners.removeFirst()
            startsAtRest = false
            rateBeforeChange = nil
        }
        if detectsChange { restartAtChange(settings) }
        return true
    }

    /// `old` moved toward `new` by `weight` (the first value as it is).
    static func smooth(_ old: Double?, _ new: Double, weight: Double) -> Double {
        old.map { (1 - weight) * $0 + weight * new } ?? new
    }

    /// A change of speed (a server slowing down, the last layers printing faster): when the
    /// corners of the recent stretch give a rate `paceChangeFactor` times above or below the
    /// rate of the corners before them, the window starts at the change, so the pace follows the
    /// job now instead of averaging the old speed in for a whole window. The recent stretch spans
    /// at least `paceChangeSpan` seconds, `paceChangeGaps` of the source's usual gaps and
    /// `paceChangeLongGaps` of its longest recent waits.
    private mutating func restartAtChange(_ settings: EconomySettings) {
        let span = max(
            settings.paceChangeSpan, settings.paceChangeGaps * (gap ?? 0), settings.paceChangeLongGaps * (longGap ?? 0))
        guard corners.count > settings.paceChangeAdvances, let last = corners.last else { return }
        guard let split = corners.lastIndex(where: { $0.time <= last.time - span }), split >= 1 else { return }
        // The older stretch from the job's first advance when it has one before `split`: the wait
        // before it read a slow server's first minute as a slower speed, and its next burst as a
        // change.
        let from = startsAtRest && split >= 2 ? 1 : 0
        let older = (corners[split].progress - corners[from].progress) / (corners[split].time - corners[from].time)
        let recent = (last.progress - corners[split].progress) / (last.time - corners[split].time)
        guard older > 0, recent > 0, older.isFinite, recent.isFinite else { return }
        // Over n advances whose gaps vary by cv, a rate is off by about cv / √n: two stretches
        // of a steady but uneven count differ by chance by up to `confidence` times their
        // combined error, which is no change of speed.
        let error =
            (irregularity(settings) ?? 0)
            * (1 / Double(split - from) + 1 / Double(corners.count - 1 - split)).squareRoot()
        let threshold = max(settings.paceChangeFactor, 1 + settings.paceChangeConfidence * error)
        if recent > threshold * older || recent * threshold < older {
            corners.removeFirst(split)
            startsAtRest = false
            confirmed = false
            rateBeforeChange = older
        }
    }

    /// The pace starts again at `time` (a change of speed seen elsewhere): the corners before the
    /// last one at or before it are dropped.
    mutating func restart(at time: Double) { restart(at: time, before: nil) }

    /// The pace starts again at `time`, where the count has shown a change from `rate` by more
    /// than a step (`EconomySettings.correctionChangeSteps`): that departure is the evidence
    /// `paceMinimumGaps` otherwise waits for, so the new pace counts from `paceMinimumSpan` on,
    /// and `rate` is the speed before the change (`rateBeforeChange`).
    mutating func restart(at time: Double, changedFrom rate: Double) { restart(at: time, before: rate) }

    private mutating func restart(at time: Double, before rate: Double?) {
        guard let index = corners.lastIndex(where: { $0.time <= time }), index >= 1 else { return }
        corners.removeFirst(index)
        startsAtRest = false
        rateBeforeChange = rate
        confirmed = rate != nil
    }

    /// A pause of `seconds` ended: the stretch the job stood still is cut out of the timeline at
    /// once (the corners move later by it), so the resumed job is neither stalled nor slower
    /// until its next advance.
    mutating func resumed(after seconds: Double) {
        guard seconds > 0 else { return }
        for index in corners.indices { corners[index].time += seconds }
        rateBeforeChange = nil
        belowAt = belowAt.map { $0 + seconds }
    }

    /// The job's timeline starts at `time` if the progress has not moved since its first report
    /// (the stretch before was preparation, not the job's pace).
    mutating func startIfUnmoved(at time: Double) {
        guard corners.count == 1, corners[0].time < time else { return }
        corners[0].time = time
    }

    /// Forgets everything (a pause or a new job).
    mutating func reset() {
        corners.removeAll()
        startsAtRest = false
        rateBeforeChange = nil
        gap = nil
        recentGaps.removeAll()
        confirmed = false
        step = nil
        repeats = false
        seenAt = nil
        belowAt = nil
    }

    /// Progress per second as of `now`, nil before the advances span `EconomySettings.paceMinimumSpan`
    /// and `EconomySettings.paceMinimumGaps` of the source's usual gaps. While the next advance is
    /// overdue the pace is at most what it would be if that advance came now, so a slowdown shows
    /// before the source reports it.
    func rate(at now: Double, _ settings: EconomySettings) -> Double? {
        guard corners.count >= 2, var first = corners.first, let last = corners.last else { return nil }
        var count = corners.count
        if openingBurst(settings) { first = corners[1]; count -= 1 }
        let span = last.time - first.time
        let minimum = confirmed ? 0 : (settings.paceMinimumGaps - settings.gapCountJitter) * (gap ?? 0)
        guard span >= max(settings.paceMinimumSpan, minimum) else { return nil }
        let advanced = last.progress - first.progress
        let measured = advanced / span
        let usualGap = max(longGap ?? 0, span / Double(count - 1))
        if now - last.time > usualGap {
            let step = advanced / Double(count - 1)
            return min(measured, (advanced + step) / (now - first.time))
        }
        return measured
    }

    /// True while the corners start at the job's first report at rest and its first advance ran
    /// faster than the advances after it by more than a change of speed (`paceChangeFactor`, and
    /// more than the count's unevenness explains), and was larger than they are by as much: that
    /// advance is the start's burst (a repair job's missing articles, counted as done at once),
    /// not its pace.
    func openingBurst(_ settings: EconomySettings) -> Bool {
        guard startsAtRest, corners.count >= 4, let last = corners.last else { return false }
        let (start, first) = (corners[0], corners[1])
        let size = first.progress - start.progress
        let rest = last.progress - first.progress
        let opening = size / max(1e-9, first.time - start.time)
        let after = rest / max(1e-9, last.time - first.time)
        guard after > 0 else { return false }
        let advancesAfter = Double(corners.count - 2)
        let error = (irregularity(settings) ?? 0) * (1 + 1 / advancesAfter).squareRoot()
        let factor = max(settings.paceChangeFactor, 1 + settings.paceChangeConfidence * error)
        // By its size too: a staircase's first step lands anywhere within the first poll, and
        // read over that poll alone it runs fast by chance.
        return opening > factor * after && size > factor * rest / advancesAfter
    }

    /// The rate between the last two advances (the predictive check's fallback before the pace is
    /// believable): a stepwise source's step over the time since the step before, not over the
    /// second between two polls that happened to straddle it.
    var lastStepRate: Double? {
        guard corners.count >= 2 else { return nil }
        let last = corners[corners.count - 1]
        let previous = corners[corners.count - 2]
        return last.time > previous.time ? (last.progress - previous.progress) / (last.time - previous.time) : nil
    }

    /// Seconds between the last two advances.
    var lastStepInterval: Double? {
        guard corners.count >= 2 else { return nil }
        return corners[corners.count - 1].time - corners[corners.count - 2].time
    }

    /// Seconds the advances span.
    var span: Double { (corners.last?.time ?? 0) - (corners.first?.time ?? 0) }

    /// True once `gaps` times the job's longest recent wait (`longGap`) have passed since its last
    /// advance (with polls at that gap: as many polls in a row without an advance).
    func overdue(at now: Double, gaps: Double) -> Bool {
        guard corners.count >= 2, let last = corners.last, let gap = longGap, gap > 0 else { return false }
        return now - last.time >= gaps * gap - 1e-6
    }

    /// True when the progress has not moved for max(`minimum`, `factor` × the longest recent wait)
    /// after having moved before.
    func stalled(at now: Double, minimum: Double, factor: Double) -> Bool {
        guard corners.count >= 2, let last = corners.last else { return false }
        return now - last.time > max(minimum, factor * (longGap ?? 0))
    }
}

/// The rate a source's own estimate implies (the rest of the job over the time it says is left),
/// read at each of its answers: a shift by `statedRateFactor` that holds for
/// `paceChangeAdvances` answers in a row is a change of speed the source has seen (a download
/// client's speed meter reads a server's new speed within seconds, where the pace over a slowly
/// polled count needs many of its steps to show it). Smaller moves are followed into the level.
public struct StatedRateShift: Sendable, Hashable {
    /// The smoothed rate before the current run.
    private(set) var level: Double?
    /// The answers in a row beyond the factor on one side of `level`: when the first came, how
    /// many, their sum, and whether they are above it.
    private var runStart: Double?
    private var runCount = 0
    private var runSum = 0.0
    private var runFaster = false
    private var runLowest = Double.infinity
    private var runHighest = 0.0

    public init() {}

    /// Adds the rate `rate` stated at `time`; returns when the shift began, and which way, once it
    /// has held for `readings` answers (the level is then the shifted rate).
    mutating func add(rate: Double, at time: Double, factor: Double, readings: Int, smoothing: Double)
        -> (time: Double, faster: Bool)?
    {
        guard rate > 0, rate.isFinite else { return nil }
        guard let level else {
            self.level = rate
            return nil
        }
        let faster = rate > level
        guard rate > factor * level || rate * factor < level else {
            interrupt()
            self.level = PaceEstimate.smooth(level, rate, weight: smoothing)
            return nil
        }
        // A run holds together within the factor: a meter climbing back after a pause (the
        // estimate falling from hours to minutes over a few answers) is no new speed until it
        // settles.
        if runStart == nil || faster != runFaster || max(runHighest, rate) > factor * min(runLowest, rate) {
            interrupt()
            runStart = time
            runFaster = faster
        }
        runCount += 1
        runSum += rate
        runLowest = min(runLowest, rate)
        runHighest = max(runHighest, rate)
        guard runCount >= readings, let start = runStart else { return nil }
        self.level = runSum / Double(runCount)
        interrupt()
        return (start, runFaster)
    }

    /// Forgets everything (a pause, a source without an estimate).
    mutating func reset() { self = StatedRateShift() }

    /// Ends the current run, keeping the level (a stall: what the source says meanwhile is neither).
    mutating func interrupt() {
        runStart = nil
        runCount = 0
        runSum = 0
        runLowest = .infinity
        runHighest = 0
    }
}

/// The finishes a source stated over a recent window: a source whose finish holds still (an
/// appliance's own countdown, in whole minutes) knows when the job ends even while its progress
/// runs at another pace from stretch to stretch.
public struct FinishTrack: Sendable, Hashable {
    struct Point: Sendable, Hashable {
        var time: Double
        var finish: Double
    }

    private(set) var points: [Point] = []
    /// When the source first stated a finish since the track was last reset.
    private var since: Double?
    /// The earliest and latest finish among `points`, kept as they are added and dropped (the
    /// policy asks `steady` several times a decision; a long job keeps thousands of points).
    private var lowest = Double.infinity
    private var highest = -Double.infinity

    public init() {}

    /// Adds the finish `finish` stated at `time`; keeps the points of the last `window` seconds,
    /// or of `ageShare` of the time since the source first stated one if that is longer (and the
    /// one before them, so the track spans the window).
    mutating func add(finish: Double, at time: Double, window: Double, ageShare: Double) {
        if let last = points.last, time < last.time { reset() }
        let first = since ?? time
        since = first
        points.append(Point(time: time, finish: finish))
        lowest = min(lowest, finish)
        highest = max(highest, finish)
        let kept = max(window, ageShare * (time - first))
        var dropped = 0
        var extremeDropped = false
        while points.count - dropped > 2, points[dropped + 1].time <= time - kept {
            extremeDropped = extremeDropped || points[dropped].finish == lowest || points[dropped].finish == highest
            dropped += 1
        }
        guard dropped > 0 else { return }
        points.removeFirst(dropped)
        if extremeDropped {
            lowest = points.lazy.map(\.finish).min() ?? .infinity
            highest = points.lazy.map(\.finish).max() ?? -.infinity
        }
    }

    /// Forgets everything (a pause, a source without an estimate).
    mutating func reset() {
        points.removeAll()
        since = nil
        lowest = .infinity
        highest = -.infinity
    }

    /// True when the points span at least `span` seconds and their finishes lie within `tolerance`.
    func steady(span: Double, tolerance: Double) -> Bool {
        guard let first = points.first, let last = points.last, last.time - first.time >= span else { return false }
        return highest - lowest <= tolerance
    }
}

/// How well the source's own estimate and the measured pace have each predicted the progress
/// that followed: each forecast (a rate) is scored one horizon later against what happened, and
/// the finish blends the two by their track records (inverse-error weights). A source whose
/// estimate is exact (SABnzbd's from the current speed) keeps its weight; one that runs long or
/// short all along (a slicer's estimate) hands it to the pace — or, when its error is a steady
/// bias, is believed once corrected by that bias (`calibration`).
public struct ForecastScore: Sendable, Hashable {
    struct Forecast: Sendable, Hashable {
        var time: Double
        var progress: Double
        var source: Double?
        var pace: Double?
        /// The source's rate corrected by the bias known when the forecast was made.
        var calibrated: Double?
    }

    private(set) var pending: [Forecast] = []
    /// Smoothed squared relative error of each forecaster, nil until one was scored.
    private(set) var sourceError: Double?
    private(set) var paceError: Double?
    private(set) var calibratedError: Double?
    /// Actual rate ÷ the source's over the job's scored forecasts that do not overlap (each made
    /// after the previous one was scored): their sum, sum of squares and count.
    private var biasSum = 0.0
    private var biasSquares = 0.0
    private var biasCount = 0
    private var biasScoredUntil = -Double.infinity

    public init() {}

    /// Scores the forecasts at least `horizon` old against the progress `progress` true at `time`,
    /// then records this moment's forecasts (rates in progress per second) unless the last one is
    /// younger than `spacing`; a forecast corrected by the source's bias is made when that bias is
    /// beyond chance by `confidence` (see `bias`). Errors are smoothed with weight `smoothing`.
    mutating func record(
        time: Double, progress: Double, sourceRate: Double?, paceRate: Double?, horizon: Double, spacing: Double,
        smoothing: Double, confidence: Double
    ) {
        while let first = pending.first, time - first.time >= horizon {
            pending.removeFirst()
            let actual = (progress - first.progress) / (time - first.time)
            guard actual > 0 else { continue }
            if let rate = first.source, rate > 0 {
                sourceError = PaceEstimate.smooth(sourceError, Self.error(rate, actual), weight: smoothing)
                if first.time >= biasScoredUntil {
                    biasSum += actual / rate
                    biasSquares += (actual / rate) * (actual / rate)
                    biasCount += 1
                    biasScoredUntil = time
                }
            }
            if let rate = first.pace, rate > 0 {
                paceError = PaceEstimate.smooth(paceError, Self.error(rate, actual), weight: smoothing)
            }
            if let rate = first.calibrated, rate > 0 {
                calibratedError = PaceEstimate.smooth(calibratedError, Self.error(rate, actual), weight: smoothing)
            }
        }
        guard sourceRate != nil || paceRate != nil else { return }
        if let last = pending.last, time - last.time < spacing { return }
        pending.append(
            Forecast(
                time: time, progress: progress, source: sourceRate, pace: paceRate,
                calibrated: sourceRate.flatMap { rate in bias(confidence: confidence).map { rate * $0 } }))
    }

    /// The source's bias over the job so far (the mean of actual rate ÷ the source's over its
    /// scored forecasts that do not overlap), nil until two were scored and while the mean lies
    /// within `confidence` times its standard error of 1: a steady bias, not the chance of a few
    /// stretches (a print's sections run ±15 % around the slicer's model).
    public func bias(confidence: Double) -> Double? {
        guard biasCount >= 2 else { return nil }
        let n = Double(biasCount)
        let mean = biasSum / n
        let variance = max(0, (biasSquares - n * mean * mean) / (n - 1))
        return abs(mean - 1) > confidence * (variance / n).squareRoot() ? mean : nil
    }

    /// The factor the source's rate is corrected by: its bias (`bias`), once the forecasts
    /// corrected by it have a better track record than the source's own (a slicer's estimate
    /// 20 % long all print long); 1 for a source whose error is no steady bias (one that follows
    /// the current speed).
    public func calibration(confidence: Double) -> Double {
        guard let bias = bias(confidence: confidence), let calibratedError, let sourceError,
            calibratedError < sourceError
        else { return 1 }
        return bias
    }

    /// The pace's share of the blend against the source corrected by `calibration`, nil before
    /// both forecasters were scored.
    func paceShare(calibration: Double) -> Double? {
        guard let sourceError, let paceError else { return nil }
        let source = calibration == 1 ? sourceError : calibratedError ?? sourceError
        let total = source + paceError
        return total > 0 ? source / total : 0.5
    }

    static func error(_ predicted: Double, _ actual: Double) -> Double {
        let relative = (predicted - actual) / max(predicted, actual)
        return relative * relative
    }

}
