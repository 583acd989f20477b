import Glibc
import LiveBridgeFoundation

/// The body of a connection's I/O thread: opens the transport, then loops — commands in,
/// frames in (drained until would-block), timers, frames out — and blocks only in `poll` on
/// the socket plus the wake pipe. Lives and dies on that one thread.
final class WebSocketConnectionLoop {
    private let core: WebSocketConnectionCore
    private let transport: any WebSocketTransport
    private let configuration: WebSocketConfiguration
    private let logger: Logger
    private var machine: WebSocketConnectionStateMachine
    /// Sends waiting for their frame to be written: (sequence number, waiter).
    private var pendingSends: [(sequence: Int, waiter: CheckedContinuation<Void, any Error>)] = []
    private var pendingSendsHead = 0
    /// Set once the machine asked to finish: the failure to report and when to stop flushing.
    private var finishing: (failure: WebSocketConnectionStateMachine.Failure?, flushDeadline: Double)?
    private var mayHaveInput = true
    private var terminalError: WebSocketError?

    init(
        core: WebSocketConnectionCore, transport: any WebSocketTransport, configuration: WebSocketConfiguration,
        logger: Logger
    ) {
        self.core = core
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        machine = WebSocketConnectionStateMachine(
            now: 0, pingInterval: nil, pongTimeout: nil, closeTimeout: 0, maximumMessageSize: 0)
    }

    /// Runs the connection to its end; returns when everything is torn down.
    func run() {
        do {
            try transport.open(interrupt: core.wakeDescriptor, shouldAbort: { core.isConnectAbandoned })
        } catch let error as WebSocketError {
            logger.warning("websocket connect failed", ["endpoint": core.endpoint.description, "error": error.detail])
            transport.close()
            core.finish(error)
            return
        } catch {
            logger.debug("websocket connect abandoned", ["endpoint": core.endpoint.description])
            transport.close()
            core.finish(nil)
            return
        }
        machine = WebSocketConnectionStateMachine(
            now: WebSocketPolling.monotonicNow(), pingInterval: configuration.pingInterval?.webSocketSeconds,
            pongTimeout: configuration.pongTimeout?.webSocketSeconds,
            closeTimeout: configuration.closeTimeout.webSocketSeconds,
            maximumMessageSize: configuration.maximumMessageSize)
        guard core.connectSucceeded() else {
            logger.debug("websocket connect abandoned", ["endpoint": core.endpoint.description])
            transport.close()
            core.finish(nil)
            return
        }
        logger.info("websocket connected", ["endpoint": core.endpoint.description])
        loop()
        transport.close()
        for index in pendingSendsHead..<pendingSends.count {
            pendingSends[index].waiter.resume(throwing: core.notOpenError(after: terminalError))
        }
        pendingSends = []
        if let terminalError {
            logger.warning("websocket ended", ["endpoint": core.endpoint.description, "error": terminalError.detail])
        } else {
            logger.info("websocket closed", ["endpoint": core.endpoint.description])
        }
        core.finish(terminalError)
    }

    private func loop() {
        var readable = true
        while true {
            var now = WebSocketPolling.monotonicNow()
            for command in core.takeCommands() { handle(command, now: now) }

            if finishing == nil, readable || mayHaveInput {
                receive()
            }
            now = WebSocketPolling.monotonicNow()
            perform(machine.tick(now: now), now: now)

            do {
                try transport.flush()
            } catch {
                if finishing == nil {
                    perform(.finish(closeFrame: nil, failure: .connectionLost(detail: describe(error))), now: now)
                } else {
                    break  // the peer is gone; nothing more will be written
                }
            }
            completeSends()

            if let finishing {
                if !transport.hasPendingOutput || now >= finishing.flushDeadline {
                    terminalError = finishing.failure.map(makeError)
                    return
                }
            }

            let deadline = finishing?.flushDeadline ?? machine.nextDeadline
            let timeout: Int32 =
                finishing == nil && mayHaveInput ? 0 : WebSocketPolling.timeoutMilliseconds(until: deadline, now: now)
            var events = Int16(0)
            if finishing == nil { events |= Int16(POLLIN) }
            if transport.hasPendingOutput { events |= Int16(POLLOUT) }
            var fds = [
                pollfd(fd: transport.pollDescriptor, events: events, revents: 0),
                pollfd(fd: core.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let result = poll(&fds, 2, timeout)
            if result < 0, errno != EINTR {
                logger.error("websocket poll failed", ["errno": String(errno)])
                perform(.finish(closeFrame: nil, failure: .connectionLost(detail: "poll failed")), now: now)
                continue
            }
            readable = fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
            if fds[1].revents != 0 { WebSocketPolling.drain(core.wakeDescriptor) }
        }
        terminalError = finishing?.failure.map(makeError)
    }

    private func handle(_ command: WebSocketConnectionCore.Command, now: Double) {
        switch command {
        case .send(let frame, let waiter):
            guard machine.isOpen, finishing == nil else {
                waiter.resume(throwing: core.notOpenError(after: finishing?.failure.map(makeError)))
                return
            }
            pendingSends.append((transport.enqueue(frame), waiter))
        case .close(let code, let reason):
            perform(machine.closeRequested(code: code, reason: reason, now: now), now: now)
        }
    }

    private func receive() {
        do {
            let status = try transport.receive { frame in
                perform(machine.received(frame), now: WebSocketPolling.monotonicNow())
                return finishing == nil
            }
            switch status {
            case .drained: mayHaveInput = false
            case .paused: mayHaveInput = true
            case .stopped: mayHaveInput = false
            case .endOfStream:
                mayHaveInput = false
                perform(machine.streamEnded(detail: nil), now: WebSocketPolling.monotonicNow())
            }
        } catch {
            mayHaveInput = false
            let now = WebSocketPolling.monotonicNow()
            switch error {
            case .protocolViolation(let violation):
                perform(machine.protocolViolation(violation), now: now)
            case .linkFailed(let detail):
                perform(machine.streamEnded(detail: detail), now: now)
            }
        }
    }

    private func perform(_ action: WebSocketConnectionStateMachine.Action, now: Double) {
        switch action {
        case .none:
            break
        case .deliver(let message):
            core.deliver(message)
        case .send(let frame):
            transport.enqueue(frame)
        case .finish(let closeFrame, let failure):
            if let closeFrame { transport.enqueue(closeFrame) }
            // A close reply gets a short, bounded chance to leave before the link is dropped.
            finishing = (failure, now + min(2, configuration.closeTimeout.webSocketSeconds))
        }
    }

    private func completeSends() {
        let completed = transport.completedFrameCount
        while pendingSendsHead < pendingSends.count, pendingSends[pendingSendsHead].sequence <= completed {
            pendingSends[pendingSendsHead].waiter.resume()
            pendingSendsHead += 1
        }
        if pendingSendsHead == pendingSends.count {
            pendingSends.removeAll(keepingCapacity: true)
            pendingSendsHead = 0
        }
    }

    private func describe(_ failure: WebSocketTransportFailure) -> String {
        switch failure {
        case .protocolViolation(let error): error.detail
        case .linkFailed(let detail): detail
        }
    }

    private func makeError(_ failure: WebSocketConnectionStateMachine.Failure) -> WebSocketError {
        let endpoint = core.endpoint.description
        switch failure {
        case .closedByPeer(let close):
            let reason = close.reason.isEmpty ? "" : ", reason \"\(WebSocketHandshake.printable(close.reason))\""
            let code = close.code.map { "with code \($0)" } ?? "without a status code"
            return WebSocketError(
                .closedByPeer, endpoint: endpoint, detail: "the server closed the connection \(code)\(reason)",
                closeCode: close.code ?? .noStatusReceived, closeReason: close.reason)
        case .protocolError(let error):
            return WebSocketError(
                .protocolError, endpoint: endpoint,
                detail:
                    "the server broke the WebSocket protocol (\(error.detail)); closed with code \(error.closeCode)",
                closeCode: error.closeCode)
        case .pingTimeout(let seconds):
            return WebSocketError(
                .pingTimeout, endpoint: endpoint,
                detail: "no pong within \(CurlWebSocketTransport.format(seconds)) s; the link is presumed dead "
                    + "(network dropped or server hung); reconnect")
        case .connectionLost(let detail):
            let how = detail.map { " (\($0))" } ?? ""
            return WebSocketError(
                .connectionLost, endpoint: endpoint,
                detail: "the server dropped the connection without a WebSocket close\(how); reconnect",
                closeCode: .abnormalClosure)
        }
    }
}
