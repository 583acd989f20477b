import Glibc

/// Small POSIX helpers shared by the WebSocket I/O code.
enum WebSocketPolling {
    /// Monotonic seconds, for timers that must not jump with the wall clock.
    static func monotonicNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Milliseconds for `poll` until `deadline`: -1 for none, at least 0, rounded up.
    static func timeoutMilliseconds(until deadline: Double?, now: Double) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = (deadline - now) * 1000
        guard remaining > 0 else { return 0 }
        return Int32(min(remaining.rounded(.up), 60_000))
    }

    /// What `wait` saw.
    enum Readiness: Equatable {
        case ready
        case interrupted
        case timedOut
    }

    /// Waits until `descriptor` has `events`, `interrupt` is readable, or `deadline` passes.
    static func wait(for descriptor: Int32, events: Int16, interrupt: Int32, deadline: Double) -> Readiness {
        while true {
            let now = monotonicNow()
            guard now < deadline else { return .timedOut }
            var fds = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: interrupt, events: Int16(POLLIN), revents: 0),
            ]
            let result = poll(&fds, 2, timeoutMilliseconds(until: deadline, now: now))
            if result < 0 {
                if errno == EINTR { continue }
                return .ready  // let the caller's next call report the error
            }
            if fds[1].revents != 0 { return .interrupted }
            if fds[0].revents != 0 { return .ready }
        }
    }

    /// A non-blocking, close-on-exec pipe used to wake a thread blocked in `poll`.
    static func makeWakePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }

    /// Reads and discards everything in a non-blocking descriptor.
    static func drain(_ descriptor: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
