import FoundationEssentials
import LiveBridgeCore
import LiveBridgeNet

/// The WebSocket side of the adapter: connect, authenticate, subscribe, stream changes into the
/// mapper, and reconnect with backoff. The mapper lives across reconnects, so after every
/// reconnect the new snapshot (a full resync) is compared with what was known before.
///
/// Every command goes out from this one loop, so ids are allocated and written in order. A
/// refused token is a configuration error: it is reported once and retried only after
/// `authenticationRetryDelay` (failed logins count toward Home Assistant's IP ban).
struct HomeAssistantConnection {
    let configuration: HomeAssistantConfiguration
    let context: AdapterContext
    var mapper: HomeAssistantActivityMapper

    private enum Event: Sendable {
        case message(WebSocketMessage)
        case ended((any Error)?)
        case tick
    }

    /// Runs until cancelled.
    mutating func run() async throws {
        var backoff = Backoff(reconnect: configuration.reconnect)
        let logger = context.logger
        while true {
            try Task.checkCancellation()
            var establishedAt: Double?
            let delay: Double
            do {
                try await runConnection(establishedAt: &establishedAt)
                delay = backoff.connectionLost(after: 0)
            } catch let error as HomeAssistantConnectionError where error.kind == .authenticationFailed {
                delay = configuration.authenticationRetryDelay
                let message = "\(error.description) Next attempt in \(Self.spoken(delay))."
                context.health.set(.error, message)
                logger.error(message, ["url": configuration.url, "retry_in_s": String(Int(delay))])
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                if let establishedAt {
                    delay = backoff.connectionLost(after: context.clock.now - establishedAt)
                } else {
                    delay = backoff.attemptFailed(permanent: Self.isPermanent(error))
                }
                let message = "\(Redactor.shared.redact("\(error)")); reconnecting in \(Self.spoken(delay))"
                context.health.set(Self.isPermanent(error) ? .error : .degraded, message)
                logger.warning("Home Assistant connection ended", ["error": "\(error)", "retry_in_s": String(delay)])
            }
            context.metrics.increment("livebridge_homeassistant_reconnects_total", ["source": configuration.name])
            try await context.clock.sleep(for: delay)
        }
    }

    static func isPermanent(_ error: any Error) -> Bool {
        guard let error = error as? WebSocketError else { return false }
        return [.pinMismatch, .tlsFailure, .notAWebSocketEndpoint, .invalidConfiguration, .handshakeRejected]
            .contains(error.kind)
    }

    static func spoken(_ seconds: Double) -> String {
        seconds >= 120
            ? "\(Int((seconds / 60).rounded())) min" : "\(JSONWriter.string(.number((seconds * 10).rounded() / 10))) s"
    }

    /// One connection, from connect to its end (always by throwing).
    private mutating func runConnection(establishedAt: inout Double?) async throws {
        var socketConfiguration = WebSocketConfiguration(
            url: configuration.webSocketURL, pinnedPublicKey: configuration.tls.pinnedPublicKey,
            caFile: configuration.tls.caFile, connectTimeout: .seconds(10), handshakeTimeout: .seconds(10),
            pingInterval: .seconds(30))
        socketConfiguration.pongTimeout = .seconds(30)
        // A dead or silent peer should not hold up the reconnect for long.
        socketConfiguration.closeTimeout = .seconds(2)
        let connection = try await WebSocketConnection.connect(socketConfiguration, logger: context.logger)
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let reader = Task {
            do {
                for try await message in connection.messages { continuation.yield(.message(message)) }
                continuation.yield(.ended(nil))
            } catch {
                continuation.yield(.ended(error))
            }
            continuation.finish()
        }
        let tick = max(0.01, min(configuration.keepaliveInterval, configuration.setupTimeout) / 4)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(tick * 1000)))
                continuation.yield(.tick)
            }
        }
        do {
            try await converse(connection, events: events, establishedAt: &establishedAt)
        } catch {
            ticker.cancel()
            await connection.close(code: .goingAway)
            reader.cancel()
            throw error
        }
    }

    /// The message loop of one connection.
    private mutating func converse(
        _ connection: WebSocketConnection, events: AsyncStream<Event>, establishedAt: inout Double?
    ) async throws {
        var nextID = 0
        func send(_ command: HomeAssistantCommand) async throws -> Int {
            nextID += 1
            try await connection.send(text: command.text(id: nextID))
            return nextID
        }
        let name = configuration.name
        let setupDeadline = ContinuousClock.now + .milliseconds(Int(configuration.setupTimeout * 1000))
        let keepalive = Duration.milliseconds(Int(configuration.keepaliveInterval * 1000))
        var authenticated = false
        var entitiesID: Int?
        var eventsID: Int?
        var fallbackID: Int?
        var statesID: Int?
        var pending: Set<Int> = []
        var pingID: Int?
        var pingSentAt: ContinuousClock.Instant?
        var lastPing = ContinuousClock.now
        var version = "?"

        for await event in events {
            switch event {
            case .tick:
                let now = ContinuousClock.now
                if establishedAt == nil, now > setupDeadline {
                    throw HomeAssistantConnectionError(
                        .setupTimeout,
                        "Home Assistant at \(configuration.url) did not finish authentication and subscriptions within "
                            + "\(Self.spoken(configuration.setupTimeout)); check that \(configuration.configPath).url "
                            + "points at Home Assistant")
                }
                guard establishedAt != nil else { continue }
                if let sent = pingSentAt, now - sent > keepalive {
                    throw HomeAssistantConnectionError(
                        .keepaliveTimeout,
                        "Home Assistant at \(configuration.url) did not answer a ping within "
                            + "\(Self.spoken(configuration.keepaliveInterval)); the link is presumed dead")
                }
                if pingSentAt == nil, now - lastPing >= keepalive {
                    pingID = try await send(.ping)
                    pingSentAt = now
                    lastPing = now
                }
            case .ended(let error):
                if let error { throw error }
                throw HomeAssistantConnectionError(
                    .connectionEnded, "Home Assistant at \(configuration.url) closed the connection")
            case .message(.binary):
                continue
            case .message(.text(let text)):
                let frame = HomeAssistantFrame.decode(text)
                for problem in frame.problems {
                    context.reportParseError("homeassistant \(name): \(problem.description)")
                }
                if establishedAt != nil { context.health.noteEvent() }
                for message in frame.messages {
                    switch message {
                    case .authRequired:
                        guard !authenticated else { continue }
                        try await connection.send(text: HomeAssistantCommand.authentication(token: configuration.token))
                    case .authOK(let haVersion):
                        authenticated = true
                        version = haVersion ?? "?"
                        context.health.setDetail("haVersion", version)
                        _ = try await send(.coalesceMessages)
                        mapper.expectSnapshot()
                        let watched = mapper.watchedEntityIDs
                        if !watched.isEmpty {
                            let id = try await send(.subscribeEntities(watched))
                            entitiesID = id
                            pending.insert(id)
                        }
                        let id = try await send(.subscribeEvents(configuration.eventType))
                        eventsID = id
                        pending.insert(id)
                    case .authInvalid(let reason):
                        throw HomeAssistantConnectionError(
                            .authenticationFailed,
                            "Home Assistant at \(configuration.url) refused the access token (\"\(reason)\"); create a "
                                + "long-lived access token on your Home Assistant profile page and set "
                                + "\(configuration.configPath).token.")
                    case .result(let result):
                        guard let id = result.id else {
                            context.logger.warning(
                                "Home Assistant refused a message", ["error": result.errorMessage ?? "?"])
                            continue
                        }
                        pending.remove(id)
                        if id == entitiesID, !result.success {
                            guard result.errorCode == "unknown_command" else {
                                throw Self.rejected("subscribe_entities", result, configuration)
                            }
                            // Home Assistant before 2022.4: state_changed events plus a full get_states.
                            context.logger.notice("subscribe_entities unknown; falling back to state_changed events")
                            let subscribe = try await send(.subscribeEvents("state_changed"))
                            let states = try await send(.getStates)
                            fallbackID = subscribe
                            statesID = states
                            pending.formUnion([subscribe, states])
                        } else if id == eventsID, !result.success {
                            context.logger.warning(
                                "custom events unavailable",
                                ["event_type": configuration.eventType, "error": result.errorMessage ?? "?"])
                        } else if id == fallbackID, !result.success {
                            throw Self.rejected("subscribe_events state_changed", result, configuration)
                        } else if id == statesID {
                            guard result.success else { throw Self.rejected("get_states", result, configuration) }
                            var states: [HomeAssistantEntityState] = []
                            for (offset, item) in (result.value.arrayValue ?? []).enumerated() {
                                do throws(HomeAssistantDecodingError) {
                                    states.append(try HomeAssistantEntityState(full: item, path: "result[\(offset)]"))
                                } catch {
                                    context.reportParseError("homeassistant \(name): \(error.description)")
                                }
                            }
                            await deliver(mapper.replaceStates(states, at: context.clock.now))
                        }
                    case .pong(let id):
                        if id == pingID { pingSentAt = nil }
                    case .event:
                        await deliver(mapper.receive(message, at: context.clock.now))
                    case .other:
                        continue
                    }
                }
                if authenticated, establishedAt == nil, pending.isEmpty {
                    establishedAt = context.clock.now
                    lastPing = ContinuousClock.now
                    context.health.set(.ok)
                    context.health.noteEvent()
                    context.logger.info(
                        "subscribed to Home Assistant",
                        [
                            "url": configuration.url, "ha_version": version,
                            "entities": String(mapper.watchedEntityIDs.count),
                            "event_type": configuration.eventType,
                            "mode": fallbackID == nil ? "subscribe_entities" : "state_changed",
                        ])
                }
            }
        }
        throw CancellationError()
    }

    private static func rejected(
        _ command: String, _ result: HomeAssistantResult, _ configuration: HomeAssistantConfiguration
    ) -> HomeAssistantConnectionError {
        HomeAssistantConnectionError(
            .commandRejected,
            "Home Assistant at \(configuration.url) refused \(command): \(result.errorCode ?? "?") "
                + "\"\(result.errorMessage ?? "")\"; the token's user may lack permission")
    }

    private func deliver(_ output: HomeAssistantMapperOutput) async {
        for problem in output.problems {
            context.reportParseError("homeassistant \(configuration.name): \(problem)")
        }
        for update in output.updates {
            await context.emit(update)
        }
    }
}
