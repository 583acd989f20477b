import Foundation
import LiveBridgeBambu
import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeTestSupport
import Testing

/// Printers that restart, refuse, impersonate, go quiet or send garbage (same serialized suite).
extension BambuBrokerTests {
    /// True for `.report` events of a full report (a pushall answer on P1).
    static func isFullReport(_ event: BambuAdapterEvent) -> Bool {
        if case .report(let report, _, _) = event { return report.messageKind == 0 }
        return false
    }

    /// Stops the printer's broker and waits until the adapter noticed and retried once in vain, so
    /// when the broker comes back the simulated firmware (which retries every 0.2 s) is subscribed
    /// before the adapter's next attempt — as on a real printer, whose broker is the printer.
    static func takeBrokerDown(_ printer: BenchPrinter) async throws {
        await printer.stopBroker()
        try await printer.connection("the disconnect") { status in
            if case .disconnected = status.state { return true }
            return false
        }
        try await printer.connection("a refused reconnect attempt") { status in
            if case .failed(let error) = status.state { return error.code == .connectionRefused }
            return false
        }
    }

    @Test("a broker restart mid-print: reconnect, pushall again, the same activity continues (no second create)")
    func brokerRestart() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await printer.connect()
            let steps = SimulatedPrintScript(model: .p1, name: "Bracket").steps()
            let half = steps.count / 2
            try await printer.play(steps.prefix(half))
            #expect(bench.fake.activity(printer.slug)?.state == "ongoing")

            try await Self.takeBrokerDown(printer)
            let down = try #require(bench.health(of: "p1s"))
            #expect(down.status == .degraded, "a printer that is away is degraded, not an error")
            #expect(down.lastError?.contains("unreachable") == true, "\(down.lastError ?? "")")
            #expect(down.details["connection"]?.hasPrefix("unreachable (retrying in") == true)
            let mark = printer.broker.logMark()
            try await printer.broker.start()
            try await printer.simulator.waitForBrokerConnections(2)
            let back = try await printer.connection(timeout: 20, "reconnected") {
                $0.state.isConnected && $0.connections == 2
            }
            #expect(back.connections == 2)
            try await printer.simulator.waitForPushallRequests(2)
            try await printer.events.waitForCount(2, "the second pushall answer handled", where: Self.isFullReport)
            #expect(bench.health(of: "p1s")?.status == .ok)
            #expect(printer.broker.logins(since: mark) == 2, "the firmware and the bridge logged in again")

            try await printer.play(steps.dropFirst(half))
            await bench.advance(by: 10)
            await printer.close()
            #expect(bench.creates(printer.slug) == 1, "the same activity, never created twice")
            #expect(bench.states(printer.slug) == Self.calibration + ["Printing", "Complete"])
            #expect(bench.states(printer.slug).contains("Printer offline") == false, "a short blip is not shown")
            #expect(printer.simulator.pushallRequests == 2, "pushall on each connect, never on a timer")
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test("a wrong access code: a clear /health error naming the key, one attempt per 30 s, no activity")
    func wrongAccessCode() async throws {
        try await BambuTestBench.run { bench in
            let wrongCode = "Wrong-Canary-9191"
            let printer = try await BenchPrinter(
                bench, name: "garage", serial: Self.p1Serial, model: .p1, accessCode: wrongCode)
            let mark = printer.broker.logMark()
            printer.startAdapter()
            let status = try await printer.connection("the refusal") { $0.state.error != nil }
            #expect(status.state.error?.code == .notAuthorized)
            #expect(status.retryDelay == 30)
            let health = try #require(bench.health(of: "garage"))
            #expect(health.status == .error)
            #expect(health.lastError?.contains("refused the access code") == true)
            #expect(health.lastError?.contains("sources[garage].accessCode") == true, "\(health.lastError ?? "")")

            // Observation window (a bound, not synchronisation): a 1 s retry would show 3+ attempts.
            try await Task.sleep(nanoseconds: 3_500_000_000)
            #expect(
                printer.broker.connectionAttempts(since: mark) == 1, "no hammering: \(printer.broker.log(since: mark))")
            #expect(printer.broker.logLines(since: mark, containing: "not authorised").count == 1)
            await printer.close()
            #expect(bench.logs.lines.filter { $0.contains("printer refused the access code") }.count == 1)
            #expect(printer.simulator.pushallRequests == 0)
            #expect(bench.fake.records.isEmpty)
            let everything = bench.logText + (health.lastError ?? "") + "\(health.details)"
            #expect(!everything.contains(wrongCode) && !everything.contains(BenchPrinter.accessCode))
        }
    }

    @Test("a wrong pinned fingerprint: refused in the TLS handshake, before the access code is sent")
    func wrongPin() async throws {
        try await BambuTestBench.run { bench in
            let wrong = try CertificateFingerprint(hex: String(repeating: "ab", count: 32))
            let printer = try await BenchPrinter(
                bench, name: "x1c", serial: Self.x1Serial, model: .x1, security: .pinnedCertificate(wrong))
            let presented = try CertificateFingerprint(
                pemCertificateFile: printer.broker.certificate.serverCertificatePath)
            let mark = printer.broker.logMark()
            printer.startAdapter()
            let status = try await printer.connection("the pin refusal") { $0.state.error != nil }
            #expect(status.state.error?.code == .certificatePinMismatch)
            #expect(status.state.error?.presentedFingerprint == presented)
            let brokerLog = try await withTestDeadline(10, "the broker logs the refused handshake") {
                while !printer.broker.log(since: mark).contains("alert bad certificate") {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                return printer.broker.log(since: mark)
            }
            await printer.close()
            #expect(
                printer.broker.connectPacketsReceived(since: mark) == 0, "no CONNECT, so no access code: \(brokerLog)")
            #expect(printer.broker.logins(since: mark) == 0)
            let health = try #require(bench.health(of: "x1c"))
            #expect(health.status == .error)
            #expect(health.lastError?.contains(presented.colonHex) == true)
            #expect(health.lastError?.contains("before any credentials were sent") == true)
            #expect(health.lastError?.contains("sources[x1c].fingerprint") == true)
            let line = try #require(bench.logs.lines.first { $0.contains("does not match the pinned fingerprint") })
            #expect(line.contains(presented.colonHex))
            #expect(!bench.logText.contains(BenchPrinter.accessCode))
        }
    }

    @Test(
        "trust on first use: the pin is stored; a changed certificate is refused with the new fingerprint and how to accept it"
    )
    func trustOnFirstUse() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(
                bench, name: "x1c", serial: Self.x1Serial, model: .x1, security: .trustOnFirstUse(identity: nil))
            let original = try CertificateFingerprint(
                pemCertificateFile: printer.broker.certificate.serverCertificatePath)
            try await printer.connect()
            let key = "pins/\(printer.slug).sha256"
            #expect(try bench.store.read(key).map { String(decoding: $0, as: UTF8.self) } == original.colonHex + "\n")
            let firstUse = try #require(bench.logs.lines.first { $0.contains("trusted on first use") })
            #expect(firstUse.contains(original.colonHex))
            #expect(firstUse.contains("sources[x1c].certificateSHA256"))

            await printer.stopBroker()
            try await printer.broker.restart(withNewCertificate: true)
            let mark = printer.broker.logMark()
            let replacement = try CertificateFingerprint(
                pemCertificateFile: printer.broker.certificate.serverCertificatePath)
            let status = try await printer.connection(timeout: 20, "the refusal of the new certificate") {
                $0.state.error?.code == .certificateChanged
            }
            #expect(status.state.error?.presentedFingerprint == replacement)
            #expect(printer.broker.connectPacketsReceived(since: mark) == 0)
            await printer.close()
            let health = try #require(bench.health(of: "x1c"))
            #expect(health.status == .error)
            #expect(health.lastError?.hasPrefix("printer certificate changed — firmware update?") == true)
            let line = try #require(
                bench.logs.lines.first { $0.contains("printer certificate changed since it was first trusted") })
            #expect(line.contains("new_fingerprint=\(replacement.colonHex)") || line.contains(replacement.colonHex))
            #expect(
                line.contains("set sources[x1c].certificateSHA256: \\\"\(replacement.colonHex)\\\"")
                    || line.contains("certificateSHA256: \"\(replacement.colonHex)\""), "\(line)")
            #expect(
                try bench.store.read(key).map { String(decoding: $0, as: UTF8.self) } == original.colonHex + "\n",
                "pin unchanged")
        }
    }

    @Test("malformed JSON on the report topic is ignored and counted; the print carries on")
    func malformedJSON() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await printer.connect()
            let steps = SimulatedPrintScript(model: .p1, name: "Tag").steps()
            try await printer.play(steps.prefix(14))
            try await printer.simulator.publishRaw(#"{"print": {"gcode_state": "RUNN"#)
            try await printer.simulator.publishRaw("<html><body>502 Bad Gateway</body></html>")
            try await printer.simulator.publishRaw(
                #"{"print":{"command":"push_status","msg":1,"mc_percent":"lots","wifi_signal":"-50dBm"}}"#)
            try await printer.events.waitForCount(2, "two malformed messages") { event in
                if case .malformed = event { return true }
                return false
            }
            try await printer.play(steps.dropFirst(14))
            await bench.advance(by: 10)
            await printer.close()
            #expect(bench.metrics.value("livebridge_adapter_parse_errors_total", ["source": "p1s"]) == 2)
            #expect(bench.metrics.value("livebridge_bambu_dropped_fields_total", ["source": "p1s"]) == 1)
            let health = try #require(bench.health(of: "p1s"))
            #expect(health.status == .ok, "a parse error does not make the source unhealthy")
            #expect(health.lastError?.contains("not a report") == true)
            #expect(bench.states(printer.slug) == Self.calibration + ["Printing", "Complete"])
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test("two printers in one process: two activities, each with its own story")
    func twoPrinters() async throws {
        try await BambuTestBench.run { bench in
            let x1 = try await BenchPrinter(bench, name: "x1c", serial: Self.x1Serial, model: .x1)
            let p1 = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await x1.connect()
            try await p1.connect()
            let x1Steps = SimulatedPrintScript(model: .x1, name: "Benchy").steps()
            let p1Steps = SimulatedPrintScript(model: .p1, name: "Clip", ending: .cancel(atPercent: 50)).steps()
            for index in 0..<max(x1Steps.count, p1Steps.count) {
                if index < x1Steps.count { try await x1.play(x1Steps[index], after: 30) }
                if index < p1Steps.count { try await p1.play(p1Steps[index], after: 30) }
            }
            await bench.advance(by: 10)
            await x1.close()
            await p1.close()
            #expect(bench.fake.activities.count == 2)
            #expect(bench.states(x1.slug) == Self.calibration + ["Printing", "Complete"])
            #expect(bench.states(p1.slug) == Self.calibration + ["Printing", "Cancelled"])
            #expect(bench.fake.activity(x1.slug)?.content["subtitle"] == "Benchy")
            #expect(bench.fake.activity(p1.slug)?.content["subtitle"] == "Clip")
            #expect(bench.creates(x1.slug) == 1 && bench.creates(p1.slug) == 1)
            #expect(bench.health(of: "x1c")?.status == .ok && bench.health(of: "p1s")?.status == .ok)
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test("a printer unreachable mid-print: 'Printer offline' after the grace period, back to printing on reconnect")
    func offlineMidPrint() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await printer.connect()
            let steps = SimulatedPrintScript(model: .p1, name: "Lid").steps()
            try await printer.play(steps.prefix(20))
            try await Self.takeBrokerDown(printer)
            await bench.advance(by: 30)
            #expect(!bench.states(printer.slug).contains("Printer offline"), "not within the grace period")
            await bench.advance(by: 35)
            // The observer hears of the tick after its updates reached the engine.
            try await printer.events.first("the offline update emitted") { event in
                if case .tick(let updates) = event {
                    return updates.contains { $0.content.state.value == "Printer offline" }
                }
                return false
            }
            await bench.deliver()
            let offline = try #require(bench.fake.activity(printer.slug))
            #expect(offline.state == "ongoing", "offline is not an end")
            #expect(offline.content["state"] == "Printer offline")
            #expect(offline.content["live_progress"] == nil, "the bar holds still while the printer is away")
            #expect(bench.health(of: "p1s")?.details["printer"]?.hasPrefix("offline") == true)

            try await printer.broker.start()
            try await printer.simulator.waitForBrokerConnections(2)
            try await printer.simulator.waitForPushallRequests(2, timeout: 20)
            try await printer.events.waitForCount(2, "the pushall answer after the outage", where: Self.isFullReport)
            await bench.deliver()
            try await printer.play(steps.dropFirst(20))
            await bench.advance(by: 10)
            await printer.close()
            #expect(
                bench.states(printer.slug)
                    == Self.calibration + ["Printing", "Printer offline", "Printing", "Complete"])
            #expect(bench.creates(printer.slug) == 1)
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test("connected but silent (wrong serial): /health says which key to check")
    func wrongSerial() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            var configuration = printer.configuration
            configuration.serial = "01P00A000000999"
            let adapter = BambuAdapter(configuration: configuration, observer: { printer.events.append($0) })
            let context = AdapterContext(
                name: "p1s", emit: { _ in }, logger: bench.logger, clock: bench.clock, store: bench.store,
                health: bench.health.reporter(kind: "source", name: "p1s", type: "bambu", clock: bench.clock),
                metrics: bench.metrics)
            let task = Task { try? await adapter.run(context) }
            try await printer.connection("connected") { $0.state.isConnected }
            try await printer.events.first("the pushall sent") { event in
                if case .pushall(sent: true) = event { return true }
                return false
            }
            await bench.clock.waitForSleepers(1)
            bench.clock.advance(by: 31)
            try await printer.events.first("a timer check") { event in
                if case .tick = event { return true }
                return false
            }
            task.cancel()
            await task.value
            await printer.close()
            let health = try #require(bench.health(of: "p1s"))
            #expect(health.status == .degraded)
            #expect(
                health.lastError?.contains("sources[p1s].serial (\"01P00A000000999\")") == true,
                "\(health.lastError ?? "")"
            )
        }
    }

    @Test("a TLS handshake failure is a clear /health message, not a silent printer")
    func tlsFailure() async throws {
        try await BambuTestBench.run { bench in
            let broker = try await HTTPBlockingWork.run {
                try MosquittoBroker(commonName: Self.p1Serial, plainListener: true)
            }
            bench.addCleanup { broker.remove() }
            try await broker.start()
            var configuration = BambuPrinterConfiguration(
                name: "p1s", host: "127.0.0.1", port: try #require(broker.plainPort), serial: Self.p1Serial,
                accessCode: BenchPrinter.accessCode, configPath: "sources[0]")
            configuration.insecure = true
            configuration.connectTimeout = 5
            let events = TestInbox<BambuAdapterEvent>()
            let adapter = BambuAdapter(configuration: configuration, observer: { events.append($0) })
            let context = AdapterContext(
                name: "p1s", emit: { _ in }, logger: bench.logger, clock: bench.clock, store: bench.store,
                health: bench.health.reporter(kind: "source", name: "p1s", type: "bambu", clock: bench.clock),
                metrics: bench.metrics)
            let task = Task { try? await adapter.run(context) }
            try await events.first("the handshake failure") { event in
                if case .connection(let status) = event { return status.state.error != nil }
                return false
            }
            task.cancel()
            await task.value
            let health = try #require(bench.health(of: "p1s"))
            #expect(health.status == .degraded || health.status == .error)
            let message = health.lastError ?? ""
            #expect(message.contains("TLS") || message.contains("handshake"), "\(message)")
            #expect(message.contains("127.0.0.1:\(try #require(broker.plainPort))"))
        }
    }
}

/// The bridge itself restarting, and `livebridge check`.
extension BambuBrokerTests {
    @Test("the bridge restarts while the print finishes: the remembered job is ended, not left on the phone")
    func bridgeRestart() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "p1s", serial: Self.p1Serial, model: .p1)
            try await printer.connect()
            let steps = SimulatedPrintScript(model: .p1, name: "Knob").steps()
            let finish = try #require(steps.firstIndex { $0.label == "finish" })
            try await printer.play(steps.prefix(finish - 2))
            #expect(try bench.store.readJSON("\(printer.slug).job.json")?["name"] == "Knob")
            await printer.stopAdapter()
            // While the bridge is down the printer finishes (nobody hears it).
            for step in steps[(finish - 2)...finish] { try await printer.simulator.play(step) }

            try await printer.connect()
            await bench.advance(by: 10)
            await printer.close()
            let activity = try #require(bench.fake.activity(printer.slug))
            #expect(activity.state == "ended")
            #expect(activity.content["state"] == "Complete" && activity.content["subtitle"] == "Knob")
            #expect(activity.creates == 1)
            #expect(try bench.store.read("\(printer.slug).job.json") == nil, "forgotten once ended")
            #expect(bench.logs.lines.contains { $0.contains("resuming the print job followed before the restart") })
            #expect(bench.fake.violations.isEmpty, "\(bench.fake.violations)")
        }
    }

    @Test("livebridge check: the probe reports the certificate to pin and the printer's state, or what is wrong")
    func probe() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(bench, name: "x1c", serial: Self.x1Serial, model: .x1)
            let fingerprint = try CertificateFingerprint(
                pemCertificateFile: printer.broker.certificate.serverCertificatePath)
            func context() -> AdapterContext {
                AdapterContext(
                    name: "x1c", emit: { _ in }, logger: bench.logger, clock: SystemClock(), store: MemoryStateStore(),
                    health: .detached(), metrics: bench.metrics)
            }
            var configuration = printer.configuration
            configuration.fingerprint = nil
            let good = await BambuAdapter(configuration: configuration).probe(context())
            #expect(good.ok, "\(good.detail)")
            #expect(good.detail.contains(fingerprint.colonHex), "shows the fingerprint to pin: \(good.detail)")
            #expect(good.detail.contains("reports IDLE"))
            configuration.accessCode = "Wrong-Canary-5555"
            let refused = await BambuAdapter(configuration: configuration).probe(context())
            #expect(!refused.ok)
            #expect(refused.detail.contains("accessCode"), "\(refused.detail)")
            #expect(!refused.detail.contains("Wrong-Canary-5555"))
            await printer.close()
        }
    }
}

/// Starting while the printer is off.
extension BambuBrokerTests {
    @Test("first connect while the printer is off: degraded and retried until it answers (insecure mode warns)")
    func printerOffAtStart() async throws {
        try await BambuTestBench.run { bench in
            let printer = try await BenchPrinter(
                bench, name: "a1", serial: Self.p1Serial, model: .a1, security: .insecure)
            await printer.stopBroker()
            printer.startAdapter()
            let refused = try await printer.connection("the first refusal") { $0.state.error != nil }
            #expect(refused.state.error?.code == .connectionRefused)
            let health = try #require(bench.health(of: "a1"))
            #expect(health.status == .degraded)
            #expect(health.lastError?.contains("unreachable") == true)
            try await printer.connection("a second attempt") { $0.connectAttempts >= 2 && $0.state.error != nil }
            try await printer.broker.start()
            try await printer.simulator.waitForBrokerConnections(2)
            try await printer.simulator.waitForPushallRequests(1, timeout: 20)
            try await printer.events.waitForCount(1, "the pushall answer") { event in
                if case .report(let report, _, _) = event { return report.isFull }
                return false
            }
            await printer.close()
            #expect(bench.health(of: "a1")?.status == .ok)
            #expect(bench.logs.lines.contains { $0.contains("WITHOUT checking its certificate") })
            #expect(bench.fake.records.isEmpty, "an idle printer: no activity")
        }
    }
}
