import Dispatch
import Foundation
import Synchronization

/// A helper process a test starts (mosquitto, a Python TLS server, `openssl`) and must stop.
public final class ChildProcess: Sendable {
    private let process: Process
    private let output: OutputBuffer

    /// What the process wrote to stdout and stderr so far (for failure messages).
    public var outputText: String { String(decoding: output.data.withLock { $0 }, as: UTF8.self) }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// True while the process runs.
    public var isRunning: Bool { process.isRunning }

    /// Starts `executable` with `arguments`; stdout and stderr are captured together.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChildProcess.resolve(executable))
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = OutputBuffer()
        self.process = process
        self.output = output
        try Self.launch(process)
        PipeDrain.start(pipe, chunk: { data in output.data.withLock { $0.append(data) } }) {
            output.finished.signal()
        }
    }

    /// Starts the process from a thread whose signal mask is empty.
    ///
    /// A child inherits the signal mask of the thread that spawns it, and the task pool's
    /// threads block SIGTERM: a child started from one would ignore `terminate()` forever.
    private static func launch(_ process: Process) throws {
        let failure = LaunchFailure()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do {
                try process.run()
            } catch {
                failure.error.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        done.wait()
        if let message = failure.error.withLock({ $0 }) {
            throw ChildProcessError(message: "cannot start \(process.executableURL?.path ?? "?"): \(message)")
        }
    }

    /// Sends SIGTERM and waits for the process to exit.
    public func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Sends SIGKILL and waits for the process to exit.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the process to exit and returns its status.
    @discardableResult
    public func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs a command to completion; throws with its output when it fails.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let child = try ChildProcess(executable, arguments)
        let status = child.wait()
        // Everything it wrote, once the reader has reached the end (bounded: a grandchild may
        // hold the pipe open).
        _ = child.output.finished.wait(timeout: .now() + 5)
        let text = child.outputText
        guard status == 0 else {
            throw ChildProcessError(
                message: "\(executable) \(arguments.joined(separator: " ")) exited with \(status): \(text)")
        }
        return text
    }

    /// The absolute path of `name`, searched on PATH when it has no slash.
    public static func resolve(_ name: String) throws -> String {
        if name.contains("/") { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories: [String] = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        for directory in directories {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ChildProcessError(message: "\(name) not found on PATH; run `make deps` to install test dependencies")
    }
}

/// A helper process could not be started or failed.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

private final class LaunchFailure: Sendable {
    let error = Mutex<String?>(nil)
}

private final class OutputBuffer: Sendable {
    let data = Mutex(Data())
    /// Signalled when the reader has read to the end of the pipe.
    let finished = DispatchSemaphore(value: 0)
}
