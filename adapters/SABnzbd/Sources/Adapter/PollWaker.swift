import LiveBridgeCore
import Synchronization

/// Lets a webhook cut the poller's sleep short.
///
/// A wake-up that arrives while the poller is busy is remembered, so the next sleep ends at
/// once: a webhook is never lost between two polls.
final class PollWaker: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Wakes the sleeping poller, or the next one to sleep.
    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Sleeps until `deadline` on `clock` or until woken; returns true when woken.
    func sleep(until deadline: Double, clock: any TimeSource) async throws -> Bool {
        if consumePending() { return true }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(until: deadline)
                return false
            }
            group.addTask {
                await self.nextWake()
                return true
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return false }
            return first
        }
    }

    private func consumePending() -> Bool {
        state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
    }

    private func nextWake() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}
