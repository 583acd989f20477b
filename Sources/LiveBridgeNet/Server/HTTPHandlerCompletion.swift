import Glibc
import Synchronization

/// Hands a handler's response from its Task to the waiting connection thread.
///
/// A pipe rather than a semaphore, so the connection thread can `poll` the pipe and the client
/// socket together and notice a client that hangs up while the handler is still running.
final class HTTPHandlerCompletion: Sendable {
    private struct State {
        var response: HTTPServerResponse?
        /// The pipe's write end; -1 once the connection thread stopped listening.
        var wakeFD: Int32
    }

    private let state: Mutex<State>
    /// The pipe's read end, polled by the connection thread.
    let readFD: Int32

    /// A completion with a fresh pipe; nil when the process is out of descriptors.
    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        readFD = fds[0]
        state = Mutex(State(response: nil, wakeFD: fds[1]))
    }

    /// Stores the response and wakes the connection thread (if it still waits).
    func deliver(_ response: HTTPServerResponse) {
        state.withLock { state in
            state.response = response
            guard state.wakeFD >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(state.wakeFD, &byte, 1)
        }
    }

    /// The delivered response, if any.
    var response: HTTPServerResponse? { state.withLock { $0.response } }

    /// Closes the pipe; a later `deliver` only stores. The write end is closed under the lock so
    /// a late handler can never write into a reused descriptor number.
    func close() {
        state.withLock { state in
            if state.wakeFD >= 0 {
                _ = Glibc.close(state.wakeFD)
                state.wakeFD = -1
            }
        }
        _ = Glibc.close(readFD)
    }
}
