import Foundation

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// Absolute path of the directory.
    public let path: String

    /// Creates `/tmp/livebridge-<prefix>-<random>`.
    public init(prefix: String = "test") throws {
        let name = "livebridge-\(prefix)-\(UUID().uuidString.prefix(8))"
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
