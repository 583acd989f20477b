import Glibc
import Synchronization

/// Writes logfmt lines to standard error, one `write` per line so lines never interleave.
public final class StandardErrorLogHandler: LogHandler {
    private let lock = Mutex<Void>(())

    public init() {}

    public func log(_ record: LogRecord) {
        let bytes = Array((record.logfmt + "\n").utf8)
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let result = Glibc.write(STDERR_FILENO, buffer.baseAddress! + written, buffer.count - written)
                    if result < 0 && errno == EINTR { continue }
                    guard result > 0 else { return }  // standard error closed: nothing more to do
                    written += result
                }
            }
        }
    }
}
