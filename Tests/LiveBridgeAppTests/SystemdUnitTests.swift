import Foundation
import LiveBridgeTestSupport
import Testing

/// `examples/systemd/livebridge.service` is checked by systemd's own tools.
///
/// `systemd-analyze verify` insists that `ExecStart`'s binary exists and is executable; CI has
/// not installed LiveBridge to /usr/local/bin, so the test verifies a copy of the unit whose
/// `ExecStart` points at a stand-in executable it creates (everything else byte for byte).
@Suite("systemd unit example")
struct SystemdUnitTests {
    static var packageRoot: String { Checkout.root.path }

    static var unitPath: String { packageRoot + "/examples/systemd/livebridge.service" }
    static let installedBinary = "/usr/local/bin/livebridge"

    static func systemdAnalyze() throws -> String {
        guard let tool = ExternalTool.locate(["systemd-analyze"]) else {
            throw UnitTestError(
                description:
                    "systemd-analyze not found; install it with `make deps` (scripts/deps/40-browser.sh installs systemd)"
            )
        }
        return tool
    }

    /// Runs `tool` to completion; returns its exit status and everything it printed.
    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outcome = try await ExternalTool.run(tool, arguments, timeout: 30)
        return (outcome.status, outcome.stdout + outcome.stderr)
    }

    /// A copy of the unit in a temporary directory, `ExecStart` pointing at a stand-in binary.
    static func verifiableCopy(in directory: TemporaryDirectory) throws -> String {
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        #expect(unit.contains("ExecStart=\(installedBinary) run --config"))
        let stand = directory.file("livebridge")
        try "#!/bin/sh\nexit 0\n".write(toFile: stand, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stand)
        let copy = directory.file("livebridge.service")
        try unit.replacingOccurrences(of: installedBinary, with: stand).write(
            toFile: copy, atomically: true, encoding: .utf8)
        return copy
    }

    /// Directive → values (a directive may repeat).
    static func directives(_ unit: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for line in unit.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix("["), let equals = trimmed.firstIndex(of: "=") else {
                continue
            }
            result[String(trimmed[..<equals]), default: []].append(String(trimmed[trimmed.index(after: equals)...]))
        }
        return result
    }

    @Test("systemd-analyze verify accepts the unit without a single remark", .timeLimit(.minutes(1)))
    func verifies() async throws {
        let tool = try Self.systemdAnalyze()
        let directory = try TemporaryDirectory(prefix: "systemd")
        defer { directory.remove() }
        let copy = try Self.verifiableCopy(in: directory)
        // Exit status 0; remarks about our unit would name it (other units' noise is the host's).
        let (status, output) = try await Self.run(tool, ["verify", copy])
        #expect(status == 0, "systemd-analyze verify exited with \(status): \(output)")
        let remarks = output.split(separator: "\n").filter { $0.contains("livebridge") }
        #expect(remarks.isEmpty, "systemd-analyze verify: \(remarks.joined(separator: "\n"))")
    }

    @Test("the unit is hardened: dynamic user, state directory, read-only system, few address families")
    func hardened() async throws {
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let values = Self.directives(unit)
        let required: [String: String] = [
            "DynamicUser": "yes", "StateDirectory": "livebridge", "ProtectSystem": "strict", "ProtectHome": "yes",
            "PrivateTmp": "yes", "NoNewPrivileges": "yes", "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
            "Restart": "on-failure", "EnvironmentFile": "-/etc/livebridge/livebridge.env",
            "LoadCredential": "livebridge.json5:/etc/livebridge/livebridge.json5",
            "ExecStart": "\(Self.installedBinary) run --config ${CREDENTIALS_DIRECTORY}/livebridge.json5",
        ]
        for (directive, value) in required {
            #expect(values[directive] == [value], "\(directive)=\(values[directive] ?? [])")
        }
        // The config the unit loads is the one `make install` writes.
        let makefile = try String(contentsOfFile: Self.packageRoot + "/Makefile", encoding: .utf8)
        #expect(
            makefile.contains("CONFIG_DIR ?= /etc/livebridge") && makefile.contains("$(CONFIG_DIR)/livebridge.json5"))

        // systemd's own exposure score (0 = locked down, 10 = exposed); "OK" starts below 4.
        let tool = try Self.systemdAnalyze()
        let directory = try TemporaryDirectory(prefix: "systemd")
        defer { directory.remove() }
        let copy = try Self.verifiableCopy(in: directory)
        let (status, report) = try await Self.run(tool, ["security", "--offline=yes", "--no-pager", copy])
        #expect(status == 0, "systemd-analyze security exited with \(status): \(report.suffix(1000))")
        let line = try #require(report.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(score, "cannot read the score from: \(line)")
        #expect(exposure <= 2.0, "exposure \(exposure): \(line)")
    }
}

struct UnitTestError: Error, CustomStringConvertible {
    var description: String
}
