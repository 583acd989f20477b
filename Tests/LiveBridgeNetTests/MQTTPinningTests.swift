import Foundation
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

@Suite("MQTT certificate pinning and trust on first use", .timeLimit(.minutes(1)))
struct MQTTPinningTests {
    static let serial = "01P00A000000001"
    static let password = "Pin-Canary-7781"

    @Test(
        "the right fingerprint connects, however it is spelled",
        arguments: ["colonUpper", "plainLower", "opensslOutput"])
    func rightFingerprintConnects(spelling: String) async throws {
        let broker = try MosquittoBroker(commonName: Self.serial, users: ["bblp": Self.password])
        defer { broker.remove() }
        try await broker.start()
        let actual = try brokerFingerprint(of: broker)
        let text =
            switch spelling {
            case "colonUpper": actual.colonHex
            case "plainLower": broker.certificate.serverCertificateSHA256
            default: "sha256 Fingerprint=" + actual.colonHex.lowercased()
            }
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try CertificateFingerprint(hex: text)), password: Self.password))
        try session.start()
        let status = try await waitForMQTTStatus(session, "connected with the pin") { $0.state == .connected }
        #expect(status.peerCertificate == actual)
        #expect(broker.logins(clientID: session.configuration.clientID) == 1)
        await session.shutdown()
    }

    @Test("a wrong fingerprint is refused in the TLS handshake: the broker never receives a CONNECT")
    func wrongFingerprintNeverSendsConnect() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial, users: ["bblp": Self.password])
        defer { broker.remove() }
        try await broker.start()
        let logs = InMemoryLogHandler()
        let wrong = try CertificateFingerprint(hex: String(repeating: "ab", count: 32))
        let mark = broker.logMark()
        let session = try MQTTSession(
            configuration: mqttConfiguration(broker, security: .pinnedCertificate(wrong), password: Self.password),
            logger: mqttRecordingLogger(logs))
        try session.start()
        let status = try await waitForMQTTStatus(session, "refused by the pin") { $0.state.error != nil }
        let error = try #require(status.state.error)
        let presented = try brokerFingerprint(of: broker)
        #expect(error.code == .certificatePinMismatch)
        #expect(error.presentedFingerprint == presented)
        #expect(error.message.contains(presented.colonHex))
        #expect(error.message.contains("set certificateSHA256: \"\(presented.colonHex)\""))
        #expect(error.message.contains("before any credentials were sent"))
        #expect(status.retryDelay == 30, "a pin mismatch waits the maximum delay")

        // The broker saw the TCP connection and our TLS alert, and never processed a CONNECT.
        let brokerLog = try await withTestDeadline(5, "the broker logs the refused handshake") {
            while !broker.log(since: mark).contains("alert bad certificate") {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            return broker.log(since: mark)
        }
        #expect(broker.connectionAttempts(since: mark) == 1, "\(brokerLog)")
        #expect(broker.connectPacketsReceived(since: mark) == 0, "\(brokerLog)")
        #expect(broker.logins(since: mark) == 0)
        #expect(!brokerLog.contains(session.configuration.clientID), "the client id travels only in CONNECT")
        await session.shutdown()
        #expect(!logs.lines.joined(separator: "\n").contains(Self.password))
    }

    @Test("a wrong fingerprint: a recording TLS server receives no application byte; the right pin delivers CONNECT")
    func wrongFingerprintRecorderProof() async throws {
        let authority = try TestCertificateAuthority(commonName: Self.serial, prefix: "recorder-tls")
        defer { authority.remove() }
        let recorder = try await MQTTTLSRecorder.start(authority)
        defer { recorder.stop() }
        let rightPin = try CertificateFingerprint(pemCertificateFile: authority.serverCertificatePath)
        let wrongPin = try CertificateFingerprint(hex: String(repeating: "cd", count: 32))
        func configuration(_ pin: CertificateFingerprint) -> MQTTSessionConfiguration {
            MQTTSessionConfiguration(
                host: "127.0.0.1", port: recorder.port,
                clientID: MQTTSessionConfiguration.uniqueClientID(prefix: "lb-recorder"), username: "bblp",
                password: Self.password, security: .pinnedCertificate(pin), connectTimeout: 5)
        }

        let refused = try MQTTSession(configuration: configuration(wrongPin))
        try refused.start()
        let status = try await waitForMQTTStatus(refused, "pin refusal") { $0.state.error != nil }
        #expect(status.state.error?.code == .certificatePinMismatch)
        let first = try await recorder.connections.first("the recorder's report of the refused connection") { _ in true
        }
        await refused.shutdown()
        #expect(first.handshake.hasPrefix("failed"), "\(first.handshake)")
        #expect(first.handshake.lowercased().contains("bad certificate") || first.handshake.contains("BAD_CERTIFICATE"))
        #expect(first.received.isEmpty, "no application data may reach a server with the wrong certificate")
        #expect(recorder.connections.items.count == 1)

        // Control: the same recorder does see CONNECT — and the password inside it — with the right pin.
        let accepted = try MQTTSession(configuration: configuration(rightPin))
        try accepted.start()
        let second = try await recorder.connections.first("the recorder's report of the pinned connection") {
            $0.handshake == "ok"
        }
        await accepted.shutdown()
        #expect(second.version == "TLSv1.3", "the broker tests cover TLS 1.2; this one covers TLS 1.3")
        #expect(second.received.first == 0x10, "an MQTT CONNECT packet")
        #expect(second.received.containsSequence(Array(Self.password.utf8)))
        #expect(!first.received.containsSequence(Array(Self.password.utf8)))
    }

    @Test("TOFU: the first connection stores the fingerprint; a changed certificate is refused with the new one")
    func trustOnFirstUse() async throws {
        let broker = try MosquittoBroker(commonName: Self.serial, users: ["bblp": Self.password])
        defer { broker.remove() }
        try await broker.start()
        let stateDirectory = try TemporaryDirectory(prefix: "tofu-state")
        defer { stateDirectory.remove() }
        let store = FileStateStore(directory: stateDirectory.path)
        let identity = "bambu-\(Self.serial.lowercased())"
        let pinFile = stateDirectory.path + "/pins/\(identity).sha256"
        let original = try brokerFingerprint(of: broker)

        let hook = MQTTHookRecorder()
        let session = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .trustOnFirstUse(identity: identity), password: Self.password),
            pinStore: store, onConnect: hook.hook)
        try session.start()
        try await hook.waitForRun(1)
        #expect(try String(contentsOfFile: pinFile, encoding: .utf8) == original.colonHex + "\n")
        #expect(try TrustOnFirstUsePinStore(store: store, identity: identity).pinned() == original)

        // Same certificate after a restart: reconnects under the stored pin.
        try await broker.restart()
        try await hook.waitForRun(2, timeout: 15)

        // A new certificate (firmware update, or an impostor): refused before CONNECT, new fingerprint shown.
        try await broker.restart(withNewCertificate: true)
        let mark = broker.logMark()
        let status = try await waitForMQTTStatus(session, timeout: 15, "refusal of the changed certificate") {
            $0.state.error?.code == .certificateChanged
        }
        let replacement = try brokerFingerprint(of: broker)
        #expect(replacement != original)
        let error = try #require(status.state.error)
        #expect(error.presentedFingerprint == replacement)
        #expect(error.message.contains("pinned \(original.colonHex)"))
        #expect(error.message.contains("set certificateSHA256: \"\(replacement.colonHex)\""))
        #expect(error.message.contains("delete \(pinFile)"))
        #expect(status.retryDelay == 30)
        #expect(broker.connectPacketsReceived(since: mark) == 0)
        #expect(try String(contentsOfFile: pinFile, encoding: .utf8) == original.colonHex + "\n", "pin unchanged")
        await session.shutdown()

        // Following the message's advice works: pinning the shown fingerprint connects.
        let repinned = try MQTTSession(
            configuration: mqttConfiguration(
                broker, security: .pinnedCertificate(try #require(error.presentedFingerprint)), password: Self.password)
        )
        try repinned.start()
        try await waitForMQTTStatus(repinned, "connected with the new pin") { $0.state == .connected }
        await repinned.shutdown()
    }
}

extension Array where Element == UInt8 {
    /// True when `needle` occurs contiguously.
    fileprivate func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return needle.isEmpty }
        for start in 0...(count - needle.count) where self[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// A stdlib-only Python TLS server that records, per connection, whether the handshake succeeded and
/// every application byte it received (up to one complete MQTT packet), as JSON lines on stdout.
final class MQTTTLSRecorder: Sendable {
    struct Connection: Sendable {
        var handshake: String
        var version: String?
        var received: [UInt8]
    }

    let port: Int
    let connections = TestInbox<Connection>()
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    private init(port: Int, process: ChildProcess, directory: TemporaryDirectory) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static let script = #"""
        import json, socket, ssl, sys
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        print("PORT %d" % server.getsockname()[1], flush=True)

        def complete(data):
            # One MQTT packet: fixed header byte, variable-length remaining length, body.
            if len(data) < 2:
                return False
            length, shift, index = 0, 0, 1
            while index < len(data):
                byte = data[index]
                length |= (byte & 0x7F) << shift
                index += 1
                if byte & 0x80 == 0:
                    return len(data) >= index + length
                shift += 7
            return False

        while True:
            raw, _ = server.accept()
            raw.settimeout(5)
            record = {"handshake": "ok", "received": ""}
            try:
                tls = context.wrap_socket(raw, server_side=True)
            except Exception as error:
                record["handshake"] = "failed: %s" % error
                print(json.dumps(record), flush=True)
                raw.close()
                continue
            record["version"] = tls.version()
            data = b""
            try:
                while not complete(data):
                    chunk = tls.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except Exception as error:
                record["error"] = str(error)
            record["received"] = data.hex()
            print(json.dumps(record), flush=True)
            tls.close()
        """#

    /// Starts the server with the authority's server certificate and waits for its port.
    static func start(_ authority: TestCertificateAuthority) async throws -> MQTTTLSRecorder {
        let directory = try TemporaryDirectory(prefix: "tls-recorder")
        let path = directory.file("recorder.py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            "python3", ["-u", path, authority.serverCertificatePath, authority.serverKeyPath])
        let port = try await withTestDeadline(10, "the recorder's PORT line: \(process.outputText)") {
            while true {
                if let line = process.outputText.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                    let port = Int(line.dropFirst(5))
                {
                    return port
                }
                guard process.isRunning else { throw TestTimeout(process.outputText) }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        let recorder = MQTTTLSRecorder(port: port, process: process, directory: directory)
        recorder.follow()
        return recorder
    }

    /// Parses the JSON lines as they appear into `connections`.
    private func follow() {
        Task { [self] in
            var seen = 0
            while process.isRunning || seen < lines().count {
                let all = lines()
                while seen < all.count {
                    if let connection = Self.parse(all[seen]) { connections.append(connection) }
                    seen += 1
                }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
        }
    }

    private func lines() -> [Substring] {
        process.outputText.split(separator: "\n").filter { $0.hasPrefix("{") }
    }

    private static func parse(_ line: Substring) -> Connection? {
        guard let json = try? JSONParser.parse(String(line)), case .object(let fields) = json,
            case .string(let handshake)? = fields["handshake"], case .string(let hex)? = fields["received"]
        else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        var version: String?
        if case .string(let negotiated)? = fields["version"] { version = negotiated }
        return Connection(handshake: handshake, version: version, received: bytes)
    }

    /// Kills the server (SIGKILL: a child of a pool thread has SIGTERM blocked) and removes its files.
    func stop() {
        process.kill()
        directory.remove()
    }
}
