import Foundation
import Synchronization

/// Named events recorded by server handlers and awaited by tests, with a bound on every wait,
/// so tests synchronise on what happened instead of sleeping.
final class HTTPTestEvents: Sendable {
    private struct Waiter {
        var id: UInt64
        var event: String
        var count: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var counts: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Records `event` and wakes everyone waiting for it.
    func record(_ event: String) {
        let woken = state.withLock { state -> [Waiter] in
            state.counts[event, default: 0] += 1
            let reached = state.counts[event, default: 0]
            let matching = state.waiters.filter { $0.event == event && $0.count <= reached }
            state.waiters.removeAll { $0.event == event && $0.count <= reached }
            return matching
        }
        for waiter in woken { waiter.continuation.resume(returning: true) }
    }

    /// How often `event` was recorded.
    func count(_ event: String) -> Int { state.withLock { $0.counts[event, default: 0] } }

    /// True once `event` was recorded `count` times (now or within `seconds`); false when the
    /// time runs out.
    func wait(for event: String, count: Int = 1, within seconds: Double = 10) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withCheckedContinuation { continuation in
            let seen = state.withLock { state -> Bool in
                if state.counts[event, default: 0] >= count { return true }
                state.waiters.append(Waiter(id: id, event: event, count: count, continuation: continuation))
                return false
            }
            if seen {
                continuation.resume(returning: true)
                return
            }
            Task.detached { [self] in
                try? await Task.sleep(for: .seconds(seconds))
                let expired = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                expired?.continuation.resume(returning: false)
            }
        }
    }
}

/// Monotonic seconds since `start`.
func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
