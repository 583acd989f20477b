/// The policy of an open client connection as a pure value: message assembly, automatic
/// pongs, our own keep-alive pings, dead-link detection and the closing handshake.
///
/// Each input returns the one action the I/O owner must perform (the async-http-client state
/// machine shape), so every rule is tested with plain numbers for time and no sockets.
struct WebSocketConnectionStateMachine: Sendable {
    /// Why the connection ended, before the endpoint is attached.
    enum Failure: Equatable, Sendable {
        case closedByPeer(WebSocketClose)
        case protocolError(WebSocketProtocolError)
        case pingTimeout(seconds: Double)
        case connectionLost(detail: String?)
    }

    /// What the I/O owner must do next.
    enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// Hand a message to the application.
        case deliver(WebSocketMessage)
        /// Send a control frame (pong, ping, our close).
        case send(WebSocketFrame)
        /// Send `closeFrame` if any (best effort, bounded), then drop the transport and end the
        /// message stream: with `failure`, or normally when nil.
        case finish(closeFrame: WebSocketFrame?, failure: Failure?)
    }

    private enum State: Equatable, Sendable {
        case open
        /// We sent a close frame and wait for the peer's until `deadline`.
        case closing(deadline: Double)
        case finished
    }

    private var state: State = .open
    private var assembler: WebSocketMessageAssembler
    private let pingInterval: Double?
    private let pongTimeout: Double
    private let closeTimeout: Double
    private var nextPingAt: Double?
    /// The payload and send time of the ping still waiting for its pong.
    private var outstandingPing: (payload: [UInt8], sentAt: Double)?
    private var pingCounter: UInt64 = 0

    /// A machine for a connection that opened at `now` (monotonic seconds).
    init(
        now: Double, pingInterval: Double?, pongTimeout: Double?, closeTimeout: Double,
        maximumMessageSize: Int
    ) {
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout ?? pingInterval ?? 30
        self.closeTimeout = closeTimeout
        assembler = WebSocketMessageAssembler(maximumMessageSize: maximumMessageSize)
        nextPingAt = pingInterval.map { now + $0 }
    }

    /// True until the machine has asked to finish.
    var isOpen: Bool { state == .open }

    /// True once `finish` was returned.
    var isFinished: Bool { state == .finished }

    /// The earliest time `tick` has something to do.
    var nextDeadline: Double? {
        switch state {
        case .open:
            // While a ping is outstanding the next one waits for its pong.
            if let outstanding = outstandingPing { return outstanding.sentAt + pongTimeout }
            return nextPingAt
        case .closing(let deadline):
            return deadline
        case .finished:
            return nil
        }
    }

    /// A frame arrived.
    mutating func received(_ frame: WebSocketFrame) -> Action {
        guard state != .finished else { return .none }
        let event: WebSocketEvent?
        do {
            event = try assembler.assemble(frame)
        } catch {
            return protocolViolation(error)
        }
        guard let event else { return .none }
        switch event {
        case .message(let message):
            return .deliver(message)
        case .ping(let payload):
            return state == .open ? .send(.pong(payload)) : .none
        case .pong(let payload):
            if let outstanding = outstandingPing, outstanding.payload == payload { outstandingPing = nil }
            return .none
        case .close(let close):
            if case .closing = state {
                state = .finished
                return .finish(closeFrame: nil, failure: nil)
            }
            state = .finished
            let reply = close.code.map { WebSocketFrame.close(code: $0) } ?? .close()
            return .finish(closeFrame: reply, failure: .closedByPeer(close))
        }
    }

    /// The frame decoder rejected the stream.
    mutating func protocolViolation(_ error: WebSocketProtocolError) -> Action {
        guard state != .finished else { return .none }
        state = .finished
        return .finish(
            closeFrame: .close(code: error.closeCode, reason: error.violation.description),
            failure: .protocolError(error))
    }

    /// The transport reported end of stream (TCP FIN, `detail` nil) or a failure such as a reset.
    mutating func streamEnded(detail: String? = nil) -> Action {
        switch state {
        case .finished:
            return .none
        case .closing:
            state = .finished
            return .finish(closeFrame: nil, failure: nil)
        case .open:
            state = .finished
            return .finish(closeFrame: nil, failure: .connectionLost(detail: detail))
        }
    }

    /// The application asked to close.
    mutating func closeRequested(code: WebSocketCloseCode, reason: String, now: Double) -> Action {
        guard state == .open else { return .none }
        state = .closing(deadline: now + closeTimeout)
        return .send(.close(code: code, reason: reason))
    }

    /// Time passed; call at `nextDeadline` (calling early is harmless).
    mutating func tick(now: Double) -> Action {
        switch state {
        case .finished:
            return .none
        case .closing(let deadline):
            guard now >= deadline else { return .none }
            // The peer never answered our close; we wanted to end anyway.
            state = .finished
            return .finish(closeFrame: nil, failure: nil)
        case .open:
            if let outstanding = outstandingPing, now >= outstanding.sentAt + pongTimeout {
                state = .finished
                return .finish(closeFrame: nil, failure: .pingTimeout(seconds: pongTimeout))
            }
            guard let interval = pingInterval, let due = nextPingAt, now >= due, outstandingPing == nil else {
                return .none
            }
            pingCounter += 1
            let payload = withUnsafeBytes(of: pingCounter.bigEndian) { Array($0) }
            outstandingPing = (payload, now)
            nextPingAt = now + interval
            return .send(.ping(payload))
        }
    }
}
