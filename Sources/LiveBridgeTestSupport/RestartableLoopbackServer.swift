public import LiveBridgeNet
import Synchronization

/// An `HTTPServer` on 127.0.0.1 that a test can take down — connections refused, as from a stopped
/// service — and bring back on the same port: the listening part every fake service shares.
public final class RestartableLoopbackServer: Sendable {
    private struct State {
        var server: HTTPServer?
        var port: UInt16 = 0
        var handler: HTTPServer.Handler?
    }

    private let state = Mutex(State())

    /// Not listening yet: `start(port:handler:)` does (so the owner can hand over a handler that
    /// refers to itself once it is initialised).
    public init() {}

    /// Listens (port 0 = any free port) and keeps `handler` for `comeBack()`.
    public func start(port: UInt16 = 0, handler: @escaping HTTPServer.Handler) throws {
        state.withLock { $0.handler = handler }
        try listen(port: port, handler: handler)
    }

    /// The bound port, the same across `goDown()` / `comeBack()`.
    public var port: UInt16 { state.withLock { $0.port } }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Closes the socket: connections are refused until `comeBack()`.
    public func goDown() {
        let server = state.withLock { state -> HTTPServer? in
            defer { state.server = nil }
            return state.server
        }
        server?.shutdown()
    }

    /// Listens again on the same port (nothing happens before `start`).
    public func comeBack() throws {
        let (port, handler) = state.withLock { ($0.port, $0.handler) }
        guard let handler else { return }
        try listen(port: port, handler: handler)
    }

    private func listen(port: UInt16, handler: @escaping HTTPServer.Handler) throws {
        let server = try HTTPServer(address: "127.0.0.1:\(port)", handler: handler)
        state.withLock {
            $0.server = server
            $0.port = server.port
        }
    }
}

/// A fake service listening on a `RestartableLoopbackServer`: its port and URL, and the outages
/// a test stages.
public protocol LoopbackFake: AnyObject, Sendable {
    var loopback: RestartableLoopbackServer { get }
}

extension LoopbackFake {
    /// The bound port.
    public var port: UInt16 { loopback.port }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Closes the socket: connections are refused until `comeBack()`.
    public func goDown() { loopback.goDown() }

    /// Listens again on the same port.
    public func comeBack() throws { try loopback.comeBack() }

    /// Stops the server for good.
    public func shutdown() { goDown() }
}
