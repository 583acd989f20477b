import LiveBridgeCore
import LiveBridgeNet

/// The service's error answers: what each means for delivery, and refusals said once.
extension StateObjectSink {
    /// Maps an error answer (the service's error table, and the reactions the project chose).
    func classify(_ response: HTTPResponse, problem: StateObjectProblem, slug: String?) -> SinkError {
        let subject = slug.map { " for \($0)" } ?? ""
        let summary = problem.summary
        let code = problem.messages.first
        switch response.status {
        case 401:
            let hint =
                problem.has("API_KEY_REQUIRED")
                ? "the service received no API key — set \(configuration.keyPath)"
                    + (configuration.apiKeyHeader.lowercased() == "x-api-key"
                        ? "" : " (sent as \(configuration.apiKeyHeader))")
                : "the service refused the API key — check \(configuration.keyPath)"
            return SinkError(
                .authentication, code: code ?? "INVALID_API_KEY", status: 401, message: "\(hint) (\(summary))")
        case 402 where problem.has("FREE_TIER_LIMIT_REACHED"):
            let reset = CivilTime(unixSeconds: clock.now).startOfNextMonth
            return SinkError(
                .quotaExhausted(until: reset), code: "FREE_TIER_LIMIT_REACHED", status: 402,
                message: StateObjectQuota.message(name: name, until: reset))
        case 404:
            return SinkError(
                .rejected, code: code, status: 404,
                message:
                    "not found\(subject): \(summary) — check the sink's paths (a route may differ from the default)")
        default:
            return .httpStatus(response, code: code, summary: summary, subject: subject)
        }
    }

    /// Logs a refused call: an error the first time this answer is seen, debug after (at most 64
    /// remembered).
    func logRefusal(_ error: SinkError) {
        let key = "\(error.status ?? 0) \(error.message)"
        if loggedRefusals.count >= 64 { loggedRefusals.removeAll() }
        if loggedRefusals.insert(key).inserted {
            logger.error("state-object service refused a call", ["sink": name, "error": error.description])
        } else {
            logger.debug("state-object service refused a call again", ["sink": name, "error": error.description])
        }
    }
}
