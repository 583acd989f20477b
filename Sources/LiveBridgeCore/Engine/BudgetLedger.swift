import Synchronization

/// Counts a sink's updates per calendar month (UTC), persisted, and turns the month's projected
/// use into pressure on the push economy.
///
/// The free PushWard tier allows about 250 Live Activity updates a month; when the projection
/// nears the budget, ε and the ETA tolerance widen (up to 3×), and once it is spent only starts
/// and ends go out.
public final class BudgetLedger: Sendable {
    private struct State {
        var month: Int
        var used: Int
        var loaded = false
        var storeError: String?
    }

    /// The sink this ledger counts for.
    public let sink: String
    /// Updates allowed per month; nil = unlimited (still counted).
    public let limit: Int?
    private let store: any StateStore
    private let state: Mutex<State>

    public init(sink: String, limit: Int?, store: any StateStore) {
        self.sink = sink
        self.limit = limit
        self.store = store
        state = Mutex(State(month: 0, used: 0))
    }

    private var key: String { "budget/\(ContentRules.slugify(sink)).json" }

    private func load(_ state: inout State, now: Double) {
        let month = CivilTime(unixSeconds: now).monthKey
        if !state.loaded {
            state.loaded = true
            if let json = try? store.readJSON(key), json["month"]?.intValue == month {
                state.used = json["used"]?.intValue ?? 0
            }
            state.month = month
        }
        if state.month != month {
            state.month = month
            state.used = 0
        }
    }

    /// Counts `count` accepted updates at `now` and persists the counter.
    /// Returns a store error message when persisting failed (counting continues in memory).
    @discardableResult
    public func record(_ count: Int = 1, at now: Double) -> String? {
        let snapshot = state.withLock { state -> (Int, Int) in
            load(&state, now: now)
            state.used += count
            return (state.month, state.used)
        }
        do {
            try store.writeJSON(key, ["month": .int(Int64(snapshot.0)), "used": .int(Int64(snapshot.1))])
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
        let used = self.used(at: now)
        if used >= limit { return BudgetPressure(widening: 3, exhausted: true) }
        let civil = CivilTime(unixSeconds: now)
        let monthLength = civil.startOfNextMonth - civil.startOfMonth
        let elapsed = max((now - civil.startOfMonth) / monthLength, 3.0 / 30.0)
        let projected = Double(used) / elapsed
        let comfortable = 0.8 * Double(limit)
        let widening = min(3, max(1, projected / comfortable))
        return BudgetPressure(widening: widening, exhausted: false)
    }
}
