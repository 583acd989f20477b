import Dispatch
import Foundation
import Synchronization

/// Headless Chromium for page tests: the DOM after the page's scripts ran, and screenshots.
///
/// Each call is one short-lived browser with its own profile directory, run with a virtual
/// time budget (`--virtual-time-budget`): Chromium fast-forwards timers while the page is idle
/// and waits for network fetches, so a page that polls shows a settled state without the test
/// sleeping. The process is awaited without blocking the task pool (the page's own server
/// handlers need it), and killed if it outlives `timeout`.
public struct HeadlessBrowser: Sendable {
    /// The browser binary.
    public let executable: String

    /// Finds Chromium on PATH; throws saying which `make deps` script installs it.
    public init() throws {
        let found = Self.locate(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"])
        guard let found else {
            throw ChildProcessError(
                message: "headless Chromium not found (looked for chromium, chromium-browser, google-chrome); "
                    + "install it with `make deps` (scripts/deps/40-browser.sh installs Debian's chromium package)")
        }
        executable = found
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

    /// The serialised DOM of `url` once `virtualTimeBudget` milliseconds of page time passed.
    public func dumpDOM(
        _ url: String, width: Int = 1280, height: Int = 900, virtualTimeBudget: Int = 1500, timeout: Double = 60
    ) async throws -> String {
        let result = try await run(
            ["--window-size=\(width),\(height)", "--virtual-time-budget=\(virtualTimeBudget)", "--dump-dom", url],
            timeout: timeout)
        guard result.status == 0, result.stdout.contains("<html") else {
            throw ChildProcessError(
                message:
                    "chromium --dump-dom \(url) exited with \(result.status) and no DOM: \(result.stderr.suffix(2000))")
        }
        return result.stdout
    }

    /// Saves a PNG of `url` (a `width`×`height` viewport) to `path`.
    public func screenshot(
        _ url: String, to path: String, width: Int = 1280, height: Int = 900, virtualTimeBudget: Int = 1500,
        timeout: Double = 60
    ) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let result = try await run(
            [
                "--window-size=\(width),\(height)", "--virtual-time-budget=\(virtualTimeBudget)",
                "--screenshot=\(path)", url,
            ],
            timeout: timeout)
        guard result.status == 0, FileManager.default.fileExists(atPath: path) else {
            throw ChildProcessError(
                message: "chromium --screenshot \(url) exited with \(result.status) and wrote no file: "
                    + String(result.stderr.suffix(2000)))
        }
    }

    private struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    private func run(_ arguments: [String], timeout: Double) async throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "chromium")
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
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-breakpad", "--mute-audio",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
                "--run-all-compositor-stages-before-draw", "--user-data-dir=\(directory.file("profile"))",
            ] + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        process.environment = environment

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
            // A failure bound only: a browser that hangs is killed (its helpers follow their parent).
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
            throw ChildProcessError(message: "chromium did not finish within \(Int(timeout)) s: \(stderr.suffix(2000))")
        }
        return Outcome(status: status, stdout: stdout, stderr: stderr)
    }
}
