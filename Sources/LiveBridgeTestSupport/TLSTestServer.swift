import Foundation
import Synchronization

/// An HTTPS server for client TLS tests: Python 3's stdlib `http.server` behind `ssl`, serving
/// the certificate of a `TestCertificateAuthority` on 127.0.0.1 and a system-chosen port.
///
/// Every `GET` is answered `200` with the body `hello over tls`. The script is embedded here
/// and written to the CA's temp directory at start, since test targets carry no resources.
public final class TLSTestServer: Sendable {
    /// The port the server listens on.
    public let port: UInt16
    /// The body every request receives.
    public static let responseBody = "hello over tls"

    private let process: Process
    private let output: TLSTestServerOutput

    private init(port: UInt16, process: Process, output: TLSTestServerOutput) {
        self.port = port
        self.process = process
        self.output = output
    }

    /// `https://127.0.0.1:<port>/`.
    public var url: String { "https://127.0.0.1:\(port)/" }

    /// Starts the server with `certificates`' server certificate; waits (≤ `timeout`) until it
    /// listens.
    public static func start(certificates: TestCertificateAuthority, timeout: Double = 15) async throws -> TLSTestServer
    {
        let script = certificates.directory.file("tls_test_server.py")
        try pythonSource.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChildProcess.resolve("python3"))
        process.arguments = ["-u", script, certificates.serverCertificatePath, certificates.serverKeyPath]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()

        let reader = pipe.fileHandleForReading
        let output = TLSTestServerOutput()
        // Read the "PORT n" line on a thread of our own; the process is killed if it takes too long.
        let watchdog = Task.detached {
            try await Task.sleep(for: .seconds(timeout))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { watchdog.cancel() }
        let port: UInt16 = try await HTTPBlockingWork.run {
            var text = ""
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty {
                    throw HTTPTestSocketError("python TLS server exited before listening: \(text)", withErrno: false)
                }
                text += String(decoding: chunk, as: UTF8.self)
                output.text.withLock { $0 = text }
                for line in text.split(separator: "\n") where line.hasPrefix("PORT ") {
                    if let port = UInt16(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) { return port }
                }
            }
        }
        // Keep draining so the child never blocks on a full pipe.
        PipeDrain.start(pipe) { chunk in output.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) } }
        return TLSTestServer(port: port, process: process, output: output)
    }

    /// What the server printed (for failure messages).
    public var outputText: String { output.text.withLock { $0 } }

    /// Stops the server and waits for it to exit.
    ///
    /// SIGKILL, not SIGTERM: a child started from a pool thread inherits libdispatch's blocked
    /// signal mask, so SIGTERM would stay pending forever and `waitUntilExit` would hang.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    static let pythonSource = """
        import http.server
        import signal
        import ssl
        import sys

        # Started from a libdispatch thread, this process inherits a mask blocking SIGTERM.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"hello over tls"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass

        server = Server(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print("PORT %d" % server.server_address[1], flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        """
}

/// What the Python server printed so far.
private final class TLSTestServerOutput: Sendable {
    let text = Mutex("")
}
