public import Foundation

/// Files of this checkout that tests read (examples, tools, recordings), found from this file's
/// path, whatever the working directory.
public enum Checkout {
    /// The package root (this file is `Sources/LiveBridgeTestSupport/Checkout.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `path` below the package root.
    public static func file(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// A test fixture `name`: under the test target's `fixtures` folder when it is there, else
    /// the recording the bench replays too, under `bench/recordings/<source>/`.
    public static func recording(_ name: String, fixtures: URL, source: String) -> URL {
        let local = fixtures.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: local.path)
            ? local : file("bench/recordings/\(source)").appendingPathComponent(name)
    }
}
