import LiveBridgeCore
import LiveBridgeNet

extension SinkError {
    /// A transport error from an HTTP push service: misconfiguration (TLS, pin, URL) stops the sink
    /// until the configuration is fixed; the rest (refused, timeout, DNS…) is retried.
    static func transport(_ error: HTTPClientError, service: String, baseURL: String) -> SinkError {
        switch error.code {
        case .tls, .pinMismatch:
            return SinkError(
                .authentication, code: error.code.description, message: "TLS to \(baseURL) failed: \(error.message)")
        case .invalidURL, .invalidRequest:
            return SinkError(
                .authentication, code: error.code.description, message: "invalid \(service) URL: \(error.message)")
        default:
            return SinkError(.unavailable, code: error.code.description, message: error.message)
        }
    }
}
