import Glibc
import LiveBridgeNet
import LiveBridgeTestSupport

/// SplitMix64: a tiny deterministic generator so codec tests and fuzzing are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a decoder produced from a byte stream: the events, then the error that stopped it.
struct DecodeOutcome: Equatable {
    var events: [WebSocketEvent]
    var error: WebSocketProtocolError?
}

/// Decodes `bytes` fed in pieces of the given sizes (cycled), or all at once when `chunkSizes` is empty.
func decodeAll(
    _ bytes: [UInt8], role: WebSocketRole = .client, chunkSizes: [Int] = [],
    maximumMessageSize: Int = WebSocketDecoder.defaultMaximumMessageSize
) -> DecodeOutcome {
    var decoder = WebSocketDecoder(role: role, maximumMessageSize: maximumMessageSize)
    var outcome = DecodeOutcome(events: [], error: nil)
    var offset = 0
    var chunkIndex = 0
    while offset < bytes.count {
        let size = chunkSizes.isEmpty ? bytes.count : max(1, chunkSizes[chunkIndex % chunkSizes.count])
        chunkIndex += 1
        let end = min(bytes.count, offset + size)
        decoder.append(contentsOf: Array(bytes[offset..<end]))
        offset = end
        do {
            while let event = try decoder.next() { outcome.events.append(event) }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    return outcome
}

/// Server-side (unmasked) encoding of several frames back to back.
func serverBytes(_ frames: [WebSocketFrame]) -> [UInt8] {
    frames.flatMap { WebSocketFrameEncoder.encodeServerFrame($0) }
}

/// A frame header with raw first and second bytes followed by `payload` (no mask).
func rawFrame(_ first: UInt8, _ second: UInt8, _ rest: [UInt8] = []) -> [UInt8] {
    [first, second] + rest
}

/// Collects a connection's inbound messages so tests can wait for them with a timeout.
final class ClientInbox: Sendable {
    /// The stream ended without an error (after our own close).
    struct EndedNormally: Error {}

    private let mailbox = WebSocketTestMailbox<WebSocketMessage>(label: "a message at the client")
    private let task: Task<Void, Never>

    init(_ connection: WebSocketConnection) {
        let mailbox = mailbox
        task = Task {
            do {
                for try await message in connection.messages { mailbox.put(message) }
                mailbox.finish(EndedNormally())
            } catch {
                mailbox.finish(error)
            }
        }
    }

    /// The next message.
    func next(timeout: Duration = .seconds(10)) async throws -> WebSocketMessage {
        try await mailbox.next(timeout: timeout)
    }

    /// The next message, which must be text.
    func nextText(timeout: Duration = .seconds(10)) async throws -> String {
        guard case .text(let text) = try await next(timeout: timeout) else {
            throw WebSocketTestServerError("expected a text message")
        }
        return text
    }

    /// Waits for the stream to end, skipping messages: nil when it ended normally, else its error.
    func end(timeout: Duration = .seconds(10)) async throws -> (any Error)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                _ = try await mailbox.next(timeout: max(.zero, ContinuousClock.now.duration(to: deadline)))
            } catch is EndedNormally {
                return nil
            } catch is WebSocketTestTimeout {
                throw WebSocketTestTimeout(what: "the client's message stream to end", timeout: timeout)
            } catch {
                return error
            }
        }
    }

    /// Waits for the stream to end with a `WebSocketError`.
    func endError(timeout: Duration = .seconds(10)) async throws -> WebSocketError {
        let error = try await end(timeout: timeout)
        guard let error = error as? WebSocketError else {
            throw WebSocketTestServerError(
                "expected the stream to end with a WebSocketError, got \(String(describing: error))")
        }
        return error
    }
}

/// Runs `body`, failing with `WebSocketTestTimeout` after `timeout` (the body is cancelled).
func withTimeout<T: Sendable>(
    _ timeout: Duration = .seconds(10), _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw WebSocketTestTimeout(what: what, timeout: timeout)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// A TCP port on 127.0.0.1 that is bound but not listening: connecting to it is refused.
/// Keep the returned descriptor open while the port must stay refused; close it afterwards.
func refusedPort() throws -> (port: Int, descriptor: Int32) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard fd >= 0, bound == 0 else { throw WebSocketTestServerError("could not bind a port") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (Int(UInt16(bigEndian: address.sin_port)), fd)
}
