import Dispatch
import Foundation
import LiveBridgeTestSupport
import Synchronization

/// The `livebridge run` process the resource measurement spawns and must stop.
///
/// Started from a thread with an empty signal mask (a child inherits the spawning thread's mask,
/// and the task pool's threads block SIGTERM); stderr is kept (the log tells the listen address),
/// stdout (the console sink's frames) goes to /dev/null. Stopped by its own pid only.
final class BenchChildProcess: Sendable {
    private let process: Process
    private let log = LogBuffer()

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    /// What the process wrote to stderr so far.
    var logText: String { String(decoding: log.data.withLock { $0 }, as: UTF8.self) }

    init(executable: String, arguments: [String]) throws(BenchError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let pipe = Pipe()
        process.standardError = pipe
        self.process = process
        let log = self.log
        // A reader thread, not `readabilityHandler` (see `PipeDrain`).
        PipeDrain.start(pipe) { chunk in log.data.withLock { $0.append(chunk) } }
        let failure = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do {
                try process.run()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        thread.start()
        done.wait()
        if let message = failure.withLock({ $0 }) {
            throw BenchError("cannot start \(executable): \(message)")
        }
    }

    /// Waits (polling the captured log every `interval`, at most `timeout` seconds) for a log
    /// line containing `text`; returns the line.
    func waitForLine(containing text: String, timeout: Double, interval: Duration = .milliseconds(20)) async
        -> String?
    {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let line = logText.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: interval)
        }
        return nil
    }

    /// Starts `livebridge run` on the config at `configPath` and waits for its "livebridge
    /// running" line; `section` names the bench section in errors.
    static func run(binary: String, configPath: String, section: String) async throws(BenchError) -> RunningBridge {
        let started = ContinuousClock.now
        let child = try BenchChildProcess(executable: binary, arguments: ["run", "--config", configPath])
        guard
            let line = await child.waitForLine(
                containing: "livebridge running", timeout: 30, interval: .milliseconds(1)),
            let listen = line.split(separator: " ").first(where: { $0.hasPrefix("listen=") })?.dropFirst(7)
        else {
            await child.stop()
            throw BenchError("\(section): \(binary) did not start: \(child.logText.suffix(600))")
        }
        return RunningBridge(
            child: child, address: listen.trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
            startup: LatencyBench.seconds(ContinuousClock.now - started))
    }

    /// Writes a generated config readable by the user only.
    static func writeConfig(_ text: String, to path: String, section: String) throws(BenchError) {
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw BenchError("\(section): cannot write \(path)")
        }
    }

    /// A temporary directory for one section, removed by the caller.
    static func temporaryDirectory(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livebridge-bench-\(name)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// How the process ended when asked to stop.
    enum StopOutcome: Sendable, Equatable {
        /// It exited on SIGTERM after this many seconds.
        case terminated(Double)
        /// It ignored SIGTERM for the whole grace period and was killed.
        case killed
        /// It had already exited.
        case exitedEarlier
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; waits for the exit off the task pool.
    @discardableResult
    func stop(grace: Double = 10) async -> StopOutcome {
        guard process.isRunning else { return .exitedEarlier }
        let process = self.process
        return await withCheckedContinuation { (continuation: CheckedContinuation<StopOutcome, Never>) in
            let thread = Thread {
                let start = Date()
                process.terminate()
                let deadline = start.addingTimeInterval(grace)
                while process.isRunning && Date() < deadline { usleep(10_000) }
                var outcome = StopOutcome.terminated(Date().timeIntervalSince(start))
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    outcome = .killed
                }
                process.waitUntilExit()
                continuation.resume(returning: outcome)
            }
            thread.start()
        }
    }
}

/// A `livebridge run` the bench started: the process, where its control server listens, and how
/// long it took from the spawn to being ready.
struct RunningBridge: Sendable {
    let child: BenchChildProcess
    /// `127.0.0.1:<port>`.
    let address: String
    /// Seconds from the spawn to the "livebridge running" line (which follows restoring the state).
    let startup: Double
}

/// The child's stderr so far, shared with the pipe's reader.
private final class LogBuffer: Sendable {
    let data = Mutex(Data())
}
