import Glibc

/// A self-pipe that wakes the session's loop thread out of `poll` (backoff waits, the handshake
/// phase) when `shutdown()` is requested.
///
/// Both ends are non-blocking and close-on-exec. A signal stays pending until drained, so a
/// wake-up sent just before the thread starts waiting is not lost.
final class MQTTWakeSignal: Sendable {
    /// The end the loop thread polls for `POLLIN`.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens the pipe; nil when the process is out of descriptors.
    init?() {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return nil }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    /// Makes the read end readable (a full pipe already is, so EAGAIN is fine).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Waits until signalled or `timeout` seconds passed; true when signalled. Leaves the signal
    /// pending (the caller checks its stop flag; a stopping loop never waits again).
    func wait(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 86_400)) * 1000)
        while true {
            let result = poll(&descriptor, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result > 0
        }
    }

    /// Closes both ends. Call once, after the loop thread finished.
    func close() {
        _ = Glibc.close(readDescriptor)
        _ = Glibc.close(writeDescriptor)
    }
}
