import Foundation

/// Runs blocking socket work for tests on a fresh thread, never on the cooperative pool, so a
/// stalled test client cannot starve the server's handler tasks on a 2-core machine.
public enum HTTPBlockingWork {
    /// The result of `work`, computed on a new thread.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

/// A test helper's socket operation failed.
public struct HTTPTestSocketError: Error, CustomStringConvertible {
    /// What failed.
    public var message: String

    /// Creates an error; `errno` is appended when `withErrno` is set.
    public init(_ message: String, withErrno: Bool = true) {
        self.message = withErrno ? "\(message): \(String(cString: strerror(errno)))" : message
    }

    /// The message.
    public var description: String { message }
}
