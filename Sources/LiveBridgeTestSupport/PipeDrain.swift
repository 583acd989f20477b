public import Foundation

/// Reads a child's output pipe to its end on a thread of its own.
///
/// Not through `FileHandle.readabilityHandler`: its dispatch read source, torn down while the
/// pipe closes as the child exits, has crashed libdispatch's event thread on Linux. The thread
/// keeps the pipe (and so the descriptor it reads) alive until it has read to the end.
public enum PipeDrain {
    /// Starts reading `pipe`; `chunk` gets what arrives, `end` runs once the writer closed it.
    public static func start(
        _ pipe: Pipe, chunk: @escaping @Sendable (Data) -> Void, end: @escaping @Sendable () -> Void = {}
    ) {
        let thread = Thread {
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    chunk(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            withExtendedLifetime(pipe) {}
            end()
        }
        thread.start()
    }
}
