import Foundation
import Synchronization

/// A `wss://` echo server for TLS tests: a small stdlib-only Python 3 program (embedded below,
/// written to a temp file at start) serving certificates from `TestCertificateAuthority` on
/// 127.0.0.1 with a free port.
///
/// It echoes text and binary frames (fragments frame by frame), answers pings with pongs and a
/// close with a close, and answers `pingCountRequest` with the number of pings received. Python because Swift on Linux has no in-process TLS server without extra
/// packages; the WebSocket logic under test is the client's, not this server's.
public final class WebSocketTLSEchoServer: Sendable {
    /// The bound port on 127.0.0.1.
    public let port: Int

    /// A text message the server answers with the number of pings it has received on that
    /// connection (as decimal text) instead of echoing it.
    public static let pingCountRequest = "__livebridge_ping_count__"
    private let process: Process
    private let directory: TemporaryDirectory
    private let output: OutputLog

    private final class OutputLog: Sendable {
        let text = Mutex("")
    }

    private init(port: Int, process: Process, directory: TemporaryDirectory, output: OutputLog) {
        self.port = port
        self.process = process
        self.directory = directory
        self.output = output
    }

    /// `wss://127.0.0.1:<port><path>`.
    public func url(path: String = "/") -> String {
        "wss://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)"
    }

    /// What the Python process printed (for failure messages).
    public var outputText: String { output.text.withLock { $0 } }

    /// Starts `python3` with the authority's server certificate and waits (≤ `timeout`) until
    /// it listens.
    public static func start(
        certificateAuthority: TestCertificateAuthority, timeout: Duration = .seconds(20)
    ) async throws -> WebSocketTLSEchoServer {
        let directory = try TemporaryDirectory(prefix: "wss-echo")
        let script = directory.file("wss_echo.py")
        try pythonSource.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChildProcess.resolve("python3"))
        process.arguments = [
            "-u", script, certificateAuthority.serverCertificatePath, certificateAuthority.serverKeyPath,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = OutputLog()
        let ready = WebSocketTestMailbox<Int>(label: "the Python wss:// echo server to listen")
        try process.run()
        PipeDrain.start(
            pipe,
            chunk: { chunk in
                let text = output.text.withLock { output -> String in
                    output += String(decoding: chunk, as: UTF8.self)
                    return output
                }
                for line in text.split(separator: "\n") where line.hasPrefix("PORT ") {
                    if let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) { ready.put(port) }
                }
            },
            end: { ready.finish(WebSocketTestServerError("the Python wss:// echo server exited before listening")) })
        do {
            let port = try await ready.next(timeout: timeout)
            return WebSocketTLSEchoServer(port: port, process: process, directory: directory, output: output)
        } catch {
            if process.isRunning { process.terminate() }
            directory.remove()
            throw WebSocketTestServerError("\(error); output: \(output.text.withLock { $0 })")
        }
    }

    /// Kills the process and removes its files.
    ///
    /// SIGKILL, not SIGTERM: a child spawned from a Swift Testing task inherits the pool
    /// thread's signal mask, where SIGTERM is blocked, so SIGTERM alone may never arrive.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        directory.remove()
    }

    /// The server program: stdlib only (ssl, socket, threading, hashlib, base64, struct).
    static let pythonSource = #"""
        import base64, hashlib, signal, socket, ssl, struct, sys, threading

        # Spawned from a test thread, we may inherit a mask that blocks SIGTERM: unblock all.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])

        GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

        class Peer:
            def __init__(self, conn):
                self.conn, self.buffer = conn, b""

            def read(self, count):
                while len(self.buffer) < count:
                    chunk = self.conn.recv(65536)
                    if not chunk:
                        raise EOFError
                    self.buffer += chunk
                data, self.buffer = self.buffer[:count], self.buffer[count:]
                return data

            def read_head(self):
                while b"\r\n\r\n" not in self.buffer:
                    chunk = self.conn.recv(4096)
                    if not chunk:
                        raise EOFError
                    self.buffer += chunk
                head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
                return head.decode("latin-1")

            def send_frame(self, fin, opcode, payload):
                first = (0x80 if fin else 0) | opcode
                n = len(payload)
                if n <= 125:
                    header = struct.pack("!BB", first, n)
                elif n <= 0xFFFF:
                    header = struct.pack("!BBH", first, 126, n)
                else:
                    header = struct.pack("!BBQ", first, 127, n)
                self.conn.sendall(header + payload)

        def serve(raw, context):
            try:
                conn = context.wrap_socket(raw, server_side=True)
            except (ssl.SSLError, OSError):
                raw.close()
                return
            peer = Peer(conn)
            try:
                head = peer.read_head()
                key = ""
                for line in head.split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "sec-websocket-key":
                        key = value.strip()
                accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
                conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                              "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
                pings = 0
                while True:
                    b0, b1 = peer.read(2)
                    fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
                    if n == 126:
                        n = struct.unpack("!H", peer.read(2))[0]
                    elif n == 127:
                        n = struct.unpack("!Q", peer.read(8))[0]
                    mask = peer.read(4) if b1 & 0x80 else b"\0\0\0\0"
                    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(peer.read(n)))
                    if opcode == 0x8:
                        peer.send_frame(True, 0x8, payload[:2])
                        break
                    if opcode == 0x9:
                        pings += 1
                        peer.send_frame(True, 0xA, payload)
                    elif opcode == 0x1 and fin and payload == b"__livebridge_ping_count__":
                        peer.send_frame(True, 0x1, str(pings).encode())
                    elif opcode in (0x0, 0x1, 0x2):
                        peer.send_frame(bool(fin), opcode, payload)
            except (EOFError, OSError, ValueError):
                pass
            finally:
                try:
                    conn.close()
                except OSError:
                    pass

        def main():
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", 0))
            listener.listen(16)
            print("PORT %d" % listener.getsockname()[1], flush=True)
            while True:
                raw, _ = listener.accept()
                threading.Thread(target=serve, args=(raw, context), daemon=True).start()

        main()
        """#
}
