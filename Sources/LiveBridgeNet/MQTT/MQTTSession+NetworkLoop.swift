import CMosquitto
import Glibc
import LiveBridgeFoundation
import Synchronization

/// The session's network thread: connect, drive `mosquitto_loop`, classify failures, back off,
/// reconnect, and tear everything down in order at shutdown.
///
/// Why our own loop rather than `mosquitto_loop_start` and the library's reconnect: with
/// libmosquitto 2.0.11 and TLS, `mosquitto_connect_async` to a closed or not-yet-answering port
/// spins or sits silent until the keepalive expires, a failed TLS handshake produces no callback
/// at all, and the library's reconnect cannot back off to the maximum after an authentication
/// refusal. Owning the loop gives every failure a return code we can classify and a schedule
/// we control. The blocking `mosquitto_connect` performs DNS and the TCP connect only; the TLS
/// handshake and CONNECT/CONNACK run in the loop, bounded by `connectTimeout`.
extension MQTTSession {
    /// How one connection attempt ended.
    enum AttemptOutcome {
        /// The attempt failed before CONNACK 0.
        case failed(MQTTSessionError)
        /// An established connection ended after `uptime` seconds.
        case lost(MQTTSessionError, uptime: Double)
        /// `shutdown()` was requested.
        case stopped
    }

    /// The thread body. Holds `self` until teardown finished, so callbacks always find the session.
    func runNetworkLoop(_ client: MQTTNativeClient) {
        var backoff = Backoff(reconnect: configuration.reconnect)
        attempts: while !stopRequested {
            let delay: Double
            switch runAttempt(client) {
            case .stopped:
                break attempts
            case .failed(let error):
                delay = backoff.attemptFailed(permanent: error.isConfigurationProblem)
                recordFailure(error, delay: delay, connectionWasUp: false)
            case .lost(let error, let uptime):
                delay = backoff.connectionLost(after: uptime)
                recordFailure(error, delay: delay, connectionWasUp: true)
            }
            if client.wake.wait(timeout: delay) || stopRequested { break attempts }
        }
        tearDown(client)
    }

    var stopRequested: Bool {
        state.withLock { $0.stopRequested }
    }

    /// One attempt: TCP connect, then TLS + CONNECT/CONNACK (bounded), then the connected loop.
    private func runAttempt(_ client: MQTTNativeClient) -> AttemptOutcome {
        let handle = client.mosquitto
        client.tls?.verifier.reset()
        updateStatus { state in
            state.linkUp = false
            state.attempt = MQTTSessionState.Attempt()
            state.status.state = .connecting
            state.status.connectAttempts += 1
            state.status.retryDelay = nil
            state.status.connectedSince = nil
        }
        let connectResult = mosquitto_connect(
            handle, configuration.host, Int32(configuration.port), Int32(configuration.keepAlive))
        let connectErrno = errno
        if stopRequested { return .stopped }
        guard connectResult == Self.success else {
            let evidence = attemptEvidence(client)
            return .failed(
                classifier.connectFailed(
                    code: connectResult, errno: connectErrno, verification: evidence.verification,
                    libraryErrors: evidence.attempt.libraryErrors))
        }
        if let failure = awaitConnack(client) { return failure }
        return runConnected(client)
    }

    /// Drives the TLS handshake and CONNECT/CONNACK until CONNACK 0, a failure, the deadline or stop.
    ///
    /// Polls the socket ourselves and calls `mosquitto_loop` with a zero timeout only when it is
    /// ready: a peer that resets mid-handshake otherwise leaves libmosquitto returning success in
    /// a tight loop (SSL_ERROR_SYSCALL is treated as "try again").
    private func awaitConnack(_ client: MQTTNativeClient) -> AttemptOutcome? {
        let handle = client.mosquitto
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(configuration.connectTimeout * 1000)))
        while !state.withLock({ $0.linkUp }) {
            if stopRequested { return .stopped }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero {
                return .failed(classifier.handshakeTimedOut(after: configuration.connectTimeout))
            }
            let socket = mosquitto_socket(handle)
            guard socket >= 0 else {
                let evidence = attemptEvidence(client)
                return .failed(
                    classifier.loopFailed(
                        code: Int32(MOSQ_ERR_NO_CONN.rawValue), errno: 0, phase: .connecting,
                        connackCode: evidence.attempt.connackCode, verification: evidence.verification,
                        libraryErrors: evidence.attempt.libraryErrors))
            }
            var descriptors = [
                pollfd(
                    fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0),
                    revents: 0),
                pollfd(fd: client.wake.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = Int32(min(1000, max(1, remaining.wholeMilliseconds)))
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0 && errno != EINTR {
                return .failed(classifier.socketError(errno, phase: .connecting))
            }
            if descriptors[1].revents != 0 { continue }  // wake-up: the loop head sees the stop flag
            let result = mosquitto_loop(handle, 0, 1)
            let loopErrno = errno
            if result != Self.success {
                let evidence = attemptEvidence(client)
                return .failed(
                    classifier.loopFailed(
                        code: result, errno: loopErrno, phase: .connecting, connackCode: evidence.attempt.connackCode,
                        verification: evidence.verification, libraryErrors: evidence.attempt.libraryErrors))
            }
            let hungUp = descriptors[0].revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0
            if hungUp && !state.withLock({ $0.linkUp }) {
                let evidence = attemptEvidence(client)
                if evidence.verification?.rejection != nil {
                    return .failed(
                        classifier.tlsFailed(
                            verification: evidence.verification, libraryErrors: evidence.attempt.libraryErrors))
                }
                return .failed(
                    classifier.connectionClosed(phase: .connecting, libraryErrors: evidence.attempt.libraryErrors))
            }
        }
        return nil
    }

    /// The connected phase: `mosquitto_loop` handles reads, writes, keepalive and publishes
    /// queued by other threads (they wake its `select` through libmosquitto's socket pair).
    private func runConnected(_ client: MQTTNativeClient) -> AttemptOutcome {
        let clock = ContinuousClock()
        let connectedAt = clock.now
        while true {
            let result = mosquitto_loop(client.mosquitto, 1000, 1)
            let loopErrno = errno
            if stopRequested { return .stopped }
            if result != Self.success {
                let seconds = connectedAt.duration(to: clock.now).seconds
                let evidence = attemptEvidence(client)
                return .lost(
                    classifier.loopFailed(
                        code: result, errno: loopErrno, phase: .connected, connackCode: nil,
                        verification: evidence.verification, libraryErrors: evidence.attempt.libraryErrors),
                    uptime: seconds)
            }
        }
    }

    private func attemptEvidence(_ client: MQTTNativeClient) -> (
        attempt: MQTTSessionState.Attempt, verification: TLSPeerVerification?
    ) {
        (state.withLock { $0.attempt }, client.tls?.verifier.lastVerification)
    }

    /// Publishes the failure, fails publishes waiting on the dead connection, and logs (a repeat
    /// of the same failure quietly, so a printer that is off for hours does not flood the log).
    private func recordFailure(_ error: MQTTSessionError, delay: Double, connectionWasUp: Bool) {
        var waiters: [CheckedContinuation<Result<Void, MQTTSessionError>, Never>] = []
        var repeated = false
        updateStatus { state in
            state.linkUp = false
            state.pendingSubscriptions.removeAll()
            state.hookPending = false
            waiters = state.acknowledgements.removeAll()
            state.status.state = connectionWasUp ? .disconnected(error) : .failed(error)
            state.status.lastError = error
            state.status.retryDelay = delay
            state.status.connectedSince = nil
            repeated = state.lastLoggedFailure == error.code
            state.lastLoggedFailure = error.code
        }
        let lost = MQTTSessionError(
            code: .connectionLost,
            message: "the connection to \(configuration.endpoint) ended before the broker acknowledged the message "
                + "(\(error.message))")
        for waiter in waiters { waiter.resume(returning: .failure(lost)) }
        let metadata = ["code": error.code.description, "retry_in": "\(delay)"]
        let text = connectionWasUp ? "connection lost: \(error.message)" : "connection failed: \(error.message)"
        if repeated {
            logger.debug(text, metadata)
        } else if error.isConfigurationProblem {
            logger.error(text, metadata)
        } else {
            logger.warning(text, metadata)
        }
    }

    /// Ordered teardown on the network thread: DISCONNECT (flushed, bounded), destroy the client,
    /// release the TLS context, then finish every stream and waiter.
    private func tearDown(_ client: MQTTNativeClient) {
        if state.withLock({ $0.linkUp }) {
            _ = client.withLiveHandle { mosquitto_disconnect($0) }
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(1))
            while clock.now < deadline {
                if mosquitto_loop(client.mosquitto, 100, 1) != Self.success { break }
            }
        }
        client.destroy()
        client.tls?.release()
        client.wake.close()
        finishSession(client: client)
        logger.info("MQTT session closed")
    }

    /// Marks the session closed and releases everyone waiting on it.
    func finishSession(client: MQTTNativeClient?) {
        var waiters: [CheckedContinuation<Result<Void, MQTTSessionError>, Never>] = []
        var observers: [AsyncStream<MQTTSessionStatus>.Continuation] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var hooks: [Task<Void, Never>] = []
        updateStatus { state in
            state.phase = .finished
            state.linkUp = false
            state.client = nil
            state.status.state = .closed
            state.status.retryDelay = nil
            state.status.connectedSince = nil
            waiters = state.acknowledgements.removeAll()
            observers = Array(state.observers.values)
            state.observers.removeAll()
            closeWaiters = state.closeWaiters
            state.closeWaiters.removeAll()
            hooks = state.hookTasks
            state.hookTasks.removeAll()
        }
        let shutDown = MQTTSessionError(
            code: .shutDown, message: "the MQTT session for \(configuration.endpoint) was shut down")
        for waiter in waiters { waiter.resume(returning: .failure(shutDown)) }
        for hook in hooks { hook.cancel() }
        inbound.finish()
        for observer in observers { observer.finish() }
        for waiter in closeWaiters { waiter.resume() }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down (for `poll` timeouts).
    fileprivate var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// The duration in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
