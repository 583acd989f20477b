import LiveBridgeCore
import LiveBridgeNet

/// The REST side of the adapter (`mode: "poll"`): `GET /api/states/<id>` for every watched
/// entity each `pollInterval`, fed to the same mapper as the WebSocket stream.
///
/// For setups where WebSocket is blocked: no resync problem (every poll is a full picture), more
/// load, changes seen up to one interval late, and no custom events (use the activities API).
struct HomeAssistantPoller {
    let configuration: HomeAssistantConfiguration
    let context: AdapterContext
    let transport: any HTTPTransport
    var mapper: HomeAssistantActivityMapper

    /// Runs until cancelled.
    mutating func run() async throws {
        var backoff = Backoff(reconnect: configuration.reconnect)
        var reportedMissing: Set<String> = []
        context.logger.info(
            "polling Home Assistant",
            [
                "url": configuration.url, "interval_s": String(configuration.pollInterval),
                "entities": String(mapper.watchedEntityIDs.count),
            ])
        while true {
            try Task.checkCancellation()
            var delay = configuration.pollInterval
            do {
                let (states, missing) = try await poll()
                for entity in missing.subtracting(reportedMissing).sorted() {
                    context.reportParseError(
                        "homeassistant \(configuration.name): \(entity) does not exist in Home Assistant (404); "
                            + "check the entity id in \(configuration.configPath).entities")
                }
                reportedMissing = missing
                let output = mapper.replaceStates(states, at: context.clock.now)
                for problem in output.problems {
                    context.reportParseError("homeassistant \(configuration.name): \(problem)")
                }
                for update in output.updates { await context.emit(update) }
                context.health.set(.ok)
                context.health.noteEvent()
                backoff = Backoff(reconnect: configuration.reconnect)
            } catch let error as HomeAssistantConnectionError where error.kind == .authenticationFailed {
                delay = configuration.authenticationRetryDelay
                let message = "\(error.description) Next attempt in \(HomeAssistantConnection.spoken(delay))."
                context.health.set(.error, message)
                context.logger.error(message, ["url": configuration.url])
            } catch {
                if Task.isCancelled { throw CancellationError() }
                delay = max(configuration.pollInterval, backoff.attemptFailed(permanent: false))
                context.health.set(.degraded, "\(error); next poll in \(HomeAssistantConnection.spoken(delay))")
                context.logger.warning("Home Assistant poll failed", ["error": "\(error)"])
            }
            try await context.clock.sleep(for: delay)
        }
    }

    /// One round of `GET /api/states/<id>`: the states found and the ids Home Assistant does not know.
    private func poll() async throws -> ([HomeAssistantEntityState], Set<String>) {
        var states: [HomeAssistantEntityState] = []
        var missing: Set<String> = []
        for entity in mapper.watchedEntityIDs {
            let response = try await HomeAssistantREST.get("/api/states/\(entity)", configuration, transport)
            switch response.status {
            case 200:
                let json = try JSONParser.parse(response.body)
                states.append(try HomeAssistantEntityState(full: json, path: "GET /api/states/\(entity)"))
            case 404:
                missing.insert(entity)
            default:
                throw HomeAssistantREST.failure(response, path: "/api/states/\(entity)", configuration)
            }
        }
        return (states, missing)
    }
}

/// Home Assistant's REST API, as far as LiveBridge uses it.
enum HomeAssistantREST {
    /// `GET path` with the bearer token.
    static func get(_ path: String, _ configuration: HomeAssistantConfiguration, _ transport: any HTTPTransport)
        async throws(HTTPClientError) -> HTTPResponse
    {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(configuration.token)")
        headers.add(name: "Accept", value: "application/json")
        return try await transport.execute(
            HTTPRequest(
                method: "GET", url: configuration.restURL(path), headers: headers, connectTimeout: 10, timeout: 20,
                maxResponseBytes: 4 << 20, tls: configuration.tls))
    }

    /// The error for an unexpected status: 401/403 is a configuration error.
    static func failure(_ response: HTTPResponse, path: String, _ configuration: HomeAssistantConfiguration)
        -> HomeAssistantConnectionError
    {
        if response.status == 401 || response.status == 403 {
            return HomeAssistantConnectionError(
                .authenticationFailed,
                "Home Assistant at \(configuration.url) refused the access token (HTTP \(response.status) on "
                    + "GET \(path)); create a long-lived access token on your Home Assistant profile page and set "
                    + "\(configuration.configPath).token.")
        }
        let body = String(response.text.prefix(200))
        return HomeAssistantConnectionError(
            .httpStatus,
            "Home Assistant at \(configuration.url) answered HTTP \(response.status) to GET \(path) (expected 200): \(body)"
        )
    }
}
