import Foundation
import Glibc
public import LiveBridgeNet
import Synchronization

extension WebSocketTestServer {
    /// One accepted WebSocket, seen from the server: what the client sent, and controls to send
    /// frames, stop answering pings, or drop the TCP connection.
    ///
    /// By default it answers pings with pongs and a client's close with a close (then closes
    /// TCP), like a well-behaved server. Everything the client sends is also recorded as a
    /// `WebSocketEvent` (pings and closes included) for `nextEvent()`.
    public final class Connection: Sendable {
        /// The client's upgrade request (path, headers such as `Authorization`).
        public let request: WebSocketHandshakeRequest

        private struct State {
            var outbound: [[UInt8]] = []
            var answersPings = true
            var answersClose = true
            var sentClose = false
            var drop: DropKind?
            var closed = false
        }

        private enum DropKind { case close, reset }

        private let socket: Int32
        private let wake: (read: Int32, write: Int32)
        private let state = Mutex(State())
        private let events = WebSocketTestMailbox<WebSocketEvent>(label: "a frame from the client")
        private let closedSignal = WebSocketTestMailbox<Bool>(label: "the connection to close")
        private let leftover: [UInt8]

        init(socket: Int32, request: WebSocketHandshakeRequest, leftover: [UInt8]) {
            self.socket = socket
            self.request = request
            self.leftover = leftover
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            }
            wake = (fds[0], fds[1])
        }

        // MARK: - Receiving

        /// The next thing the client sent: a message, ping, pong or close.
        ///
        /// Throws `WebSocketTestServerError` once the connection is closed and everything
        /// received was taken, the decoder's `WebSocketProtocolError` if the client broke the
        /// protocol, or `WebSocketTestTimeout`.
        public func nextEvent(timeout: Duration = .seconds(10)) async throws -> WebSocketEvent {
            try await events.next(timeout: timeout)
        }

        /// The next text or binary message, skipping pings, pongs and closes.
        public func nextMessage(timeout: Duration = .seconds(10)) async throws -> WebSocketMessage {
            let deadline = ContinuousClock.now + timeout
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if case .message(let message) = try await events.next(timeout: max(remaining, .zero)) {
                    return message
                }
            }
        }

        /// The next text message; throws if the next message is binary.
        public func nextText(timeout: Duration = .seconds(10)) async throws -> String {
            switch try await nextMessage(timeout: timeout) {
            case .text(let text): return text
            case .binary(let bytes): throw WebSocketTestServerError("expected text, got \(bytes.count) binary bytes")
            }
        }

        /// Returns once the TCP connection is closed (by either side).
        public func waitUntilClosed(timeout: Duration = .seconds(10)) async throws {
            do {
                _ = try await closedSignal.next(timeout: timeout)
            } catch is WebSocketTestServerError {
                return
            }
        }

        /// True once the TCP connection is closed.
        public var isClosed: Bool { state.withLock { $0.closed } }

        // MARK: - Sending

        /// Sends a text message in one frame.
        public func send(text: String) { send(frame: .text(text)) }

        /// Sends a binary message in one frame.
        public func send(binary: [UInt8]) { send(frame: .binary(binary)) }

        /// Sends a ping.
        public func sendPing(_ payload: [UInt8] = []) { send(frame: .ping(payload)) }

        /// Starts the closing handshake; the client's answer arrives as a `.close` event, after
        /// which the server closes TCP.
        public func sendClose(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
            state.withLock { $0.sentClose = true }
            send(frame: .close(code: code, reason: reason))
        }

        /// Sends any frame, unmasked as a server must.
        public func send(frame: WebSocketFrame) {
            sendRaw(WebSocketFrameEncoder.encodeServerFrame(frame))
        }

        /// Sends bytes as they are: malformed frames, split frames, several frames at once.
        /// Ignored once the connection is closed.
        public func sendRaw(_ bytes: [UInt8]) {
            state.withLock { state in
                guard !state.closed else { return }
                state.outbound.append(bytes)
                wakeLocked()
            }
        }

        // MARK: - Misbehaving

        /// Whether pings are answered (default true). Turn off to simulate a link that died
        /// without a FIN: the client must detect it through its ping timeout.
        public func setAnswersPings(_ answers: Bool) {
            state.withLock { $0.answersPings = answers }
        }

        /// Whether a client's close is answered with a close (default true).
        public func setAnswersClose(_ answers: Bool) {
            state.withLock { $0.answersClose = answers }
        }

        /// Closes the TCP connection now, without a close frame (a crashed server or a
        /// restarting proxy). With `reset` the client gets a RST instead of a FIN.
        public func drop(reset: Bool = false) {
            state.withLock { state in
                guard !state.closed, state.drop == nil else { return }
                state.drop = reset ? .reset : .close
                wakeLocked()
            }
        }

        private func wakeLocked() {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }

        // MARK: - I/O thread

        /// The frame loop; returns when the connection is closed.
        func run() {
            var decoder = WebSocketDecoder(role: .server)
            decoder.append(contentsOf: leftover)
            var pending: [UInt8] = []
            var sentCount = 0
            var closeAfterFlush = false
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var endError: any Error = WebSocketTestServerError("the connection is closed")
            loop: while true {
                let (newBytes, drop) = state.withLock { state -> ([[UInt8]], DropKind?) in
                    defer { state.outbound.removeAll() }
                    return (state.outbound, state.drop)
                }
                if let drop {
                    if drop == .reset {
                        var linger = linger(l_onoff: 1, l_linger: 0)
                        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                    }
                    break loop
                }
                for bytes in newBytes { pending.append(contentsOf: bytes) }

                // Read everything available.
                while !closeAfterFlush {
                    let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if count == 0 { break loop }
                    if count < 0 {
                        if errno == EAGAIN || errno == EINTR { break }
                        break loop
                    }
                    decoder.append(contentsOf: Array(chunk[0..<count]))
                    do {
                        while let event = try decoder.next() {
                            let answers = state.withLock { ($0.answersPings, $0.answersClose, $0.sentClose) }
                            switch event {
                            case .ping(let payload) where answers.0:
                                pending += WebSocketFrameEncoder.encodeServerFrame(.pong(payload))
                            case .close(let close):
                                if !answers.2, answers.1 {
                                    let reply = close.code.map { WebSocketFrame.close(code: $0) } ?? .close()
                                    pending += WebSocketFrameEncoder.encodeServerFrame(reply)
                                }
                                if answers.1 || answers.2 { closeAfterFlush = true }
                            default:
                                break
                            }
                            events.put(event)
                        }
                    } catch {
                        pending += WebSocketFrameEncoder.encodeServerFrame(
                            .close(code: error.closeCode, reason: error.violation.description))
                        endError = error
                        closeAfterFlush = true
                    }
                }

                // Write what we can.
                while sentCount < pending.count {
                    let offset = sentCount
                    let count = pending.withUnsafeBytes {
                        Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                    }
                    if count > 0 {
                        sentCount += count
                        continue
                    }
                    if count < 0, errno == EAGAIN || errno == EINTR { break }
                    break loop
                }
                if sentCount == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    sentCount = 0
                }
                if closeAfterFlush, pending.isEmpty { break loop }

                var fds = [
                    pollfd(
                        fd: socket, events: Int16(closeAfterFlush ? 0 : POLLIN) | Int16(pending.isEmpty ? 0 : POLLOUT),
                        revents: 0),
                    pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                ]
                if poll(&fds, 2, -1) < 0, errno != EINTR { break loop }
                if fds[1].revents != 0 {
                    var scratch = [UInt8](repeating: 0, count: 64)
                    while scratch.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
                }
            }
            state.withLock { state in
                state.closed = true
                state.outbound = []
                Glibc.close(wake.write)
                Glibc.close(wake.read)
                Glibc.close(socket)
            }
            events.finish(endError)
            closedSignal.finish(WebSocketTestServerError("closed"))
        }
    }
}
