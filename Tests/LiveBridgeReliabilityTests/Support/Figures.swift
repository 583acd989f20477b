import Foundation

/// Measured figures (recovery times, attempt counts), printed as `[reliability] name: value` so a
/// run's output can be grepped for `docs/reliability.md`.
enum Figures {
    static func record(_ name: String, _ value: String) {
        FileHandle.standardError.write(Data("[reliability] \(name): \(value)\n".utf8))
    }

    /// Seconds as `1.23 s`.
    static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }
}
