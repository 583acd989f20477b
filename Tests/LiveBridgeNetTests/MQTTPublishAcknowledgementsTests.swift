import Testing

@testable import LiveBridgeNet

@Suite("Matching publish acknowledgements to publishers")
struct MQTTPublishAcknowledgementsTests {
    @Test("an acknowledgement that overtakes the registration settles it at once")
    func earlyAcknowledgement() {
        var table = MQTTPublishAcknowledgements<String>()
        table.beginCall()
        #expect(table.acknowledge(7) == nil)
        guard case .settled(.success) = table.register(7, "publisher") else {
            Issue.record("expected an immediate success")
            return
        }
        #expect(table.waitingCount == 0)
    }

    @Test("a registered waiter is returned by its acknowledgement")
    func normalAcknowledgement() {
        var table = MQTTPublishAcknowledgements<String>()
        table.beginCall()
        guard case .waiting = table.register(3, "publisher") else {
            Issue.record("expected to wait")
            return
        }
        #expect(table.acknowledge(3) == "publisher")
        #expect(table.acknowledge(3) == nil)
    }

    @Test("acknowledgements for re-sent messages are ignored when no publish is in flight")
    func staleAcknowledgementIgnored() {
        var table = MQTTPublishAcknowledgements<String>()
        #expect(table.acknowledge(9) == nil)
        table.beginCall()
        guard case .waiting = table.register(9, "new publisher") else {
            Issue.record("a stale acknowledgement must not settle a new publish")
            return
        }
    }

    @Test("cancellation before registration and removeAll settle every waiter")
    func cancellationAndRemoval() {
        var table = MQTTPublishAcknowledgements<String>()
        table.beginCall()
        #expect(table.cancel(4) == nil)
        guard case .settled(.failure(let error)) = table.register(4, "cancelled") else {
            Issue.record("expected a cancelled result")
            return
        }
        #expect(error.code == .cancelled)
        table.beginCall()
        _ = table.register(5, "a")
        table.beginCall()
        _ = table.register(6, "b")
        #expect(Set(table.removeAll()) == ["a", "b"])
        #expect(table.waitingCount == 0)
    }
}
