import CLiveBridgeShims
import Glibc

/// A joinable POSIX thread running one closure, for blocking C calls that must stay off the
/// cooperative pool (`curl_multi_poll`, `accept`, `recv`).
///
/// `pthread_join` rather than Foundation's `Thread` because shutdown must wait for the thread
/// to be gone before C objects it used are freed.
final class HTTPIOThread: @unchecked Sendable {
    private let handle: pthread_t

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts the thread; nil when the system refuses (thread or memory limit).
    init?(name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                _ = lb_http_set_current_thread_name(start.name)
                start.body()
                return nil
            }, start.toOpaque())
        guard status == 0 else {
            start.release()
            return nil
        }
        handle = thread
    }

    /// Lets the thread clean up after itself when it ends; `join()` must not be called afterwards.
    func detach() {
        _ = pthread_detach(handle)
    }

    /// Waits for the closure to return. Call at most once, never from the thread itself.
    func join() {
        _ = pthread_join(handle, nil)
    }

    /// True when called on this thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), handle) != 0 }
}
