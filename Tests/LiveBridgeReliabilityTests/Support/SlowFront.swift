import Foundation
import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// An HTTP front in front of a fake push service that can answer slower than any client waits.
///
/// While `delay` is set, each request is held that many real seconds before it is forwarded; a
/// client that gives up first (its timeout) hangs up, the server cancels the handler, and the
/// request is never forwarded — the service never saw it. With `delay` nil requests pass through
/// at once. It notes when each request arrived, to show the client never piles requests up
/// behind a slow one.
final class SlowFront: Sendable {
    private struct State {
        var delay: Double?
        var arrived = 0
        var forwarded = 0
        var abandoned = 0
        var arrivals: [ContinuousClock.Instant] = []
    }

    let upstream: String
    private let state = Mutex(State())
    private let server = Mutex<HTTPServer?>(nil)

    init(upstream: String) throws {
        self.upstream = upstream
        let created = try HTTPServer(address: "127.0.0.1:0") { [weak self] request in
            guard let self else { return .dropConnection }
            return await self.forward(request)
        }
        server.withLock { $0 = created }
    }

    var baseURL: String { "http://127.0.0.1:\(server.withLock { $0?.port ?? 0 })" }

    /// Hold every request this long (real seconds) before forwarding; nil = no delay.
    func setDelay(_ seconds: Double?) { state.withLock { $0.delay = seconds } }

    /// Requests that reached the front / were forwarded / were abandoned by the client while held.
    var counts: (arrived: Int, forwarded: Int, abandoned: Int) {
        state.withLock { ($0.arrived, $0.forwarded, $0.abandoned) }
    }

    /// Real seconds between consecutive arrivals.
    var arrivalGaps: [Double] {
        let arrivals = state.withLock { $0.arrivals }
        return zip(arrivals.dropFirst(), arrivals).map { later, earlier in
            let gap = later - earlier
            return Double(gap.components.seconds) + Double(gap.components.attoseconds) / 1e18
        }
    }

    func shutdown() { server.withLock { $0?.shutdown() } }

    private func forward(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let delay = state.withLock { state -> Double? in
            state.arrived += 1
            if state.delay != nil { state.arrivals.append(ContinuousClock.now) }
            return state.delay
        }
        if let delay {
            do {
                try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            } catch {
                state.withLock { $0.abandoned += 1 }
                return .dropConnection
            }
        }
        state.withLock { $0.forwarded += 1 }
        var headers = HTTPHeaders()
        for field in request.headers where !["host", "content-length", "connection"].contains(field.name.lowercased()) {
            headers.add(name: field.name, value: field.value)
        }
        do {
            let response = try await HTTPClient.shared.execute(
                HTTPRequest(
                    method: request.method, url: upstream + request.target, headers: headers,
                    body: request.body.isEmpty ? nil : request.body, connectTimeout: 5, timeout: 10))
            var answer = HTTPServerResponse(status: response.status, body: response.body)
            for field in response.headers
            where !["content-length", "connection", "transfer-encoding"].contains(field.name.lowercased()) {
                answer.headers.add(name: field.name, value: field.value)
            }
            return answer
        } catch {
            return .dropConnection
        }
    }
}
