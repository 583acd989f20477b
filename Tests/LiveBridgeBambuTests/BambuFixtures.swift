import Foundation
import LiveBridgeCore
import LiveBridgeTestSupport

/// The recordings under `Fixtures/` (simulated printers; see Fixtures/README.md).
enum BambuFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")
    /// `bench/recordings/bambu` of this checkout: the recordings the bench replays too.
    /// `name` under `Fixtures/` when it is there, else under `bench/recordings/bambu/`.
    static func url(_ name: String) -> URL { Checkout.recording(name, fixtures: directory, source: "bambu") }

    /// The lines of a fixture file.
    static func lines(_ name: String) throws -> [String] {
        let text = try String(contentsOf: url(name), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The base time used for replays in tests (2026-06-15T10:00:00Z).
    static let base: Double = 1_781_517_600
}
