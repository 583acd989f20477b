import Foundation
import Glibc
import Synchronization

/// A real mosquitto broker for tests: TLS listener on 127.0.0.1 with a test certificate
/// (`CN=<commonName>`, like a Bambu printer's serial), password authentication, no anonymous
/// access, and a log file the test can read to prove what the broker saw.
///
/// Start, stop and restart on the same port (a printer reboot); restart with a new certificate
/// (a firmware update regenerating it). Readiness is the broker's own "running" log line, which
/// it writes after its listeners are bound — no fixed sleeps.
public final class MosquittoBroker: Sendable {
    /// The broker executable (Debian's path).
    public static let executable = "/usr/sbin/mosquitto"

    /// Files: config, password file, log.
    public let directory: TemporaryDirectory
    /// The certificate subject CN (a printer serial).
    public let commonName: String
    /// User names and passwords accepted by the broker.
    public let users: [String: String]
    /// The broker's log file (every log type, connection messages on).
    public let logPath: String

    private struct State {
        var port: Int
        var plainPort: Int?
        var certificate: TestCertificateAuthority
        var retiredCertificates: [TestCertificateAuthority] = []
        var process: ChildProcess?
    }

    private let state: Mutex<State>

    /// Prepares certificates, the password file and free ports; does not start the broker.
    ///
    /// - Parameters:
    ///   - commonName: the server certificate's CN (SAN 127.0.0.1 and localhost are added).
    ///   - users: accounts in the password file (made with `mosquitto_passwd -b -c`).
    ///   - plainListener: also listen without TLS on a second port (`plainPort`).
    public init(
        commonName: String = "01P00A000000001", users: [String: String] = ["bblp": "12345678"],
        plainListener: Bool = false
    ) throws {
        precondition(!users.isEmpty, "a broker without users accepts nobody (anonymous access is off)")
        directory = try TemporaryDirectory(prefix: "mosquitto")
        self.commonName = commonName
        self.users = users
        logPath = directory.file("broker.log")
        let certificate = try TestCertificateAuthority(commonName: commonName, prefix: "mosquitto-tls")
        let ports = try Self.freePorts(plainListener ? 2 : 1)
        state = Mutex(State(port: ports[0], plainPort: plainListener ? ports[1] : nil, certificate: certificate))
        let passwordFile = directory.file("passwd")
        var first = true
        for (name, password) in users.sorted(by: { $0.key < $1.key }) {
            try ChildProcess.run("mosquitto_passwd", (first ? ["-c"] : []) + ["-b", passwordFile, name, password])
            first = false
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    /// The TLS listener's port (stable across restarts).
    public var port: Int { state.withLock { $0.port } }

    /// The plain listener's port, when requested.
    public var plainPort: Int? { state.withLock { $0.plainPort } }

    /// The certificate material currently served (changes with `restart(withNewCertificate: true)`).
    public var certificate: TestCertificateAuthority { state.withLock { $0.certificate } }

    /// True while the broker process runs.
    public var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// The broker's process id while it runs (to freeze it with SIGSTOP or kill it hard).
    public var pid: Int32? { state.withLock { $0.process.map(\.pid) } }

    /// Starts the broker and returns once it accepts connections (bounded by `timeout` seconds).
    ///
    /// On the very first start a port taken meanwhile by someone else is replaced by a new one.
    public func start(timeout: Double = 10) async throws {
        var attempts = 0
        while true {
            attempts += 1
            do {
                try await launch(timeout: timeout)
                return
            } catch let error as MosquittoBrokerError where error.portInUse && attempts < 3 && !hasStartedBefore {
                let ports = try Self.freePorts(plainPort == nil ? 1 : 2)
                state.withLock { state in
                    state.port = ports[0]
                    if state.plainPort != nil { state.plainPort = ports[1] }
                }
            }
        }
    }

    /// Stops the broker (SIGTERM, SIGKILL after 5 s) and waits for it to exit; clients see the
    /// connection drop.
    public func stop() {
        let process = state.withLock { state -> ChildProcess? in
            defer { state.process = nil }
            return state.process
        }
        guard let process, process.isRunning else { return }
        _ = Glibc.kill(process.pid, SIGTERM)
        if !Self.waitForExit(process, timeout: 5) {
            _ = Glibc.kill(process.pid, SIGKILL)
            _ = Self.waitForExit(process, timeout: 5)
        }
    }

    /// Stops and starts again on the same port; optionally with a freshly generated certificate
    /// (same CN, different key, so a different fingerprint).
    public func restart(withNewCertificate: Bool = false, timeout: Double = 10) async throws {
        stop()
        if withNewCertificate {
            let fresh = try TestCertificateAuthority(commonName: commonName, prefix: "mosquitto-tls")
            state.withLock { state in
                state.retiredCertificates.append(state.certificate)
                state.certificate = fresh
            }
        }
        try await launch(timeout: timeout)
    }

    /// Stops the broker and deletes every file it used.
    public func remove() {
        stop()
        let certificates = state.withLock { [$0.certificate] + $0.retiredCertificates }
        for certificate in certificates { certificate.remove() }
        directory.remove()
    }

    // MARK: - Log

    /// The whole broker log.
    public var logText: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// A position in the log (its current length) for `log(since:)`.
    public func logMark() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int) ?? 0
    }

    /// The log written after `mark`.
    public func log(since mark: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: logPath) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(mark))
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Log lines after `mark` containing `text`.
    public func logLines(since mark: Int = 0, containing text: String) -> [String] {
        log(since: mark).split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// TCP connections accepted on the TLS listener after `mark`.
    ///
    /// mosquitto logs "New connection from … on port P." — except when the TLS handshake already
    /// fails inside `accept`, which it logs only as "Client connection from … failed: <OpenSSL error>".
    public func connectionAttempts(since mark: Int = 0) -> Int {
        let lines = log(since: mark).split(separator: "\n")
        let accepted = lines.filter { $0.contains("New connection from") && $0.contains("on port \(port).") }
        let failedInAccept = lines.filter { $0.contains("Client connection from") && $0.contains(" failed: ") }
        return accepted.count + failedInAccept.count
    }

    /// MQTT CONNECT packets the broker processed after `mark` (each is answered with a CONNACK,
    /// accepted or refused): zero proves no CONNECT — and so no password — reached the broker.
    public func connectPacketsReceived(since mark: Int = 0) -> Int {
        logLines(since: mark, containing: "Sending CONNACK").count
    }

    /// Successful logins after `mark` ("New client connected from … as <clientID> … u'<user>'").
    public func logins(since mark: Int = 0, clientID: String? = nil) -> Int {
        logLines(since: mark, containing: "New client connected from").filter { line in
            clientID.map { line.contains(" as \($0) ") } ?? true
        }.count
    }

    // MARK: - Internals

    private var hasStartedBefore: Bool {
        logText.contains(" running")
    }

    private func writeConfiguration() throws -> String {
        let (port, plainPort, certificate) = state.withLock { ($0.port, $0.plainPort, $0.certificate) }
        var lines = [
            "# Written by LiveBridgeTestSupport.MosquittoBroker",
            "per_listener_settings false",
            "persistence false",
            // Stay root when started as root (otherwise it drops to user mosquitto, which cannot
            // read our temp files); ignored when not root.
            "user root",
            "log_dest file \(logPath)",
            "log_type all",
            "connection_messages true",
            "allow_anonymous false",
            "password_file \(directory.file("passwd"))",
            "",
            "listener \(port) 127.0.0.1",
            "protocol mqtt",
            "cafile \(certificate.caCertificatePath)",
            "certfile \(certificate.serverCertificatePath)",
            "keyfile \(certificate.serverKeyPath)",
            "tls_version tlsv1.2",
            "require_certificate false",
        ]
        if let plainPort {
            lines += ["", "listener \(plainPort) 127.0.0.1", "protocol mqtt"]
        }
        let path = directory.file("mosquitto.conf")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func launch(timeout: Double) async throws {
        let configuration = try writeConfiguration()
        let mark = logMark()
        let process = try await Self.spawnWithSignalsUnblocked(Self.executable, ["-c", configuration])
        state.withLock { $0.process = process }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if log(since: mark).contains(" running") { return }
            if !process.isRunning {
                state.withLock { $0.process = nil }
                let output = process.outputText + log(since: mark)
                throw MosquittoBrokerError(
                    message: "mosquitto exited during start-up: \(output)",
                    portInUse: output.contains("Address already in use"))
            }
            if Date() > deadline {
                stop()
                throw MosquittoBrokerError(
                    message: "mosquitto did not report \"running\" within \(timeout) s: \(log(since: mark))",
                    portInUse: false)
            }
            try await Task.sleep(nanoseconds: 5_000_000)  // poll interval of a bounded readiness check
        }
    }

    /// Starts `executable` from a fresh thread whose signal mask is empty.
    ///
    /// Foundation's `Process` hands the spawning thread's signal mask to the child, and Swift's
    /// pool threads block SIGTERM; mosquitto keeps that mask while it waits for events, so a
    /// broker started from a task would never see SIGTERM and could only be killed.
    static func spawnWithSignalsUnblocked(_ executable: String, _ arguments: [String]) async throws -> ChildProcess {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                var empty = sigset_t()
                sigemptyset(&empty)
                pthread_sigmask(SIG_SETMASK, &empty, nil)
                do {
                    continuation.resume(returning: try ChildProcess(executable, arguments))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }

    /// Polls until `process` exited or `timeout` seconds passed; true when it exited.
    private static func waitForExit(_ process: ChildProcess, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// Ports the kernel reports free on 127.0.0.1 right now (bound to 0 and released).
    static func freePorts(_ count: Int) throws -> [Int] {
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw MosquittoBrokerError(message: "socket() failed", portInUse: false) }
            descriptors.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
                }
            }
            guard bound else { throw MosquittoBrokerError(message: "cannot bind 127.0.0.1:0", portInUse: false) }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
