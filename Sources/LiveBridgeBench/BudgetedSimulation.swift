import LiveBridgeApp
import LiveBridgeCore

/// `EconomySimulation` with a monthly budget: real trackers on virtual time, each decision taken
/// under the pressure a real `BudgetLedger` reports, every frame counted in that ledger — what the
/// engine does in `livebridge run`, minus the network.
///
/// `EconomySimulation` with a ledger, plus when the count reached the limit. With no limit it makes
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
        let ledger = BudgetLedger(
            sink: "bench", limit: settings.monthlyBudget, store: MemoryStateStore(), settings: settings)
        let result = EconomySimulation(model: model, settings: settings).run(updates, endTime: endTime, ledger: ledger)
        var exhaustedAt: Double?
        if let limit = settings.monthlyBudget, result.pushes.count >= limit, limit > 0 {
            exhaustedAt = result.pushes[limit - 1].time
        }
        return Result(
            pushes: result.pushes.map { Push(time: $0.time, frame: $0.frame) }, anchors: result.anchors,
            counted: result.pushes.count, exhaustedAt: exhaustedAt)
    }
}
