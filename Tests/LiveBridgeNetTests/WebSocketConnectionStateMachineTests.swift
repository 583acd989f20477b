import Testing

@testable import LiveBridgeNet

/// The connection policy with plain numbers for time: no sockets, no sleeps.
@Suite("WebSocket connection state machine")
struct WebSocketConnectionStateMachineTests {
    typealias Machine = WebSocketConnectionStateMachine

    static func machine(pingInterval: Double? = 30, pongTimeout: Double? = nil) -> Machine {
        Machine(
            now: 1_000, pingInterval: pingInterval, pongTimeout: pongTimeout, closeTimeout: 5,
            maximumMessageSize: 1_024)
    }

    @Test("Messages are delivered and pings answered with the same payload")
    func deliverAndPong() {
        var machine = Self.machine()
        #expect(machine.received(.text("hi")) == .deliver(.text("hi")))
        #expect(machine.received(.ping([7])) == .send(.pong([7])))
        #expect(machine.received(.pong([1])) == .none)
    }

    @Test("A ping goes out every interval; its pong clears the deadline")
    func pingSchedule() throws {
        var machine = Self.machine(pingInterval: 30)
        #expect(machine.nextDeadline == 1_030)
        #expect(machine.tick(now: 1_029) == .none)
        guard case .send(let ping) = machine.tick(now: 1_030) else {
            Issue.record("expected a ping")
            return
        }
        #expect(ping.opcode == .ping)
        #expect(machine.nextDeadline == 1_060)  // pong deadline (timeout defaults to the interval)
        #expect(machine.received(.pong(ping.payload)) == .none)
        #expect(machine.nextDeadline == 1_060)  // next ping
        guard case .send(let second) = machine.tick(now: 1_060) else {
            Issue.record("expected a second ping")
            return
        }
        #expect(second.payload != ping.payload)
        #expect(machine.isOpen)
    }

    @Test("No pong within the timeout finishes with a ping timeout; a pong with another payload does not count")
    func pingTimeout() {
        var machine = Self.machine(pingInterval: 10, pongTimeout: 4)
        guard case .send = machine.tick(now: 1_010) else {
            Issue.record("expected a ping")
            return
        }
        #expect(machine.received(.pong([0xFF])) == .none)
        #expect(machine.nextDeadline == 1_014)
        #expect(machine.tick(now: 1_013.9) == .none)
        #expect(machine.tick(now: 1_014) == .finish(closeFrame: nil, failure: .pingTimeout(seconds: 4)))
        #expect(machine.isFinished)
        #expect(machine.tick(now: 2_000) == .none)
    }

    @Test("Without a ping interval there are no timers")
    func noPings() {
        var machine = Self.machine(pingInterval: nil)
        #expect(machine.nextDeadline == nil)
        #expect(machine.tick(now: 1_000_000) == .none)
    }

    @Test("A peer close is echoed and finishes with closedByPeer")
    func peerClose() {
        var machine = Self.machine()
        let close = WebSocketFrame.close(code: .goingAway, reason: "restart")
        #expect(
            machine.received(close)
                == .finish(
                    closeFrame: .close(code: .goingAway),
                    failure: .closedByPeer(WebSocketClose(code: .goingAway, reason: "restart"))))
        #expect(machine.received(.text("late")) == .none)
    }

    @Test("An empty peer close is answered with an empty close")
    func emptyPeerClose() {
        var machine = Self.machine()
        #expect(
            machine.received(.close())
                == .finish(closeFrame: .close(), failure: .closedByPeer(WebSocketClose(code: nil))))
    }

    @Test("Our close waits for the peer's close, which ends normally; no pongs while closing")
    func ourClose() {
        var machine = Self.machine()
        #expect(
            machine.closeRequested(code: .normalClosure, reason: "bye", now: 1_001)
                == .send(.close(code: .normalClosure, reason: "bye")))
        #expect(machine.nextDeadline == 1_006)
        #expect(machine.closeRequested(code: .normalClosure, reason: "again", now: 1_002) == .none)
        #expect(machine.received(.ping([1])) == .none)
        #expect(machine.received(.text("in flight")) == .deliver(.text("in flight")))
        #expect(machine.received(.close(code: .normalClosure)) == .finish(closeFrame: nil, failure: nil))
    }

    @Test("Our close gives up at the close timeout, and EOF while closing is a normal end")
    func ourCloseTimeoutAndEOF() {
        var timedOut = Self.machine()
        _ = timedOut.closeRequested(code: .normalClosure, reason: "", now: 1_000)
        #expect(timedOut.tick(now: 1_004) == .none)
        #expect(timedOut.tick(now: 1_005) == .finish(closeFrame: nil, failure: nil))

        var eof = Self.machine()
        _ = eof.closeRequested(code: .normalClosure, reason: "", now: 1_000)
        #expect(eof.streamEnded() == .finish(closeFrame: nil, failure: nil))
    }

    @Test("EOF or a reset while open is a lost connection")
    func lostConnection() {
        var machine = Self.machine()
        #expect(
            machine.streamEnded(detail: "reset") == .finish(closeFrame: nil, failure: .connectionLost(detail: "reset")))
    }

    @Test("Protocol violations are answered with a close carrying their code")
    func violations() {
        var fragments = Self.machine()
        let result = fragments.received(WebSocketFrame(opcode: .continuation, payload: [1]))
        guard case .finish(let frame, .protocolError(let error)) = result else {
            Issue.record("expected a protocol error, got \(result)")
            return
        }
        #expect(error.closeCode == .protocolError)
        #expect(Array(frame?.payload.prefix(2) ?? []) == [0x03, 0xEA])

        var tooBig = Self.machine()
        guard case .finish(_, .protocolError(let big)) = tooBig.received(.binary([UInt8](repeating: 0, count: 2_000)))
        else {
            Issue.record("expected 1009")
            return
        }
        #expect(big.closeCode == .messageTooBig)
    }
}

@Suite("WebSocket endpoint parsing")
struct WebSocketEndpointTests {
    @Test("ws and wss URLs give curl http/https URLs, Host headers and log-safe descriptions")
    func parsing() throws {
        let plain = try WebSocketEndpoint("ws://ha.local:8123/api/websocket?token=secret")
        #expect(plain.curlURL == "http://ha.local:8123/")
        #expect(plain.hostHeader == "ha.local:8123")
        #expect(plain.target == "/api/websocket?token=secret")
        #expect(plain.description == "ws://ha.local:8123/api/websocket")

        let secure = try WebSocketEndpoint("wss://ha.example.com/api/websocket")
        #expect(secure.curlURL == "https://ha.example.com:443/")
        #expect(secure.hostHeader == "ha.example.com")
        #expect(secure.port == 443)

        let bare = try WebSocketEndpoint("WS://10.0.0.2")
        #expect(bare.target == "/")
        #expect(bare.port == 80)

        let ipv6 = try WebSocketEndpoint("ws://[::1]:9000/ws")
        #expect(ipv6.host == "::1")
        #expect(ipv6.curlURL == "http://[::1]:9000/")
        #expect(ipv6.hostHeader == "[::1]:9000")
    }

    @Test("Other schemes, missing hosts and credentials are configuration errors")
    func rejected() {
        for url in ["https://x/", "mqtt://x/", "ws:///path", "wss://a:b@host/", "ws://host:99999/"] {
            #expect(throws: WebSocketError.self, "\(url)") { try WebSocketEndpoint(url) }
        }
    }
}
