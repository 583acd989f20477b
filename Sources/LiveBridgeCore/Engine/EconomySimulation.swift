/// Runs observations through real trackers on virtual time, with instant delivery, and measures
/// what the phone would have shown: the basis of `livebridge replay`, the benchmarks and the
/// economy's tests.
public struct EconomySimulation: Sendable {
    /// One pushed frame with the time it went out.
    public struct Push: Sendable {
        public var time: Double
        public var frame: ActivityFrame
    }

    /// Per-activity figures.
    public struct ActivityResult: Sendable {
        public var slug: String
        public var pushes: Int
        /// Largest |shown − truth| on the 1 s grid while the job ran.
        public var maxError: Double
        /// Mean |shown − truth| on the same grid.
        public var meanError: Double
        /// Grid points measured.
        public var samples: Int
        /// Start and end of the measured window.
        public var window: ClosedRange<Double>?
    }

    public var model: DisplayModel
    public var settings: EconomySettings
    /// Grid step for the error measurement, seconds.
    public var gridStep: Double = 1
    /// The display's lifecycle limit (`Sink.lifecycleLimit`); nil (the default) measures a job's
    /// pushes without renewals.
    public var lifecycleLimit: Double?
    /// Whether the display ends a card that gets no update for its `stale_ttl` (`Sink.expiresStale`:
    /// PushWard's, the default); false measures a display that keeps it, with no heartbeats.
    public var expiresStale = true

    public init(model: DisplayModel, settings: EconomySettings) {
        self.model = model
        self.settings = settings
    }

    /// The outcome of a run.
    public struct Result: Sendable {
        public var pushes: [Push]
        public var activities: [ActivityResult]
        /// Every tracker's anchors over time, for plots and the preview cross-check.
        public var anchors: [String: [DisplayAnchor]]
        /// Deadlines a tracker named whose tick did nothing and that it then named again: a
        /// caller would spin on them (the engine's loop re-runs a due deadline at once). Always 0.
        public var idleDeadlines = 0

        public var totalPushes: Int { pushes.count }
        public var maxError: Double { activities.map(\.maxError).max() ?? 0 }
        public var meanError: Double {
            let samples = activities.reduce(0) { $0 + $1.samples }
            guard samples > 0 else { return 0 }
            return activities.reduce(0) { $0 + $1.meanError * Double($1.samples) } / Double(samples)
        }
    }

    /// Runs `updates` (each with `observedAt` set, in time order) and then lets deadlines play out
    /// until `endTime` (default: 60 s after the last update, enough for the end frames). With a
    /// `ledger`, every decision is taken under the pressure it reports and every frame is counted
    /// in it — a month of jobs under a monthly budget.
    public func run(_ updates: [ActivityUpdate], endTime: Double? = nil, ledger: BudgetLedger? = nil) -> Result {
        var trackers: [String: ActivityTracker] = [:]
        var pushes: [Push] = []
        var anchors: [String: [DisplayAnchor]] = [:]
        var truthSamples: [String: [(time: Double, progress: Double)]] = [:]
        var phases: [String: [(time: Double, running: Bool)]] = [:]
        var idleDeadlines = 0
        let sorted = updates.enumerated().sorted {
            ($0.element.observedAt ?? 0, $0.offset) < ($1.element.observedAt ?? 0, $1.offset)
        }.map(\.element)
        let finalTime = endTime ?? ((sorted.last?.observedAt ?? 0) + 60)

        func pressure(at time: Double) -> BudgetPressure { ledger?.pressure(at: time) ?? .none }

        func record(_ frames: [ActivityFrame], slug: String, time: Double, tracker: ActivityTracker) {
            for frame in frames {
                pushes.append(Push(time: time, frame: frame))
                ledger?.record(frame, at: time)
            }
            // What the phone shows is what the frames say, from when they leave: the tracker's own
            // model of it is what is being measured, not the measure.
            for frame in frames {
                if let anchor = frame.displayAnchor(at: time) { anchors[slug, default: []].append(anchor) }
            }
        }

        // Deadlines before `limit` (and at it, when `inclusive`): an observation and a deadline
        // at one instant meet with the observation first, so what goes out carries it.
        func runDeadlines(until limit: Double, inclusive: Bool = true) {
            while true {
                let due = trackers.compactMap { slug, tracker in tracker.nextDeadline.map { (slug, $0) } }
                    .filter { inclusive ? $0.1 <= limit : $0.1 < limit }
                    .min { ($0.1, $0.0) < ($1.1, $1.0) }
                guard let (slug, deadline) = due, var tracker = trackers[slug] else { return }
                let frames = tracker.tick(at: deadline, budget: pressure(at: deadline))
                if frames.isEmpty && tracker.nextDeadline == deadline {
                    idleDeadlines += 1
                    return
                }
                trackers[slug] = tracker
                record(frames, slug: slug, time: deadline, tracker: tracker)
            }
        }

        for update in sorted {
            let time = update.observedAt ?? 0
            runDeadlines(until: time, inclusive: false)
            var tracker =
                trackers[update.slug]
                ?? ActivityTracker(slug: update.slug, name: update.name, model: model, settings: settings)
            tracker.lifecycleLimit = lifecycleLimit
            tracker.expiresStale = expiresStale
            let frames = tracker.handle(update, at: time, budget: pressure(at: time))
            trackers[update.slug] = tracker
            record(frames, slug: update.slug, time: time, tracker: tracker)
            if let progress = update.progress {
                // A progress is true at its own time; the same value travelling with a later
                // update adds nothing.
                let progressTime = min(time, update.progressObservedAt ?? time)
                if progressTime > truthSamples[update.slug]?.last?.time ?? -.infinity {
                    truthSamples[update.slug, default: []].append((progressTime, min(1, max(0, progress))))
                }
            } else if case .ended(.success) = update.phase {
                truthSamples[update.slug, default: []].append((time, 1))
            }
            phases[update.slug, default: []].append((time, !update.phase.isEnded))
        }
        runDeadlines(until: finalTime)

        var results: [ActivityResult] = []
        for slug in trackers.keys.sorted() {
            let slugPushes = pushes.filter { $0.frame.slug == slug }
            let measured = measure(
                truth: truthSamples[slug] ?? [], phases: phases[slug] ?? [], anchors: anchors[slug] ?? [])
            results.append(
                ActivityResult(
                    slug: slug, pushes: slugPushes.count, maxError: measured.max, meanError: measured.mean,
                    samples: measured.count, window: measured.window))
        }
        return Result(pushes: pushes, activities: results, anchors: anchors, idleDeadlines: idleDeadlines)
    }

    /// Error of the displayed bar against the truth (linear between samples) on the grid, over
    /// the time the job was running (first push to the ended observation).
    func measure(
        truth: [(time: Double, progress: Double)], phases: [(time: Double, running: Bool)], anchors: [DisplayAnchor]
    ) -> (max: Double, mean: Double, count: Int, window: ClosedRange<Double>?) {
        guard let firstAnchor = anchors.first, truth.count >= 1 else { return (0, 0, 0, nil) }
        let start = firstAnchor.time
        let end = phases.first { !$0.running && $0.time >= start }?.time ?? truth.last!.time
        guard end > start else { return (0, 0, 0, nil) }
        let times = DisplayError.grid(from: start, through: end, step: gridStep)
        let figures = DisplayError.measure(
            times: times, truth: DisplayError.truth(truth, at: times), anchors: anchors, model: model)
        return (figures.max, figures.mean, figures.samples, start...end)
    }
}
