import CMosquitto
import LiveBridgeFoundation
import Synchronization

/// libmosquitto client creation and its C callbacks.
///
/// Callbacks run on the session's network thread inside `mosquitto_loop`. They are non-capturing
/// closures declared here (a nonisolated type, never `@MainActor` code), recover the session from
/// the unretained `userdata` pointer, never block, and hand results on through the session's
/// mutex, continuations and `AsyncStream`s. The session outlives the client: the network thread
/// holds it strongly until after `mosquitto_destroy`.
extension MQTTSession {
    /// Creates the libmosquitto object, wires callbacks, credentials and TLS.
    func makeNativeClient() throws(MQTTSessionError) -> MQTTNativeClient {
        let tls = try makeTLSContext()
        guard let wake = MQTTWakeSignal() else {
            tls?.release()
            throw MQTTSessionError(
                code: .invalidConfiguration, message: "cannot create a wake-up pipe (out of file descriptors?)")
        }
        guard let handle = mosquitto_new(configuration.clientID, true, Unmanaged.passUnretained(self).toOpaque())
        else {
            tls?.release()
            wake.close()
            throw MQTTSessionError(code: .invalidConfiguration, message: "libmosquitto could not create a client")
        }
        func fail(_ message: String) -> MQTTSessionError {
            mosquitto_destroy(handle)
            tls?.release()
            wake.close()
            return MQTTSessionError(code: .invalidConfiguration, message: message)
        }
        // We drive mosquitto_loop from our own thread; publishes from other threads must only queue.
        guard mosquitto_threaded_set(handle, true) == Self.success else {
            throw fail("libmosquitto refused threaded mode")
        }
        if let username = configuration.username,
            mosquitto_username_pw_set(handle, username, configuration.password) != Self.success
        {
            throw fail("libmosquitto refused the MQTT user name for \(configuration.endpoint)")
        }
        if let will = configuration.will {
            let code = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue), will.retained)
            }
            guard code == Self.success else {
                throw fail("libmosquitto refused the last will for \(will.topic)")
            }
        }
        if let tls {
            // Our context, our policy: WITH_DEFAULTS 0 keeps libmosquitto from touching it (with the
            // default 1 and no CA file, connect fails with MOSQ_ERR_INVAL). MOSQ_OPT_SSL_CTX takes a
            // reference of its own.
            guard mosquitto_void_option(handle, MOSQ_OPT_SSL_CTX, UnsafeMutableRawPointer(tls.context)) == Self.success,
                mosquitto_int_option(handle, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 0) == Self.success
            else {
                throw fail("libmosquitto refused the TLS context for \(configuration.endpoint)")
            }
        }
        mosquitto_connect_callback_set(handle, Self.connectCallback)
        mosquitto_subscribe_callback_set(handle, Self.subscribeCallback)
        mosquitto_message_callback_set(handle, Self.messageCallback)
        mosquitto_publish_callback_set(handle, Self.publishCallback)
        mosquitto_log_callback_set(handle, Self.logCallback)
        return MQTTNativeClient(mosquitto: handle, tls: tls, wake: wake)
    }

    private func makeTLSContext() throws(MQTTSessionError) -> TLSClientContext? {
        let policy: TLSPeerVerifier.Policy
        var caFile: String?
        var verifiedHost: String?
        switch configuration.security {
        case .plaintext:
            return nil
        case .certificateAuthority(let file, let verifyHostname):
            policy = .chain
            caFile = file
            verifiedHost = verifyHostname ? configuration.host : nil
        case .pinnedCertificate(let fingerprint):
            policy = .pinned(fingerprint)
        case .trustOnFirstUse:
            guard let pins else {
                throw MQTTSessionError(code: .invalidConfiguration, message: "trust-on-first-use needs a state store")
            }
            policy = .trustOnFirstUse(pins)
        case .insecure:
            policy = .acceptAnything
        }
        do {
            return try TLSClientContext(
                policy: policy, caFile: caFile, verifiedHost: verifiedHost, versions: configuration.tlsVersions)
        } catch {
            throw MQTTSessionError(
                code: .invalidConfiguration, message: "TLS setup for \(configuration.endpoint): \(error.message)")
        }
    }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

    private static func session(_ context: UnsafeMutableRawPointer?) -> MQTTSession? {
        context.map { Unmanaged<MQTTSession>.fromOpaque($0).takeUnretainedValue() }
    }

    static let connectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        handle, context, code in
        guard let handle, let session = session(context) else { return }
        session.didConnect(handle, code: code)
    }

    static let subscribeCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
            _, context, mid, count, granted in
            guard let session = session(context) else { return }
            let grants = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))) } ?? []
            session.didSubscribe(mid: mid, granted: grants)
        }

    static let messageCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
            _, context, message in
            guard let session = session(context), let message else { return }
            session.didReceive(message.pointee)
        }

    static let publishCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, context, mid in
        guard let session = session(context) else { return }
        let waiter = session.state.withLock { $0.acknowledgements.acknowledge(mid) }
        waiter?.resume(returning: .success(()))
    }

    static let logCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
            _, context, level, text in
            guard let session = session(context), let text else { return }
            session.didLog(level: level, String(cString: text))
        }

    /// `on_connect`: CONNACK arrived. On success: record a first-use pin, renew subscriptions,
    /// schedule the hook. On refusal: remember the code (the loop then fails the attempt).
    private func didConnect(_ handle: OpaquePointer, code: Int32) {
        guard code == 0 else {
            state.withLock { $0.attempt.connackCode = Int(code) }
            return
        }
        let verification = state.withLock { $0.client?.tls?.verifier.lastVerification }
        if let verification, verification.acceptedOnFirstUse, let presented = verification.presented, let pins {
            do {
                try pins.record(presented)
                logger.notice(
                    "trusting the broker's TLS certificate on first use",
                    ["sha256": presented.colonHex, "pin": pins.location])
            } catch {
                logger.error(
                    "cannot store the trust-on-first-use pin; it protects only this process until it can be written",
                    ["sha256": presented.colonHex, "error": error.description])
            }
        }
        if case .insecure = configuration.security {
            logger.warning(
                "TLS certificate verification is disabled for this broker (insecure); anyone on the network path "
                    + "can impersonate it", ["sha256": verification?.presented?.colonHex ?? "none"])
        }
        var pending: [Int32: MQTTSubscription] = [:]
        for subscription in configuration.subscriptions {
            var mid: Int32 = 0
            let result = mosquitto_subscribe(
                handle, &mid, subscription.topicFilter, Int32(subscription.qos.rawValue))
            if result == Self.success {
                pending[mid] = subscription
            } else {
                logger.error(
                    "cannot subscribe",
                    [
                        "topic": subscription.topicFilter,
                        "error": MQTTFailureClassifier.libraryMessage(result),
                    ])
            }
        }
        let now = SystemClock().now
        var runHook = false
        updateStatus { state in
            state.linkUp = true
            state.pendingSubscriptions = pending
            state.hookPending = onConnect != nil && !pending.isEmpty
            runHook = onConnect != nil && pending.isEmpty
            state.status.state = .connected
            state.status.connections += 1
            state.status.connectedSince = now
            state.status.retryDelay = nil
            state.status.peerCertificate = verification?.presented ?? state.status.peerCertificate
            state.lastLoggedFailure = nil
        }
        logger.info(
            "connected", ["subscriptions": "\(pending.count)", "tls": verification?.presented?.colonHex ?? "off"])
        if runHook { startHook() }
    }

    /// `on_subscribe`: a SUBACK. When the last one of this connection arrives, the hook runs.
    private func didSubscribe(mid: Int32, granted: [Int32]) {
        var runHook = false
        let subscription: MQTTSubscription? = state.withLock { state in
            let subscription = state.pendingSubscriptions.removeValue(forKey: mid)
            if state.pendingSubscriptions.isEmpty && state.hookPending && state.linkUp {
                state.hookPending = false
                runHook = true
            }
            return subscription
        }
        if let subscription, granted.contains(where: { $0 == 0x80 || $0 < 0 }) {
            logger.warning(
                "the broker refused a subscription (not allowed for this user?)", ["topic": subscription.topicFilter])
        } else if let subscription {
            logger.debug(
                "subscribed", ["topic": subscription.topicFilter, "granted": granted.map(String.init).joined()])
        }
        if runHook { startHook() }
    }

    private func startHook() {
        guard let onConnect else { return }
        let task = Task { [self] in
            await onConnect(self)
        }
        state.withLock { state in
            state.hookTasks.removeAll { $0.isCancelled }
            if state.hookTasks.count >= 4 { state.hookTasks.removeFirst() }
            state.hookTasks.append(task)
            if state.stopRequested { task.cancel() }
        }
    }

    /// `on_message`: copy topic and payload out of libmosquitto's buffers and yield.
    private func didReceive(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        if let bytes = message.payload, message.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
        }
        let qos = MQTTQualityOfService(rawValue: Int(message.qos)) ?? .atMostOnce
        let result = inbound.yield(MQTTMessage(topic: topic, payload: payload, qos: qos, retained: message.retain))
        if case .dropped = result {
            var count = 0
            updateStatus { state in
                state.status.droppedMessages += 1
                count = state.status.droppedMessages
            }
            if count == 1 || count % 1000 == 0 {
                logger.warning("the consumer is behind; dropping the oldest MQTT messages", ["dropped": "\(count)"])
            }
        }
    }

    /// `on_log`: errors are kept for the attempt's error message (OpenSSL reasons reach us only
    /// here); everything is forwarded to the logger at a low level.
    private func didLog(level: Int32, _ text: String) {
        if level & Int32(MOSQ_LOG_ERR) != 0 {
            state.withLock { state in
                if state.attempt.libraryErrors.count >= 8 { state.attempt.libraryErrors.removeFirst() }
                state.attempt.libraryErrors.append(text)
            }
            logger.debug("libmosquitto error", ["detail": text])
        } else if level & Int32(MOSQ_LOG_WARNING) != 0 {
            logger.warning("libmosquitto warning", ["detail": text])
        } else {
            logger.trace("libmosquitto", ["detail": text])
        }
    }
}
