import Dispatch
import Glibc
public import LiveBridgeFoundation
import Synchronization

/// A small HTTP/1.1 server over POSIX sockets for webhooks, health, metrics and previews.
///
/// One accept thread and one thread per connection (bounded by `maxConnections`; the excess
/// is answered 503), so blocking `accept`/`recv` never touch the task pool. Each connection
/// carries one request (`Connection: close`); the request must arrive within
/// `requestDeadline` (408 otherwise), then the handler runs in a Task for as long as it likes
/// while the connection thread waits — if the client hangs up meanwhile, the handler's task is
/// cancelled. Listening starts in `init`; `shutdown()` stops everything.
public final class HTTPServer: Sendable {
    /// Answers one request. Runs in a Task; may suspend as long as it wants.
    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    private struct State {
        var isShuttingDown = false
        var openConnections: Set<Int32> = []
        var isStopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The configuration the server was started with.
    public let configuration: HTTPServerConfiguration
    /// The port actually bound (the system's choice when the configuration said 0).
    public let port: UInt16

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: Handler
    private let logger: Logger
    private let state = Mutex(State())
    private let connectionThreads = DispatchGroup()
    private let acceptThread = Mutex<HTTPIOThread?>(nil)

    /// How long a rejected connection is drained before closing (see `HTTPServerSocket.linger`).
    private static let lingerLimit = Duration.milliseconds(500)

    /// Binds, listens and starts accepting.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), logger: Logger = .disabled,
        handler: @escaping Handler
    ) throws(HTTPServerError) {
        NetworkLibraries.initialize()
        let (listener, port) = try HTTPServerSocket.listen(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            close(listener)
            throw HTTPServerError(.listenFailed, message: "could not create a pipe: out of file descriptors")
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        self.configuration = configuration
        self.port = port
        self.listener = listener
        self.wakeRead = fds[0]
        self.wakeWrite = fds[1]
        self.handler = handler
        self.logger = logger
        guard let thread = HTTPIOThread(name: "lb-http-accept", { [self] in acceptLoop() }) else {
            close(listener)
            close(fds[0])
            close(fds[1])
            throw HTTPServerError(.listenFailed, message: "could not start the accept thread: out of threads")
        }
        acceptThread.withLock { $0 = thread }
        logger.debug("http server listening", ["address": address])
    }

    /// Binds `address` (`127.0.0.1:0`, `[::1]:8080`) with default limits.
    public convenience init(
        address: String, logger: Logger = .disabled, handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(configuration: HTTPServerConfiguration(address: address), logger: logger, handler: handler)
    }

    /// `host:port` as bound, e.g. `127.0.0.1:41234`.
    public var address: String {
        configuration.host.contains(":") ? "[\(configuration.host)]:\(port)" : "\(configuration.host):\(port)"
    }

    /// Suspends until the server is shut down; cancelling the calling task shuts it down.
    ///
    /// The shape of a long-running service: run it in a task group and cancel to stop.
    public func run() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let stopped = state.withLock { state in
                    if !state.isStopped { state.stopWaiters.append(continuation) }
                    return state.isStopped
                }
                if stopped { continuation.resume() }
            }
        } onCancel: {
            // Shutting down joins threads; keep that off the canceller's thread.
            _ = HTTPIOThread(name: "lb-http-stop") { [self] in shutdown() }?.detach()
        }
    }

    /// Stops listening, closes every connection (cancelling running handlers) and waits for the
    /// server's threads to end. Idempotent.
    ///
    /// Blocks for at most a few milliseconds: every thread is woken, none waits for a handler.
    public func shutdown() {
        let first = state.withLock { state in
            guard !state.isShuttingDown else { return false }
            state.isShuttingDown = true
            for fd in state.openConnections {
                _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
            }
            return true
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let thread = acceptThread.withLock({ $0.take() }) {
            thread.join()
        }
        close(listener)
        connectionThreads.wait()
        close(wakeRead)
        close(wakeWrite)
        let waiters = state.withLock { state in
            state.isStopped = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
        logger.debug("http server stopped", ["address": address])
    }

    // MARK: - Accept thread

    private func acceptLoop() {
        var fds = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno != EINTR {
                logger.error("http server poll failed", ["error": String(cString: strerror(errno))])
                return
            }
            if fds[1].revents != 0 || state.withLock({ $0.isShuttingDown }) { return }
            guard fds[0].revents != 0 else { continue }

            var peer = sockaddr_storage()
            var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &peerLength) }
            }
            if fd < 0 {
                let code = errno
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of resources: back off briefly instead of spinning on a readable listener.
                    logger.warning("http server cannot accept", ["error": String(cString: strerror(code))])
                    var wake = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
                    _ = poll(&wake, 1, 100)
                }
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let remote = HTTPServerSocket.describe(peer)
            admit(fd, remote: "\(remote.address):\(remote.port)")
        }
    }

    private enum Admission { case serve, busy, stopping }

    private func admit(_ fd: Int32, remote: String) {
        let acceptedAt = ContinuousClock.now
        let admission = state.withLock { state -> Admission in
            if state.isShuttingDown { return .stopping }
            if state.openConnections.count >= configuration.maxConnections { return .busy }
            state.openConnections.insert(fd)
            connectionThreads.enter()
            return .serve
        }
        switch admission {
        case .stopping:
            close(fd)
        case .busy:
            logger.warning("http server busy, connection refused", ["remote": remote])
            refuseBusy(fd)
            close(fd)
        case .serve:
            let thread = HTTPIOThread(name: "lb-http-conn") { [self] in
                serve(fd, remote: remote, acceptedAt: acceptedAt)
                release(fd)
            }
            if let thread {
                thread.detach()
            } else {
                logger.warning("http server cannot start a connection thread", ["remote": remote])
                refuseBusy(fd)
                release(fd)
            }
        }
    }

    private func refuseBusy(_ fd: Int32) {
        HTTPServerSocket.setTimeouts(fd, seconds: 1)
        HTTPServerSocket.discardPending(fd)
        let rejection = HTTPRequestRejection(status: 503, reason: "too many connections; retry shortly")
        HTTPServerSocket.sendAll(fd, HTTPServerResponse.rejection(rejection).serialized(headOnly: false))
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a served connection. Closing under the lock keeps `shutdown()` from acting on a
    /// descriptor number that was already reused.
    private func release(_ fd: Int32) {
        state.withLock { state in
            state.openConnections.remove(fd)
            close(fd)
        }
        connectionThreads.leave()
    }

    // MARK: - Connection thread

    private func serve(_ fd: Int32, remote: String, acceptedAt: ContinuousClock.Instant) {
        HTTPServerSocket.setTimeouts(fd, seconds: configuration.socketTimeout)
        let deadline = acceptedAt + .milliseconds(Int64((configuration.requestDeadline * 1000).rounded()))
        var parser = HTTPRequestParser(limits: configuration.limits)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            switch parser.next() {
            case .request(var request):
                request.remoteAddress = remote
                respond(to: request, on: fd)
                return
            case .rejected(let rejection):
                reject(rejection, on: fd, remote: remote)
                return
            case .needMore:
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else {
                    reject(
                        HTTPRequestRejection(status: 408, reason: "the request did not arrive in time"), on: fd,
                        remote: remote)
                    return
                }
                switch HTTPServerSocket.waitReadable(fd, timeout: remaining) {
                case .timedOut: continue
                case .failed: return
                case .readable: break
                }
                let count = recv(fd, &buffer, buffer.count, 0)
                if count == 0 { return }  // the client went away (or the server is stopping)
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                    return
                }
                parser.append(buffer[0..<count])
            }
        }
    }

    private func reject(_ rejection: HTTPRequestRejection, on fd: Int32, remote: String) {
        logger.debug(
            "http request rejected", ["status": String(rejection.status), "reason": rejection.reason, "remote": remote])
        let response = HTTPServerResponse.rejection(rejection)
        guard HTTPServerSocket.sendAll(fd, response.serialized(headOnly: false)) else { return }
        HTTPServerSocket.linger(fd, limit: Self.lingerLimit)
    }

    private func respond(to request: HTTPServerRequest, on fd: Int32) {
        guard let response = awaitHandler(request, on: fd), !response.dropsConnection else { return }
        HTTPServerSocket.sendAll(fd, response.serialized(headOnly: request.method == "HEAD"))
    }

    /// Runs the handler in a Task and waits for it on this (non-pool) thread; nil when the
    /// client hung up or the server is stopping first, in which case the task is cancelled.
    private func awaitHandler(_ request: HTTPServerRequest, on fd: Int32) -> HTTPServerResponse? {
        guard let completion = HTTPHandlerCompletion() else {
            return HTTPServerResponse.rejection(HTTPRequestRejection(status: 503, reason: "out of file descriptors"))
        }
        defer { completion.close() }
        let handler = self.handler
        let task = Task {
            completion.deliver(await handler(request))
        }
        var fds = [
            pollfd(fd: completion.readFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: fd, events: HTTPServerSocket.peerHangUpEvents, revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                task.cancel()
                return nil
            }
            if fds[0].revents != 0 {
                return completion.response
            }
            if fds[1].revents & HTTPServerSocket.peerHangUpEvents != 0 {
                task.cancel()
                return nil
            }
        }
    }
}
