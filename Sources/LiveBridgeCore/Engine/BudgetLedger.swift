import Synchronization

/// Counts a sink's updates per calendar month (UTC), persisted, and turns the month's projected
/// use into pressure on the push economy.
///
/// The free PushWard tier allows about 250 Live Activity updates a month. The ledger keeps the
/// updates that start and end activities ("essential": never skipped) apart from the rest, and
/// reserves what the rest of the month's starts and ends will need at the pace seen so far. With a
/// budget, ε and the ETA tolerance are widened to hold the bar within 0.05
/// (`EconomySettings.budgetWidening`, like every constant here); as
/// the projection nears the budget card-text changes within a phase wait for a push that happens
/// anyway (as they do while they would leave a job's share no correction,
/// `EconomySettings.labelKeptCorrections`). Each job may use its share of what is left beyond the
/// reserve, split over the jobs still to come (`jobAllowance`), so a busy first week does not leave
/// the last weeks' jobs with nothing but a start and an end; once only the reserve is left, nothing but starts,
/// ends, pauses and resumes goes out (the reserve is kept for all of them).
public final class BudgetLedger: Sendable {
    private struct State {
        var month: Int
        var used: Int
        var essential: Int
        var loaded = false
    }

    /// The sink this ledger counts for.
    public let sink: String
    /// Updates allowed per month; nil = unlimited (still counted).
    public let limit: Int?
    /// The budget's constants (`budgetWidening` and the fields after it).
    public let settings: EconomySettings
    private let store: any StateStore
    private let state: Mutex<State>

    public init(sink: String, limit: Int?, store: any StateStore, settings: EconomySettings = EconomySettings()) {
        self.sink = sink
        self.limit = limit
        self.settings = settings
        self.store = store
        state = Mutex(State(month: 0, used: 0, essential: 0))
    }

    private var key: String { "budget/\(ContentRules.slugify(sink)).json" }

    private func load(_ state: inout State, now: Double) {
        let month = CivilTime(unixSeconds: now).monthKey
        if !state.loaded {
            state.loaded = true
            if let json = try? store.readJSON(key), json["month"]?.intValue == month {
                state.used = json["used"]?.storedCount ?? 0
                state.essential = json["essential"]?.storedCount ?? 0
            }
            state.month = month
        }
        if state.month != month {
            state.month = month
            state.used = 0
            state.essential = 0
        }
    }

    /// True for the frames that start or end an activity, which the economy never skips, and for
    /// the pauses and resumes it shows however little is left.
    public static func isEssential(_ frame: ActivityFrame) -> Bool {
        frame.essential || frame.kind == .seed || frame.kind == .final || frame.kind == .end
    }

    /// Counts one accepted frame at `now` and persists the counters.
    /// Returns a store error message when persisting failed (counting continues in memory).
    @discardableResult
    public func record(_ frame: ActivityFrame, at now: Double) -> String? {
        record(1, essential: Self.isEssential(frame) ? 1 : 0, at: now)
    }

    /// Counts `count` accepted updates, `essential` of them starts or ends, at `now`.
    @discardableResult
    public func record(_ count: Int = 1, essential: Int = 0, at now: Double) -> String? {
        let snapshot = state.withLock { state -> (Int, Int, Int) in
            load(&state, now: now)
            state.used += count
            state.essential += min(essential, count)
            return (state.month, state.used, state.essential)
        }
        do {
            try store.writeJSON(
                key,
                [
                    "month": .int(Int64(snapshot.0)), "used": .int(Int64(snapshot.1)),
                    "essential": .int(Int64(snapshot.2)),
                ])
            return nil
        } catch {
            return error.description
        }
    }

    /// Updates counted this month.
    public func used(at now: Double) -> Int {
        state.withLock { state in
            load(&state, now: now)
            return state.used
        }
    }

    /// The pressure the month's projection puts on the economy at `now`.
    public func pressure(at now: Double) -> BudgetPressure {
        guard let limit, limit > 0 else { return .none }
        let (used, essential) = state.withLock { state -> (Int, Int) in
            load(&state, now: now)
            return (state.used, state.essential)
        }
        let spent = BudgetPressure(widening: settings.budgetExhaustedWidening, exhausted: true)
        if used >= limit { return spent }
        let civil = CivilTime(unixSeconds: now)
        let monthLength = civil.startOfNextMonth - civil.startOfMonth
        let fraction = min(1, max(0, (now - civil.startOfMonth) / monthLength))
        let elapsed = max(fraction, settings.budgetMinimumElapsedShare)
        // The month's starts and ends at this month's pace, with a margin (the pace varies, and
        // running out would refuse an end).
        let monthEssential = Double(essential) / elapsed
        // What the rest of the month's starts and ends will need.
        let reserve =
            (monthEssential * (1 - fraction) * settings.budgetReserveMargin).rounded(.up) + settings.budgetReserveSpare
        if Double(limit - used) <= reserve { return spent }
        let projection = Double(used) / elapsed / (settings.budgetProjectionShare * Double(limit))
        // Each job's share of what is left once the reserve is kept, among the jobs the rest of the
        // month will bring (two starts and ends per job) at the pace of the month's real elapsed
        // time: the floor above would make a busy first day look like a quiet month and let its
        // jobs spend what the later weeks' jobs need, while a count it overstates costs the first
        // jobs no more than their corrections beyond the first (the share is at least one).
        let jobsToCome = max(1, Double(essential) / 2 / max(fraction, .ulpOfOne) * (1 - fraction))
        let allowance = max(1, Int(((Double(limit - used) - reserve) / jobsToCome).rounded()))
        return BudgetPressure(
            widening: settings.budgetWidening, exhausted: false, jobAllowance: allowance, projection: projection)
    }
}
