import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport

/// A real SABnzbd (Debian `sabnzbdplus`) downloading from the project's own news server
/// (`tools/sabnzbd/nntpd.py`), both on 127.0.0.1 with free ports, in a temporary directory.
///
/// Installed by `scripts/deps/20-sabnzbd.sh` (`make deps`); a missing piece fails the test with
/// that hint rather than skipping it.
final class RealSABnzbd: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let apiKey = "0123456789abcdef0123456789abcdef"
    static let tools = Checkout.file("tools/sabnzbd").path

    let directory: TemporaryDirectory
    let port: UInt16
    let newsServer: ChildProcess
    let sabnzbd: ChildProcess
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var news: String { directory.file("news") }

    /// Starts the pair; `rate` is the news server's total bytes per second.
    init(rate: Int) async throws {
        for tool in ["sabnzbdplus", "par2", "unrar", "python3"] where Self.executable(tool) == nil {
            throw Failure(
                description: "\(tool) is not installed: run `make deps` (scripts/deps/20-sabnzbd.sh installs "
                    + "sabnzbdplus, par2 and unrar from bookworm-backports)")
        }
        directory = try TemporaryDirectory(prefix: "sabnzbd-it")
        let root = directory.path
        for folder in ["sab/admin", "sab/logs", "downloads/incomplete", "downloads/complete", "news", "nzb", "run"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let nntpPort = try await Self.freePort()
        let sabPort = try await Self.freePort()
        port = sabPort
        try Self.ini(root: root, sabPort: sabPort, nntpPort: nntpPort)
            .write(toFile: root + "/sab/sabnzbd.ini", atomically: true, encoding: .utf8)
        let python = Self.executable("python3") ?? "python3"
        let nice = Self.executable("nice")
        // Both run niced and are started off the task pool, so they never starve the rest of a
        // parallel test run (the fakes' handlers run on that small pool).
        newsServer = try await OffPool.run {
            try ChildProcess(
                nice ?? python,
                (nice == nil ? [] : ["-n", "10", python]) + [
                    Self.tools + "/nntpd.py", "serve", "--root", root + "/news", "--host", "127.0.0.1", "--port",
                    String(nntpPort), "--rate", String(rate), "--control", root + "/run/nntpd-control.json", "--stats",
                    root + "/run/nntpd-stats.json", "--log", root + "/run/nntpd.log",
                ])
        }
        // SABnzbd's shebang is Debian's /usr/bin/python3; run it as installed.
        sabnzbd = try ChildProcess(
            Self.executable("sabnzbdplus") ?? "sabnzbdplus",
            ["-f", root + "/sab/sabnzbd.ini", "-s", "127.0.0.1:\(sabPort)", "-b", "0"],
            environment: ["HOME": root])
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let answer = try? await call("version"), answer["version"]?.stringValue != nil { break }
            guard sabnzbd.isRunning, Date() < deadline else {
                await stop()
                throw Failure(
                    description: "SABnzbd did not answer mode=version within 60 s: \(sabnzbd.outputText.suffix(2000))")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    /// One API call; throws on a non-JSON answer.
    @discardableResult
    func call(_ mode: String, _ parameters: [(String, String)] = []) async throws -> JSONValue {
        var query = "mode=\(mode)&output=json&apikey=\(Self.apiKey)"
        for (name, value) in parameters {
            query += "&\(name)=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)
        }
        let response = try await HTTPClient.shared.execute(
            HTTPRequest(url: "\(baseURL)/api?\(query)", connectTimeout: 2, timeout: 10))
        return try JSONParser.parse(response.body)
    }

    /// Writes `bytes` of random data as job `name`, makes its NZB (every article missing when
    /// `missingAll`) and adds it; returns the `nzo_id`.
    func addJob(_ name: String, bytes: Int, missingAll: Bool = false) async throws -> String {
        let folder = news + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Random content (no two articles alike), made from one random block to stay quick.
        let file = folder + "/" + name + ".bin"
        try await OffPool.run {
            let block = (0..<65_536).map { _ in UInt8.random(in: 0...255) }
            var data = Data(capacity: bytes)
            var counter: UInt32 = 0
            while data.count < bytes {
                counter += 1
                var chunk = block
                withUnsafeBytes(of: counter) { for (index, byte) in $0.enumerated() { chunk[index] = byte } }
                data.append(contentsOf: chunk.prefix(bytes - data.count))
            }
            try data.write(to: URL(fileURLWithPath: file))
        }
        let nzb = directory.path + "/nzb/" + name + ".nzb"
        var arguments = [Self.tools + "/nntpd.py", "nzb", "--root", news, "--job", name, "--out", nzb]
        if missingAll { arguments += ["--missing", "*:all"] }
        let python = Self.executable("python3") ?? "python3"
        let nzbArguments = arguments
        _ = try await OffPool.run { try ChildProcess.run(python, nzbArguments) }
        let answer = try await call("addlocalfile", [("name", nzb)])
        guard let id = answer["nzo_ids"]?.arrayValue?.first?.stringValue else {
            throw Failure(description: "addlocalfile failed: \(answer)")
        }
        return id
    }

    /// Stops SABnzbd (API shutdown, then SIGTERM) and the news server, and removes the files.
    func stop() async {
        if sabnzbd.isRunning {
            let url = "\(baseURL)/api?mode=shutdown&output=json&apikey=\(Self.apiKey)"
            _ = try? await HTTPClient.shared.execute(HTTPRequest(url: url, connectTimeout: 1, timeout: 3))
            let deadline = Date().addingTimeInterval(10)
            while sabnzbd.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 50_000_000) }
        }
        // The news server keeps serving through SIGTERM; it holds nothing worth a clean exit.
        let (sabnzbd, newsServer, directory) = (self.sabnzbd, self.newsServer, self.directory)
        _ = try? await OffPool.run {
            sabnzbd.kill()
            newsServer.kill()
            directory.remove()
        }
    }

    /// The absolute path of `name` on PATH (or in /usr/bin), nil when missing.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func freePort() async throws -> UInt16 {
        try await OffPool.run {
            let server = try HTTPServer(address: "127.0.0.1:0") { _ in .text("") }
            defer { server.shutdown() }
            return server.port
        }
    }

    static func ini(root: String, sabPort: UInt16, nntpPort: UInt16) -> String {
        """
        __version__ = 19
        __encoding__ = utf-8
        [misc]
        host = 127.0.0.1
        port = \(sabPort)
        enable_https = 0
        auto_browser = 0
        check_new_rel = 0
        language = en
        api_key = \(apiKey)
        nzb_key = fedcba9876543210fedcba9876543210
        download_dir = \(root)/downloads/incomplete
        complete_dir = \(root)/downloads/complete
        admin_dir = \(root)/sab/admin
        log_dir = \(root)/sab/logs
        propagation_delay = 0
        pre_check = 0
        direct_unpack = 0
        history_retention_option = all
        [logging]
        log_level = 1
        [servers]
        [[nntpd]]
        name = nntpd
        displayname = nntpd
        host = 127.0.0.1
        port = \(nntpPort)
        timeout = 60
        username = ""
        password = ""
        connections = 4
        ssl = 0
        enable = 1
        optional = 0
        priority = 0
        retention = 0

        """
    }
}

/// Runs blocking work (process waits, thread joins, file generation) on a thread of its own,
/// never on the small cooperative pool that every test's async code shares.
enum OffPool {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.start()
        }
    }
}
