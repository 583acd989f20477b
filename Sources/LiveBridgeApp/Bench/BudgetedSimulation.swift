import LiveBridgeCore

/// `EconomySimulation` with a monthly budget: real trackers on virtual time, each decision taken
/// under the pressure a real `BudgetLedger` reports, every frame counted in that ledger — what the
/// engine does in `livebridge run`, minus the network.
///
/// `EconomySimulation` has no ledger (a single job never feels the month); the month simulation
/// needs one, so this loop mirrors `EconomySimulation.run` and adds it. With no limit it makes
/// exactly the same pushes (BenchTests checks that).
struct BudgetedSimulation: Sendable {
    var model: DisplayModel = .interpolating
    var settings: EconomySettings

    /// One pushed frame with the time it went out.
    struct Push: Sendable {
        var time: Double
        var frame: ActivityFrame
    }

    /// Every push, and every slug's anchors in time order.
    struct Result: Sendable {
        var pushes: [Push]
        var anchors: [String: [DisplayAnchor]]
        /// Updates the ledger counted.
        var counted: Int
        /// When the count reached the limit (nil: never).
        var exhaustedAt: Double?
    }

    /// Runs `updates` (any slugs, `observedAt` set) and lets deadlines play out until `endTime`.
    func run(_ updates: [ActivityUpdate], endTime: Double? = nil) -> Result {
        let ledger = BudgetLedger(sink: "bench", limit: settings.monthlyBudget, store: MemoryStateStore())
        var trackers: [String: ActivityTracker] = [:]
        var pushes: [Push] = []
        var anchors: [String: [DisplayAnchor]] = [:]
        var counted = 0
        var exhaustedAt: Double?
        let sorted = updates.enumerated().sorted {
            ($0.element.observedAt ?? 0, $0.offset) < ($1.element.observedAt ?? 0, $1.offset)
        }.map(\.element)
        let finalTime = endTime ?? ((sorted.last?.observedAt ?? 0) + 60)

        func record(_ frames: [ActivityFrame], slug: String, time: Double, tracker: ActivityTracker) {
            guard !frames.isEmpty else { return }
            for frame in frames { pushes.append(Push(time: time, frame: frame)) }
            for frame in frames { ledger.record(frame, at: time) }
            counted += frames.count
            if let limit = settings.monthlyBudget, counted >= limit, exhaustedAt == nil { exhaustedAt = time }
            if let anchor = tracker.anchor { anchors[slug, default: []].append(anchor) }
        }

        func runDeadlines(until limit: Double) {
            while true {
                let due = trackers.compactMap { slug, tracker in tracker.nextDeadline.map { (slug, $0) } }
                    .filter { $0.1 <= limit }
                    .min { ($0.1, $0.0) < ($1.1, $1.0) }
                guard let (slug, deadline) = due, var tracker = trackers[slug] else { return }
                let frames = tracker.tick(at: deadline, budget: ledger.pressure(at: deadline))
                if frames.isEmpty && tracker.nextDeadline == deadline { return }
                trackers[slug] = tracker
                record(frames, slug: slug, time: deadline, tracker: tracker)
            }
        }

        for update in sorted {
            let time = update.observedAt ?? 0
            runDeadlines(until: time)
            var tracker =
                trackers[update.slug]
                ?? ActivityTracker(slug: update.slug, name: update.name, model: model, settings: settings)
            let frames = tracker.handle(update, at: time, budget: ledger.pressure(at: time))
            trackers[update.slug] = tracker
            record(frames, slug: update.slug, time: time, tracker: tracker)
        }
        runDeadlines(until: finalTime)
        return Result(pushes: pushes, anchors: anchors, counted: counted, exhaustedAt: exhaustedAt)
    }
}
