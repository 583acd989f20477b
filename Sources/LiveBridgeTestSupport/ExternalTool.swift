import Dispatch
import Foundation
import Synchronization

/// Command-line tools a test runs (a browser, Node.js, `systemd-analyze`), awaited without
/// blocking the task pool.
///
/// A test that waits for a child process on a pool thread holds one of the machine's two
/// workers for as long as the tool runs, and every other test's continuations queue behind it.
/// Here the wait is a continuation resumed by the process's termination handler; the output
/// goes to files (read after exit, so nothing is lost); a tool outliving `timeout` is killed.
public enum ExternalTool {
    /// How a tool run ended.
    public struct Outcome: Sendable {
        /// Exit status.
        public var status: Int32
        /// Everything it wrote to stdout.
        public var stdout: String
        /// Everything it wrote to stderr.
        public var stderr: String
    }

    /// The first of `names` found as an executable on PATH (or in /usr/sbin, /sbin), as a path.
    public static func locate(_ names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        for name in names {
            for directory in directories where !directory.isEmpty {
                let candidate = directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// Runs `executable` (a path) to completion. `lowPriority` runs it under `nice -n 19`, which
    /// execs the tool under the same pid. Throws when it cannot start or outlives `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, lowPriority: Bool = false,
        timeout: Double = 60
    ) async throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "tool")
        defer { directory.remove() }
        let outPath = directory.file("stdout")
        let errPath = directory.file("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        guard let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw ChildProcessError(message: "cannot create output files in \(directory.path)")
        }
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        let nice = lowPriority ? locate(["nice"]) : nil
        process.executableURL = URL(fileURLWithPath: nice ?? executable)
        process.arguments = (nice == nil ? [] : ["-n", "19", executable]) + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        if let environment { process.environment = environment }

        let exited = DispatchSemaphore(value: 0)
        let killed = Mutex(false)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                exited.signal()
                continuation.resume(returning: process.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: ChildProcessError(message: "cannot start \(executable): \(error)"))
                return
            }
            let pid = process.processIdentifier
            // A failure bound only: a tool that hangs is killed (a browser's helpers follow it).
            Thread.detachNewThread {
                if exited.wait(timeout: .now() + timeout) == .timedOut {
                    killed.withLock { $0 = true }
                    kill(pid, SIGKILL)
                }
            }
        }
        let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        if killed.withLock({ $0 }) {
            let name = (executable as NSString).lastPathComponent
            throw ChildProcessError(message: "\(name) did not finish within \(Int(timeout)) s: \(stderr.suffix(2000))")
        }
        return Outcome(status: status, stdout: stdout, stderr: stderr)
    }
}
