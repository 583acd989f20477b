import Synchronization

/// A queue that threads put values into and async tests take them out of, every wait bounded
/// by a timeout so a broken test fails instead of hanging.
///
/// Used by `WebSocketTestServer` for connections and received events; usable by any fake.
public final class WebSocketTestMailbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Element, any Error>
        var timer: Task<Void, Never>
    }

    private struct State {
        var buffer: [Element] = []
        var waiters: [Waiter] = []
        var finished: (any Error)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let label: String

    /// A mailbox; `label` names it in timeout errors ("connection", "event").
    public init(label: String) {
        self.label = label
    }

    /// Adds a value, handing it straight to the oldest waiter if there is one.
    public func put(_ element: Element) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.finished == nil else { return nil }
            if state.waiters.isEmpty {
                state.buffer.append(element)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.timer.cancel()
        waiter?.continuation.resume(returning: element)
    }

    /// No more values will come: waiters (present and future, once the buffer is empty) get `error`.
    public func finish(_ error: any Error) {
        let waiters = state.withLock { state -> [Waiter] in
            guard state.finished == nil else { return [] }
            state.finished = error
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(throwing: error)
        }
    }

    /// Values put but not yet taken.
    public var pending: [Element] { state.withLock { $0.buffer } }

    /// The next value; throws `WebSocketTestTimeout` after `timeout`, the finishing error once
    /// finished and drained, `CancellationError` when cancelled.
    public func next(timeout: Duration = .seconds(10)) async throws -> Element {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let label = label
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element, any Error>) in
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.expire(id, WebSocketTestTimeout(what: label, timeout: timeout))
                }
                let immediate = state.withLock { state -> Result<Element, any Error>? in
                    if !state.buffer.isEmpty { return .success(state.buffer.removeFirst()) }
                    if let finished = state.finished { return .failure(finished) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation, timer: timer))
                    return nil
                }
                if let immediate {
                    timer.cancel()
                    continuation.resume(with: immediate)
                }
            }
        } onCancel: {
            expire(id, CancellationError())
        }
    }

    private func expire(_ id: UInt64, _ error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timer.cancel()
        waiter?.continuation.resume(throwing: error)
    }
}

/// A bounded test wait ran out of time.
public struct WebSocketTestTimeout: Error, CustomStringConvertible {
    /// What was awaited.
    public var what: String
    /// How long.
    public var timeout: Duration

    /// A timeout while waiting `timeout` for `what`.
    public init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    /// A short human-readable form for logs and messages.
    public var description: String { "timed out after \(timeout) waiting for \(what)" }
}
