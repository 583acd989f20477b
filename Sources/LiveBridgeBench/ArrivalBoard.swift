import Synchronization

/// Matches arrivals stamped on one thread with waiters on another, by key, with a time bound.
final class ArrivalBoard: Sendable {
    private struct State {
        var arrived: [String: ContinuousClock.Instant] = [:]
        var waiting: [String: CheckedContinuation<ContinuousClock.Instant?, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Records that `key` arrived at `instant`, waking its waiter.
    func arrive(_ key: String, at instant: ContinuousClock.Instant) {
        let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
            if let waiter = state.waiting.removeValue(forKey: key) { return waiter }
            state.arrived[key] = instant
            return nil
        }
        waiter?.resume(returning: instant)
    }

    /// When `key` arrived; nil if it has not within `timeout`.
    func wait(for key: String, timeout: Duration) async -> ContinuousClock.Instant? {
        let watchdog = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(key)
        }
        defer { watchdog.cancel() }
        return await withCheckedContinuation { continuation in
            let early = state.withLock { state -> ContinuousClock.Instant? in
                if let instant = state.arrived.removeValue(forKey: key) { return instant }
                state.waiting[key] = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    private func expire(_ key: String) {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: key) }
        waiter?.resume(returning: nil)
    }
}
