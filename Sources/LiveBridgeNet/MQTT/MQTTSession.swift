import CMosquitto
import FoundationEssentials
public import LiveBridgeFoundation
import Synchronization

/// A long-lived MQTT 3.1.1 client connection to one broker (a Bambu Lab printer, a home broker).
///
/// Built on libmosquitto 2.0.11 with a network thread the session owns: it connects, keeps the
/// link alive, reconnects with backoff (1 s doubling to 30 s; the maximum at once after a
/// credentials or certificate refusal), renews subscriptions and runs the on-connect hook after
/// every (re)connect, and reports its state for `/health`. TLS certificate checks — CA, a pinned
/// fingerprint, trust on first use — run inside the handshake, so a wrong certificate ends the
/// connection before the CONNECT packet with the password leaves the process.
///
/// Life cycle: `init` (validates), `start()`, consume `messages`, `publish`, and finally
/// `shutdown()` — explicit, never in `deinit`.
public final class MQTTSession: Sendable {
    /// Code run after every successful (re)connect, once the subscriptions are acknowledged
    /// (the Bambu adapter sends `pushall` here). Runs in its own task; it may publish.
    public typealias ConnectHook = @Sendable (MQTTSession) async -> Void

    /// The configuration this session was created with.
    public let configuration: MQTTSessionConfiguration
    /// Every message received on the subscriptions, in arrival order. Finishes at shutdown. One
    /// consumer; when it falls `inboundBufferLimit` messages behind, the oldest are dropped and
    /// counted in `status.droppedMessages`.
    public let messages: AsyncStream<MQTTMessage>

    let logger: Logger
    let onConnect: ConnectHook?
    let pins: TrustOnFirstUsePinStore?
    let classifier: MQTTFailureClassifier
    let inbound: AsyncStream<MQTTMessage>.Continuation
    let state = Mutex(MQTTSessionState())

    /// Validates `configuration` and prepares the session; nothing connects before `start()`.
    ///
    /// - Parameters:
    ///   - configuration: broker, credentials, TLS mode, subscriptions.
    ///   - pinStore: where trust-on-first-use pins are kept (required for `.trustOnFirstUse`).
    ///   - logger: where connection events go; the password is registered with its redactor.
    ///   - onConnect: run after every (re)connect once subscriptions are acknowledged.
    public init(
        configuration: MQTTSessionConfiguration, pinStore: (any StateStore)? = nil, logger: Logger = .disabled,
        onConnect: ConnectHook? = nil
    ) throws(MQTTSessionError) {
        try configuration.validate()
        if case .trustOnFirstUse = configuration.security {
            guard let pinStore else {
                throw MQTTSessionError(
                    code: .invalidConfiguration,
                    message: "trust-on-first-use for \(configuration.endpoint) needs a state store to remember the "
                        + "certificate fingerprint")
            }
            pins = TrustOnFirstUsePinStore(store: pinStore, identity: configuration.pinIdentity)
        } else {
            pins = nil
        }
        if let password = configuration.password {
            logger.redactor.register(password)
            Redactor.shared.register(password)
        }
        self.configuration = configuration
        self.logger = logger.child("mqtt", metadata: [("broker", configuration.endpoint)])
        self.onConnect = onConnect
        classifier = MQTTFailureClassifier(
            host: configuration.host, endpoint: configuration.endpoint, username: configuration.username,
            keepAlive: configuration.keepAlive,
            maximumDelay: configuration.reconnect.maximumDelay)
        (messages, inbound) = AsyncStream.makeStream(
            of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(configuration.inboundBufferLimit))
    }

    /// The current status snapshot (state, last error, counters).
    public var status: MQTTSessionStatus {
        state.withLock { $0.status }
    }

    /// A stream of status snapshots: the current one first, then every change; finishes after
    /// `closed`. Any number of observers (health endpoint, tests).
    public func statusUpdates() -> AsyncStream<MQTTSessionStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTSessionStatus.self, bufferingPolicy: .bufferingNewest(256))
        let registered: UInt64? = state.withLock { state in
            continuation.yield(state.status)
            if state.phase == .finished { return nil }
            state.nextObserverID += 1
            state.observers[state.nextObserverID] = continuation
            return state.nextObserverID
        }
        guard let registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: registered) }
        }
        return stream
    }

    /// Creates the libmosquitto client and the TLS context and starts the network thread.
    ///
    /// Returns at once; the first attempt runs in the background and is retried while the broker
    /// is unreachable. Throws for problems no retry can fix (unreadable CA file, library failure)
    /// or when called twice.
    public func start() throws(MQTTSessionError) {
        guard MQTTLibrary.initialize() else {
            throw MQTTSessionError(code: .invalidConfiguration, message: "libmosquitto could not be initialised")
        }
        let claimed = state.withLock { state -> Bool in
            guard state.phase == .idle, !state.stopRequested else { return false }
            state.phase = .starting
            return true
        }
        guard claimed else {
            throw MQTTSessionError(
                code: .invalidConfiguration, message: "MQTT session for \(configuration.endpoint) was already started")
        }
        let client: MQTTNativeClient
        do {
            client = try makeNativeClient()
        } catch {
            state.withLock { $0.phase = .idle }
            throw error
        }
        var cancelled = false
        updateStatus { state in
            cancelled = state.stopRequested
            guard !cancelled else { return }
            state.phase = .running
            state.client = client
            state.status.state = .connecting
        }
        if cancelled {
            // shutdown() ran while the client was being created; it already closed the session.
            client.destroy()
            client.tls?.release()
            client.wake.close()
            return
        }
        logger.info(
            "starting MQTT session", ["client": configuration.clientID, "security": "\(configuration.security)"])
        // Detached: the loop owns the client and frees it when it ends (`shutdown()` waits for that).
        guard let thread = HTTPIOThread(name: "lb-mqtt", { [self] in self.runNetworkLoop(client) }) else {
            fatalError("cannot start the MQTT network thread (thread limit reached)")
        }
        thread.detach()
    }

    /// Publishes a message and waits until libmosquitto wrote it (QoS 0) or the broker
    /// acknowledged it (QoS 1: PUBACK, QoS 2: PUBCOMP).
    ///
    /// Throws `notConnected` when the session is not connected (nothing is queued for later),
    /// `connectionLost` when the link dropped before the acknowledgement (the library may still
    /// deliver a QoS 1/2 message after reconnecting), `cancelled`, `shutDown` or `publishFailed`.
    public func publish(
        topic: String, payload: [UInt8], qos: MQTTQualityOfService = .atMostOnce, retain: Bool = false
    ) async throws(MQTTSessionError) {
        guard MQTTTopic.isValidName(topic) else {
            throw MQTTSessionError(
                code: .publishFailed,
                message:
                    "cannot publish to \"\(topic)\": a topic name must be non-empty and contain no + or # wildcards")
        }
        guard payload.count <= 268_435_455 else {
            throw MQTTSessionError(code: .publishFailed, message: "MQTT payload of \(payload.count) bytes is too large")
        }
        if Task.isCancelled {
            throw MQTTSessionError(code: .cancelled, message: "the publish to \(topic) was cancelled")
        }
        let client: MQTTNativeClient? = state.withLock { state in
            guard state.linkUp, !state.stopRequested, let client = state.client else { return nil }
            state.acknowledgements.beginCall()
            return client
        }
        guard let client else {
            let current = status.state
            throw MQTTSessionError(
                code: current == .closed ? .shutDown : .notConnected,
                message: "cannot publish to \(topic): not connected to \(configuration.endpoint) (\(current))")
        }
        var mid: Int32 = 0
        let code: Int32? = client.withLiveHandle { handle in
            payload.withUnsafeBytes { bytes in
                mosquitto_publish(
                    handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos.rawValue), retain)
            }
        }
        guard let code, code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            state.withLock { $0.acknowledgements.abandonCall() }
            if code == nil {
                throw MQTTSessionError(
                    code: .shutDown, message: "cannot publish to \(topic): the session was shut down")
            }
            if code == Int32(MOSQ_ERR_NO_CONN.rawValue) {
                throw MQTTSessionError(
                    code: .notConnected,
                    message: "cannot publish to \(topic): not connected to \(configuration.endpoint)")
            }
            throw MQTTSessionError(
                code: .publishFailed,
                message: "cannot publish to \(topic): \(MQTTFailureClassifier.libraryMessage(code ?? -1))")
        }
        let messageID = mid
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Void, MQTTSessionError>, Never>) in
                let registration = state.withLock { $0.acknowledgements.register(messageID, continuation) }
                if case .settled(let result) = registration {
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.acknowledgements.cancel(messageID) }
            waiter?.resume(
                returning: .failure(MQTTSessionError(code: .cancelled, message: "the publish was cancelled")))
        }
        try result.get()
    }

    /// Publishes UTF-8 text (a JSON request).
    public func publish(
        topic: String, text: String, qos: MQTTQualityOfService = .atMostOnce, retain: Bool = false
    ) async throws(MQTTSessionError) {
        try await publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// Disconnects cleanly and releases everything: sends DISCONNECT when connected, stops the
    /// network thread, destroys the libmosquitto object, frees the TLS context, finishes
    /// `messages` and the status streams, and fails waiting publishes with `shutDown`.
    ///
    /// Idempotent. Waits for the network thread; if it is inside a blocking TCP connect to a host
    /// that does not answer, that takes until the kernel gives up on the connect.
    public func shutdown() async {
        let (client, wasLinkUp, hooks, finishedAlready) = state.withLock {
            state -> (MQTTNativeClient?, Bool, [Task<Void, Never>], Bool) in
            state.stopRequested = true
            let hooks = state.hookTasks
            state.hookTasks.removeAll()
            return (state.client, state.linkUp, hooks, state.phase == .finished)
        }
        for hook in hooks { hook.cancel() }
        if finishedAlready { return }
        guard let client else {
            // Never started: nothing native exists.
            finishSession(client: nil)
            return
        }
        client.wake.signal()
        if wasLinkUp {
            _ = client.withLiveHandle { mosquitto_disconnect($0) }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state -> Bool in
                if state.phase == .finished { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Publishes waiting for their acknowledgement (for tests and diagnostics).
    var publishesAwaitingAcknowledgement: Int {
        state.withLock { $0.acknowledgements.waitingCount }
    }

    /// Applies `change` under the lock and sends the new status to every observer.
    func updateStatus(_ change: (inout MQTTSessionState) -> Void) {
        state.withLock { state in
            let before = state.status
            change(&state)
            if state.status != before {
                for observer in state.observers.values { observer.yield(state.status) }
            }
        }
    }
}
