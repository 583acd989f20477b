import Foundation
import Synchronization

/// Writes logfmt lines to standard error, one `write` per line so lines never interleave.
public final class StandardErrorLogHandler: LogHandler {
    private let lock = Mutex<Void>(())

    public init() {}

    public func log(_ record: LogRecord) {
        let data = Data((record.logfmt + "\n").utf8)
        lock.withLock { _ in FileHandle.standardError.write(data) }
    }
}
