import Foundation
import Glibc

/// A helper process for the Home Assistant tests, started with `posix_spawn` (empty signal mask,
/// output to a log file) and reaped with `waitpid` on a thread of its own.
///
/// Not Foundation's `Process`: its pipe readability handlers and `waitUntilExit` have been seen
/// to crash the test process (libdispatch, CFRunLoop) when many short-lived children come and go
/// in parallel tests; a crash would take the whole suite down.
public final class HomeAssistantInstanceProcess: Sendable {
    /// The process id.
    public let pid: Int32
    /// Where stdout and stderr go.
    public let logPath: String

    private init(pid: Int32, logPath: String) {
        self.pid = pid
        self.logPath = logPath
    }

    /// What the process wrote so far.
    public var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts `executable` (absolute path, or a name found on PATH) with `arguments`.
    public static func spawn(_ executable: String, _ arguments: [String], log: String) throws
        -> HomeAssistantInstanceProcess
    {
        let path = try ChildProcess.resolve(executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard status == 0 else {
            throw HomeAssistantInstanceError("cannot start \(path): \(String(cString: strerror(status)))")
        }
        return HomeAssistantInstanceProcess(pid: pid, logPath: log)
    }

    /// Runs to completion (off the cooperative pool); throws with the output when it fails.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], log: String) async throws -> String {
        let process = try spawn(executable, arguments, log: log)
        let status = await process.wait()
        guard status == 0 else {
            throw HomeAssistantInstanceError(
                "\(executable) \(arguments.joined(separator: " ")) exited with \(status): \(process.output.suffix(3000))"
            )
        }
        return process.output
    }

    /// Waits for the exit and returns the exit status (128 + signal when killed).
    public func wait() async -> Int32 {
        let pid = self.pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                continuation.resume(returning: code)
            }
        }
    }

    /// Sends SIGTERM and waits for the exit.
    public func terminate() async {
        kill(pid, SIGTERM)
        _ = await wait()
    }
}
