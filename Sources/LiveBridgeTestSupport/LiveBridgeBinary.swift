import Foundation

/// The real `livebridge` executable of this build, started as a separate process.
public enum LiveBridgeBinary {
    /// The executable is not built.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// The built executable `name` (`livebridge`, `livebridge-bench`): next to the test bundle
    /// (`.build/<triple>/debug/`), else `.build/debug/<name>` in the package.
    public static func locate(_ name: String = "livebridge") throws -> String {
        var candidates: [String] = []
        if let runner = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(runner.appendingPathComponent(name).path)
        }
        let arguments = CommandLine.arguments
        if let first = arguments.first, first.contains("/") {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent(name).path)
        }
        candidates.append(Checkout.file(".build/debug/\(name)").path)
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw Missing(
            description: "the \(name) executable is not built (looked at \(candidates.joined(separator: ", "))); "
                + "run `swift build --build-tests` first (`make test` does)")
    }

    /// Starts `livebridge run --config <config>` with `environment` added to this process's.
    public static func run(config: String, environment: [String: String]) async throws -> ChildProcess {
        let executable = try locate()
        return try await HTTPBlockingWork.run {
            try ChildProcess(executable, ["run", "--config", config], environment: environment)
        }
    }
}
