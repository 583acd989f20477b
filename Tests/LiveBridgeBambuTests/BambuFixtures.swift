import Foundation
import LiveBridgeCore

/// The recordings under `Fixtures/` (simulated printers; see Fixtures/README.md).
enum BambuFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// The lines of a fixture file.
    static func lines(_ name: String) throws -> [String] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The base time used for replays in tests (2026-06-15T10:00:00Z).
    static let base: Double = 1_781_517_600
}
