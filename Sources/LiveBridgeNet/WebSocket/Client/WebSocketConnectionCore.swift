import Glibc
import Synchronization

/// The state a `WebSocketConnection` shares between its async API and its I/O thread: queued
/// commands, the wake-up pipe, the message stream and everyone waiting for the end.
///
/// All cross-thread traffic goes through one `Mutex`; the I/O thread owns everything else.
final class WebSocketConnectionCore: Sendable {
    /// Work for the I/O thread.
    enum Command: Sendable {
        case send(WebSocketFrame, CheckedContinuation<Void, any Error>)
        case close(WebSocketCloseCode, String)
    }

    private enum Phase {
        case connecting
        case open
        case finished(WebSocketError?)
    }

    private struct State {
        var phase: Phase = .connecting
        var commands: [Command] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var connectContinuation: CheckedContinuation<Void, any Error>?
        var connectAbandoned = false
        /// Write end of the wake pipe; -1 once closed (only ever written under the lock).
        var wakeWrite: Int32
    }

    let endpoint: WebSocketEndpoint
    /// Read end of the wake pipe, polled by the I/O thread; closed by `finish`.
    let wakeDescriptor: Int32
    private let continuation: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let state: Mutex<State>

    /// A core feeding `continuation`. The stream itself is held only by the application's
    /// `WebSocketConnection`, so that dropping it is noticed (see `closeWhenStreamIsAbandoned`).
    init(
        endpoint: WebSocketEndpoint, wakePipe: (read: Int32, write: Int32),
        continuation: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    ) {
        self.endpoint = endpoint
        self.continuation = continuation
        wakeDescriptor = wakePipe.read
        state = Mutex(State(wakeWrite: wakePipe.write))
    }

    /// Closes the connection with 1001 when the consumer of `messages` is cancelled or the
    /// stream is dropped — the safety net for a forgotten `close()`.
    func closeWhenStreamIsAbandoned() {
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.submit(.close(.goingAway, "")) }
        }
    }

    // MARK: - Connecting

    /// Stores the continuation `connect()` waits on; false when the connect was already cancelled.
    func installConnectContinuation(_ connectContinuation: CheckedContinuation<Void, any Error>) -> Bool {
        state.withLock { state in
            guard !state.connectAbandoned else { return false }
            state.connectContinuation = connectContinuation
            return true
        }
    }

    /// The task awaiting `connect()` was cancelled: resume it now; the thread gives up as soon as it can.
    func abandonConnect() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.connectAbandoned = true
            Self.wake(state.wakeWrite)
            defer { state.connectContinuation = nil }
            return state.connectContinuation
        }
        waiting?.resume(throwing: CancellationError())
    }

    /// True once `connect()` has been cancelled.
    var isConnectAbandoned: Bool { state.withLock { $0.connectAbandoned } }

    /// The link is up: resume `connect()`. False when nobody waits any more (cancelled).
    func connectSucceeded() -> Bool {
        let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.connectAbandoned else { return nil }
            state.phase = .open
            defer { state.connectContinuation = nil }
            return state.connectContinuation
        }
        waiting?.resume()
        return waiting != nil
    }

    // MARK: - Commands

    /// Queues work for the I/O thread and wakes it; a send after the end fails at once.
    func submit(_ command: Command) {
        let rejected = state.withLock { state -> WebSocketError?? in
            if case .finished(let error) = state.phase { return .some(error) }
            state.commands.append(command)
            Self.wake(state.wakeWrite)
            return .none
        }
        guard let terminal = rejected else { return }
        if case .send(_, let waiting) = command { waiting.resume(throwing: notOpenError(after: terminal)) }
    }

    /// Everything queued since the last call (I/O thread).
    func takeCommands() -> [Command] {
        state.withLock { state in
            defer { state.commands.removeAll() }
            return state.commands
        }
    }

    /// Hands a message to the application (I/O thread).
    func deliver(_ message: WebSocketMessage) {
        continuation.yield(message)
    }

    // MARK: - Ending

    /// The connection is over (I/O thread, exactly once): closes the wake pipe, ends the
    /// message stream with `error` (normally when nil), fails queued sends, wakes `close()`
    /// and a still-waiting `connect()`.
    func finish(_ error: WebSocketError?) {
        let (commands, waiters, connectWaiter) = state.withLock { state in
            state.phase = .finished(error)
            Glibc.close(state.wakeWrite)
            Glibc.close(wakeDescriptor)
            state.wakeWrite = -1
            defer {
                state.commands.removeAll()
                state.closeWaiters.removeAll()
                state.connectContinuation = nil
            }
            return (state.commands, state.closeWaiters, state.connectContinuation)
        }
        if let connectWaiter {
            connectWaiter.resume(throwing: error ?? notOpenError(after: nil))
        }
        continuation.finish(throwing: error)
        for command in commands {
            if case .send(_, let waiting) = command { waiting.resume(throwing: notOpenError(after: error)) }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `finish` has run.
    func waitUntilFinished() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if case .finished = state.phase { return true }
                state.closeWaiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }

    /// The error for a send that can no longer happen.
    func notOpenError(after terminal: WebSocketError?) -> WebSocketError {
        let why = terminal.map { " (\($0.detail))" } ?? ""
        return WebSocketError(
            .notOpen, endpoint: endpoint.description,
            detail: "the connection has ended\(why); open a new connection to send")
    }

    private static func wake(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }
}
