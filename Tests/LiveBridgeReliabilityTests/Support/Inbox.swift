import Synchronization

/// Collects values (adapter events, emitted updates) and lets a test wait for one matching a
/// predicate — event-driven, the timeout is only a failure bound.
final class Inbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var predicate: @Sendable (Element) -> Bool
        var continuation: CheckedContinuation<Element?, Never>
    }

    private struct State {
        var items: [Element] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    var items: [Element] { state.withLock { $0.items } }
    var count: Int { state.withLock { $0.items.count } }

    func append(_ element: Element) {
        let ready = state.withLock { state -> [CheckedContinuation<Element?, Never>] in
            state.items.append(element)
            let matching = state.waiters.filter { $0.value.predicate(element) }
            for id in matching.keys { state.waiters.removeValue(forKey: id) }
            return matching.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: element) }
    }

    /// The first value at index `from` or later matching `predicate`, within `timeout` real seconds.
    @discardableResult
    func first(
        from index: Int = 0, timeout: Double = 15, _ what: String,
        where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
        defer { timer.cancel() }
        let found: Element? = await withCheckedContinuation { continuation in
            let existing = state.withLock { state -> Element? in
                if let match = state.items.dropFirst(index).first(where: predicate) { return match }
                state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                return nil
            }
            if let existing { continuation.resume(returning: existing) }
        }
        guard let found else {
            throw ReliabilityTimeout(description: "timed out after \(timeout) s waiting for \(what)")
        }
        return found
    }
}
