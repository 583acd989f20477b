import LiveBridgeCore
import LiveBridgeNet

extension SinkError {
    /// What every HTTP sink does with an error answer it has no reading of its own for: a 429
    /// waits `retryAfter` (the service's own, else its `Retry-After` header, else a minute), a
    /// 5xx is the service being unavailable (delivery retries, the breaker counts it), anything
    /// else refuses this one request. `subject` names the activity (" for washer").
    static func httpStatus(
        _ response: HTTPResponse, code: String?, summary: String, subject: String, retryAfter: Double? = nil
    ) -> SinkError {
        switch response.status {
        case 429:
            let header = response.headers.first(name: "Retry-After").flatMap { Double($0.trimmingHTTPWhitespace()) }
            return SinkError(
                .rateLimited(retryAfter: retryAfter ?? header ?? 60), code: code, status: 429,
                message: "rate limited (\(summary))")
        case 500...599:
            return SinkError(.unavailable, code: code, status: response.status, message: "server error: \(summary)")
        default:
            return SinkError(.rejected, code: code, status: response.status, message: "refused\(subject): \(summary)")
        }
    }
}
