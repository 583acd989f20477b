import Foundation
import Glibc
public import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A real Home Assistant Core 2024.3.3 for integration tests: started from the venv that
/// `scripts/deps/30-homeassistant.sh` installs, on a free loopback port, with its own config
/// directory, onboarded without a UI, with a long-lived access token.
///
/// The harness entities of `tools/homeassistant/configuration.yaml` exist (`timer.washer`,
/// `input_number.print_progress`, `input_boolean.printer_running`, …). `hass` runs under
/// `tools/homeassistant/run_hass.py`, which stops it when this process goes away, so a crashed
/// test run leaves nothing behind. Start < 1 min is enforced (typically 2–4 s).
public final class HomeAssistantInstance: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let url: String
    /// The long-lived access token (registered for redaction).
    public var token: String { tokenStorage.withLock { $0 } }
    /// The config directory, its `.storage` and `home-assistant.log`.
    public let directory: TemporaryDirectory
    private let port: Int
    private let venv: String
    private let tools: String
    private let process = Mutex<HomeAssistantInstanceProcess?>(nil)
    private let tokenStorage = Mutex("")

    /// The venv with `bin/hass`: `$LIVEBRIDGE_HA_VENV`, else `~/.cache/livebridge/ha-venv`.
    public static var venvPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["LIVEBRIDGE_HA_VENV"], !path.isEmpty { return path }
        return (environment["HOME"] ?? "/root") + "/.cache/livebridge/ha-venv"
    }

    /// `tools/homeassistant` of this repository.
    public static var toolsPath: String {
        Checkout.file("tools/homeassistant").path
    }

    private init(port: Int, directory: TemporaryDirectory, venv: String, tools: String) {
        self.port = port
        self.url = "http://127.0.0.1:\(port)"
        self.directory = directory
        self.venv = venv
        self.tools = tools
    }

    /// Starts a fresh, onboarded Home Assistant; fails with a message naming the deps script
    /// when the venv is missing. `packages` (file name → YAML) go to `config/packages/`, `secrets`
    /// to `secrets.yaml`.
    public static func start(
        packages: [String: String] = [:], secrets: [String: String] = [:], timeout: Double = 60
    ) async throws -> HomeAssistantInstance {
        let venv = venvPath
        guard FileManager.default.isExecutableFile(atPath: venv + "/bin/hass") else {
            throw HomeAssistantInstanceError(
                "Home Assistant is not installed at \(venv) (no bin/hass); run `bash scripts/deps/30-homeassistant.sh` "
                    + "(part of `make deps`) to install the pinned Home Assistant 2024.3.3 venv")
        }
        let directory = try TemporaryDirectory(prefix: "ha")
        let port = try freePort()
        let tools = toolsPath
        let config = directory.file("config")
        try FileManager.default.createDirectory(atPath: config + "/.storage", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: config + "/packages", withIntermediateDirectories: true)
        for (name, yaml) in packages {
            try yaml.write(toFile: config + "/packages/" + name, atomically: true, encoding: .utf8)
        }
        let secretsYAML = secrets.keys.sorted().map { key in
            "\(key): \"\(secrets[key]!.replacingOccurrences(of: "\"", with: "\\\""))\"\n"
        }.joined()
        try ("# test secrets\n" + secretsYAML).write(
            toFile: config + "/secrets.yaml", atomically: true, encoding: .utf8)
        let template = try String(contentsOfFile: tools + "/configuration.yaml", encoding: .utf8)
        try template.replacingOccurrences(of: "__HA_PORT__", with: String(port))
            .write(toFile: config + "/configuration.yaml", atomically: true, encoding: .utf8)
        // The core_config onboarding step would start config flows that need the internet.
        try #"{"version": 4, "minor_version": 1, "key": "onboarding", "data": {"done": ["core_config"]}}"#
            .write(toFile: config + "/.storage/onboarding", atomically: true, encoding: .utf8)
        let instance = HomeAssistantInstance(port: port, directory: directory, venv: venv, tools: tools)
        do {
            try await instance.launch(timeout: timeout)
            try await instance.harness(["onboard", "--base", instance.url, "--home", directory.path], timeout: timeout)
            let token = try String(contentsOfFile: directory.file("token"), encoding: .utf8)
                .trimmingWhitespace()
            Redactor.shared.register(token)
            instance.tokenStorage.withLock { $0 = token }
            try await instance.waitUntilRunning(timeout: timeout)
        } catch {
            await instance.remove()
            throw error
        }
        return instance
    }

    /// Starts `hass` and waits until its HTTP port answers.
    private func launch(timeout: Double) async throws {
        let child = try HomeAssistantInstanceProcess.spawn(
            venv + "/bin/python",
            [
                tools + "/run_hass.py", venv + "/bin/hass", "-c", directory.file("config"), "--skip-pip",
                "--log-no-color",
            ],
            log: directory.file("hass.out"))
        process.withLock { $0 = child }
        do {
            try await harness(
                [
                    "wait-http", "--base", url, "--pid", String(child.pid), "--log", directory.file("hass.out"),
                    "--timeout", String(Int(timeout)),
                ], timeout: timeout)
        } catch {
            process.withLock { $0 = nil }
            await child.terminate()
            throw HomeAssistantInstanceError("Home Assistant did not come up: \(error)\n\(child.output.suffix(3000))")
        }
    }

    /// Waits for `RUNNING` and the harness entities.
    private func waitUntilRunning(timeout: Double) async throws {
        try await harness(
            [
                "wait-running", "--base", url, "--token-file", directory.file("token"), "--timeout",
                String(Int(timeout)),
                "--entities", "timer.washer,input_number.print_progress,input_boolean.printer_running",
            ], timeout: timeout)
    }

    /// Runs `ha_harness.py` (its own process, waited off the cooperative pool).
    private func harness(_ arguments: [String], timeout: Double) async throws {
        try await HomeAssistantInstanceProcess.run(
            venv + "/bin/python", [tools + "/ha_harness.py"] + arguments, log: directory.file("harness.log"))
    }

    /// Stops Home Assistant gracefully (SIGTERM; it saves `.storage`), waiting for it to exit.
    public func stop() async {
        guard
            let child = process.withLock({ state -> HomeAssistantInstanceProcess? in
                defer { state = nil }
                return state
            })
        else { return }
        await child.terminate()
    }

    /// Stops and starts again on the same port with the same config and token.
    public func restart(timeout: Double = 60) async throws {
        await stop()
        try await launch(timeout: timeout)
        try await waitUntilRunning(timeout: timeout)
    }

    /// Stops Home Assistant and removes its directory.
    public func remove() async {
        await stop()
        directory.remove()
    }

    // MARK: - REST

    /// `POST /api/services/<domain>/<service>` with `data`; returns the changed states.
    @discardableResult
    public func call(_ domain: String, _ service: String, _ data: JSONValue) async throws -> JSONValue {
        try await post("/api/services/\(domain)/\(service)", data)
    }

    /// `POST /api/events/<type>` with `data`.
    public func fire(_ type: String, _ data: JSONValue) async throws {
        _ = try await post("/api/events/\(type)", data)
    }

    /// `GET /api/states/<entity>`.
    public func state(_ entity: String) async throws -> JSONValue {
        let response = try await HTTPClient.shared.execute(
            HTTPRequest(
                method: "GET", url: url + "/api/states/" + entity, headers: ["Authorization": "Bearer \(token)"]))
        guard response.status == 200 else { throw HomeAssistantInstanceError("GET \(entity): HTTP \(response.status)") }
        return try JSONParser.parse(response.body)
    }

    /// `GET /api/states`: every entity's state object.
    public func states() async throws -> [JSONValue] {
        let response = try await HTTPClient.shared.execute(
            HTTPRequest(method: "GET", url: url + "/api/states", headers: ["Authorization": "Bearer \(token)"]))
        guard response.status == 200 else {
            throw HomeAssistantInstanceError("GET /api/states: HTTP \(response.status)")
        }
        return try JSONParser.parse(response.body).arrayValue ?? []
    }

    /// Sets up the MQTT integration for the broker at `host:port` through the config flow (what
    /// the UI does): `POST /api/config/config_entries/flow` with handler `mqtt`, then the broker
    /// step. Returns the created entry (its `state` is `loaded` once connected).
    @discardableResult
    public func setUpMQTT(host: String, port: Int, username: String, password: String) async throws -> JSONValue {
        let form = try await post("/api/config/config_entries/flow", ["handler": "mqtt"])
        guard form["step_id"] == "broker", let flow = form["flow_id"]?.stringValue else {
            throw HomeAssistantInstanceError("the MQTT config flow did not ask for the broker: \(form)")
        }
        let created = try await post(
            "/api/config/config_entries/flow/\(flow)",
            [
                "broker": .string(host), "port": .int(Int64(port)), "username": .string(username),
                "password": .string(password),
            ])
        guard created["type"] == "create_entry", let entry = created["result"] else {
            throw HomeAssistantInstanceError("the MQTT config flow did not create an entry: \(created)")
        }
        return entry
    }

    /// `POST` `data` to `path` with the token; the parsed answer (HTTP 200 expected).
    public func post(_ path: String, _ data: JSONValue) async throws -> JSONValue {
        let response = try await HTTPClient.shared.execute(
            HTTPRequest(
                method: "POST", url: url + path,
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: JSONWriter.bytes(data)))
        guard response.status == 200 else {
            throw HomeAssistantInstanceError("POST \(path): HTTP \(response.status) \(response.text)")
        }
        return try JSONParser.parse(response.body)
    }

    // MARK: - Ports

    /// A port the kernel reports free on 127.0.0.1 right now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HomeAssistantInstanceError("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw HomeAssistantInstanceError("bind failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The test Home Assistant could not be started or used.
public struct HomeAssistantInstanceError: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
