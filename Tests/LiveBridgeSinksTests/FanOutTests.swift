import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSinks
import LiveBridgeTestSupport
import Testing

@Suite("Fan-out: one engine, two push services")
struct FanOutTests {
    @Test("PushWard down: the state-object service keeps receiving; PushWard catches up when back")
    func oneSinkDownNeverBlocksTheOther() async throws {
        let clock = VirtualClock()
        let pushwardKey = "hlk_fanout0123456789abcdefghijklmnopq"
        let pushward = try FakePushWardServer(apiKey: pushwardKey, clock: clock)
        defer { pushward.shutdown() }
        let harness = try StateObjectHarness(clock: clock)
        defer { harness.fake.shutdown() }
        let stateObject = harness.fake

        let metrics = MetricsRegistry()
        let health = HealthRegistry()
        let sinks: [any Sink] = [
            PushWardSink(
                configuration: .init(name: "phone", baseURL: pushward.baseURL, apiKey: pushwardKey, timeout: 30),
                transport: HTTPClient.shared, clock: clock),
            harness.sink(),
        ]
        var bindings: [ActivityEngine.Binding] = []
        for sink in sinks {
            let queue = DeliveryQueue(
                sink: sink, clock: clock, logger: .disabled, metrics: metrics,
                health: health.reporter(kind: "sink", name: sink.name, type: sink.type, clock: clock), jitterSeed: 7)
            bindings.append(
                ActivityEngine.Binding(
                    sink: sink, queue: queue,
                    ledger: BudgetLedger(sink: sink.name, limit: nil, store: MemoryStateStore())))
        }
        let engine = ActivityEngine(
            bindings: bindings, settings: EconomySettings(), clock: clock, store: MemoryStateStore(), logger: .disabled,
            metrics: metrics)
        await engine.start()

        pushward.goDown()
        let start = clock.now
        let comeBackAt = 600.0
        var stateObjectCallsWhileDown = 0
        for t in stride(from: 0.0, through: 1200, by: 10) {
            clock.advance(to: start + t)
            if t == comeBackAt {
                stateObjectCallsWhileDown = stateObject.records.count
                #expect(pushward.records.isEmpty, "PushWard was down")
                try pushward.comeBack()
            }
            let phase: ActivityPhase = t < 1200 ? .active : .ended(.success)
            await engine.emit(StateObjectHarness.download(t, start: start, phase: phase))
            await engine.runDue()
        }
        // Let the two-phase end and any retries play out.
        for _ in 0..<120 {
            clock.advance(by: 5)
            await engine.runDue()
            let idle = await bindings.asyncAllSatisfy { await $0.queue.pendingCount == 0 }
            if idle, stateObject.activities.first?.ended == true, pushward.activity("sabnzbd-home")?.state == "ended" {
                break
            }
        }

        #expect(
            stateObjectCallsWhileDown >= 10, "state-object calls while PushWard was down: \(stateObjectCallsWhileDown)")
        let recovered = try #require(pushward.records.first)
        #expect(recovered.time >= start + comeBackAt && recovered.time <= start + comeBackAt + 300)
        let phone = try #require(pushward.activity("sabnzbd-home"))
        #expect(phone.state == "ended" && phone.content["progress"] == 1 && phone.content["state"] == "Complete")
        #expect(phone.creates == 1, "one create after the outage, not a backlog")
        let watch = try #require(stateObject.activities.first)
        #expect(stateObject.activities.count == 1 && watch.ended && watch.rendered["isComplete"] == true)
        #expect(pushward.violations.isEmpty, "\(pushward.violations)")
        #expect(stateObject.violations.isEmpty, "\(stateObject.violations)")
        #expect(stateObject.redundantFields.isEmpty, "\(stateObject.redundantFields)")
        await engine.shutdown(endActivities: false, flushTimeout: 0)
    }
}

extension Array where Element: Sendable {
    func asyncAllSatisfy(_ predicate: (Element) async -> Bool) async -> Bool {
        for element in self where !(await predicate(element)) { return false }
        return true
    }
}
