import Synchronization

/// A wait in a test that ran out of time (the timeout is a failure bound, never a delay).
public struct TestTimeout: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Collects values from a producer (adapter events, emitted updates, session states) and lets a
/// test wait for one matching a predicate, event-driven.
public final class TestInbox<Element: Sendable>: Sendable {
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

    public init() {}

    /// Consumes `stream` in the background into this inbox.
    public convenience init(consuming stream: AsyncStream<Element>) {
        self.init()
        Task { [self] in
            for await element in stream { self.append(element) }
        }
    }

    /// Every value so far.
    public var items: [Element] { state.withLock { $0.items } }
    public var count: Int { state.withLock { $0.items.count } }

    public func append(_ element: Element) {
        let ready = state.withLock { state -> [CheckedContinuation<Element?, Never>] in
            state.items.append(element)
            let matching = state.waiters.filter { $0.value.predicate(element) }
            for id in matching.keys { state.waiters.removeValue(forKey: id) }
            return matching.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: element) }
    }

    /// The first value at index `from` or later (received already or later) matching `predicate`,
    /// within `timeout` real seconds; `TestTimeout` after that, `CancellationError` if cancelled.
    @discardableResult
    public func first(
        from index: Int = 0, timeout: Double = 15, _ what: String,
        where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timedOut = Mutex(false)
        let timer = Task { [self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
            guard !Task.isCancelled, let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
            timedOut.withLock { $0 = true }
            waiter.continuation.resume(returning: nil)
        }
        defer { timer.cancel() }
        let found: Element? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let existing = state.withLock { state -> Element?? in
                    if let match = state.items.dropFirst(index).first(where: predicate) { return .some(match) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                    return nil
                }
                if let existing { continuation.resume(returning: existing) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
        guard let found else {
            if timedOut.withLock({ $0 }) { throw TestTimeout("timed out after \(timeout) s waiting for \(what)") }
            throw CancellationError()
        }
        return found
    }

    /// Waits until at least `count` values (received already or later) match `predicate`.
    public func waitForCount(
        _ count: Int, timeout: Double = 15, _ what: String, where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws {
        let matched = Mutex(0)
        try await first(timeout: timeout, what) { element in
            guard predicate(element) else { return false }
            // Called once per item: first for those already received, then for each new one.
            return matched.withLock { value in
                value += 1
                return value >= count
            }
        }
    }
}

/// Runs `body`, throwing `TestTimeout` after `seconds` of real time (the body is cancelled then).
public func withTestDeadline<T: Sendable>(
    _ seconds: Double, _ what: @autoclosure @escaping @Sendable () -> String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            throw TestTimeout("timed out after \(seconds) s: \(what())")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TestTimeout(what()) }
        return first
    }
}
