import Foundation

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
        let found = ExternalTool.locate(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"])
        guard let found else {
            throw ChildProcessError(
                message: "headless Chromium not found (looked for chromium, chromium-browser, google-chrome); "
                    + "install it with `make deps` (scripts/deps/40-browser.sh installs Debian's chromium package)")
        }
        executable = found
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

    private func run(_ arguments: [String], timeout: Double) async throws -> ExternalTool.Outcome {
        let directory = try TemporaryDirectory(prefix: "chromium")
        defer { directory.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        // At the lowest CPU priority: a browser starting up takes both cores of a small CI
        // machine for a moment, and the tests running beside it (timing-sensitive server tests
        // among them) must not starve.
        let outcome = try await ExternalTool.run(
            executable,
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-breakpad", "--mute-audio",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
                "--run-all-compositor-stages-before-draw", "--user-data-dir=\(directory.file("profile"))",
            ] + arguments,
            environment: environment, lowPriority: true, timeout: timeout)
        return outcome
    }
}
