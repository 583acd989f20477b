import CCurl
import CLiveBridgeShims
public import LiveBridgeFoundation
import Synchronization

/// The libcurl HTTP client: one owned I/O thread drives one curl multi handle for every request.
///
/// Callers `await` on continuations, so any number of concurrent requests cost no pool threads;
/// the I/O thread loops `curl_multi_perform` → `curl_multi_info_read` → `curl_multi_poll`, and
/// new work or cancellations arrive through a mutex-guarded queue plus `curl_multi_wakeup`.
/// An instance lives until `shutdown()`; `shared` is the process-wide one.
public final class HTTPClient: HTTPTransport, Sendable {
    /// Tunables of the whole client (per-request limits live on `HTTPRequest`).
    public struct Configuration: Sendable {
        /// Most simultaneous connections to one host; further requests wait inside libcurl.
        /// 0 means unlimited.
        public var maxConnectionsPerHost: Int
        /// Most idle connections kept for reuse.
        public var maxCachedConnections: Int

        /// Defaults: 16 connections per host, 32 cached connections.
        public init(maxConnectionsPerHost: Int = 16, maxCachedConnections: Int = 32) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
        }
    }

    /// The process-wide client. Do not shut it down while other components may still use it.
    public static let shared = HTTPClient()

    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        /// Set by `shutdown()`: no new requests are accepted.
        var isShuttingDown = false
        /// Set by the I/O thread right before `curl_multi_cleanup`: the multi handle is gone.
        var isMultiClosed = false
    }

    /// Owned by the I/O thread, except `curl_multi_wakeup`, which is thread-safe and only called
    /// under the `inbox` lock while `isMultiClosed` is false.
    private nonisolated(unsafe) let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let ioThread = Mutex<HTTPIOThread?>(nil)
    private let logger: Logger

    /// Starts a client with its own I/O thread.
    ///
    /// Traps when libcurl cannot be initialised or the thread cannot start: both mean the
    /// process is out of resources at start-up.
    public init(configuration: Configuration = Configuration(), logger: Logger = .disabled) {
        guard NetworkLibraries.initialize(), let multi = curl_multi_init() else {
            fatalError("libcurl could not be initialised (out of memory?)")
        }
        self.multi = multi
        self.logger = logger
        _ = lb_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = lb_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
        guard let thread = HTTPIOThread(name: "lb-http-client", { [self] in runLoop() }) else {
            fatalError("the HTTP client thread could not be started")
        }
        ioThread.withLock { $0 = thread }
    }

    /// Performs `request`; see `HTTPTransport.execute(_:)`.
    ///
    /// Cancelling the calling task removes the transfer from libcurl (the connection is closed)
    /// and throws `HTTPClientError.Code.cancelled`.
    public func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        if let invalid = CurlTransfer.validate(request) {
            throw invalid
        }
        let transfer = CurlTransfer(request: request)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                if !submit(.add(transfer)) {
                    transfer.finish(.failure(Self.shutdownError(request)))
                }
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
            _ = submit(.cancel(transfer))
        }
        return try outcome.get()
    }

    /// Fails every pending request with `clientShutdown`, stops the I/O thread and waits for it.
    ///
    /// Idempotent. Blocks only while the I/O thread finishes its current step (milliseconds).
    public func shutdown() {
        let thread: HTTPIOThread? = inbox.withLock { state in
            guard !state.isShuttingDown else { return nil }
            state.isShuttingDown = true
            if !state.isMultiClosed {
                _ = curl_multi_wakeup(multi)
            }
            return ioThread.withLock { $0.take() }
        }
        guard let thread, !thread.isCurrent else { return }
        thread.join()
    }

    /// Queues a command and wakes the I/O thread; false when the client is shut down.
    private func submit(_ command: Command) -> Bool {
        inbox.withLock { state in
            guard !state.isShuttingDown else { return false }
            state.commands.append(command)
            _ = curl_multi_wakeup(multi)
            return true
        }
    }

    private static func shutdownError(_ request: HTTPRequest) -> HTTPClientError {
        .about(request, .clientShutdown, "the HTTP client is shut down", hint: "use a running HTTPClient")
    }

    private static func cancelledError(_ request: HTTPRequest) -> HTTPClientError {
        .about(request, .cancelled, "the request was cancelled", hint: "nothing to do: the caller stopped waiting")
    }

    // MARK: - I/O thread

    private func runLoop() {
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        while true {
            let (commands, stopping) = inbox.withLock { state in
                defer { state.commands.removeAll(keepingCapacity: true) }
                return (state.commands, state.isShuttingDown)
            }
            if stopping { break }
            for command in commands {
                switch command {
                case .add(let transfer):
                    start(transfer, into: &active)
                case .cancel(let transfer):
                    guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { continue }
                    _ = curl_multi_remove_handle(multi, easy)
                    transfer.cleanup()
                    transfer.finish(.failure(Self.cancelledError(transfer.request)))
                }
            }

            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            if performed != CURLM_OK {
                logger.error("curl_multi_perform failed", ["error": String(cString: curl_multi_strerror(performed))])
            }
            collectFinished(from: &active)
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        stop(active: active)
    }

    private func start(_ transfer: CurlTransfer, into active: inout [UnsafeMutableRawPointer: CurlTransfer]) {
        if transfer.cancelRequested.load(ordering: .sequentiallyConsistent) {
            transfer.finish(.failure(Self.cancelledError(transfer.request)))
            return
        }
        if let error = transfer.prepare() {
            transfer.cleanup()
            transfer.finish(.failure(error))
            return
        }
        guard let easy = transfer.easy, curl_multi_add_handle(multi, easy) == CURLM_OK else {
            transfer.cleanup()
            transfer.finish(
                .failure(.about(transfer.request, .network, "libcurl refused the transfer", hint: "retry later")))
            return
        }
        active[easy] = transfer
    }

    private func collectFinished(from active: inout [UnsafeMutableRawPointer: CurlTransfer]) {
        while true {
            var queued: Int32 = 0
            guard let message = curl_multi_info_read(multi, &queued) else { return }
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // Copy out before remove_handle: the message does not survive it.
            let code = message.pointee.data.result
            guard let transfer = active.removeValue(forKey: easy) else { continue }
            let outcome = transfer.outcome(for: code)
            _ = curl_multi_remove_handle(multi, easy)
            transfer.cleanup()
            transfer.finish(outcome)
        }
    }

    private func stop(active: [UnsafeMutableRawPointer: CurlTransfer]) {
        let leftovers = inbox.withLock { state in
            state.isMultiClosed = true
            defer { state.commands.removeAll() }
            return state.commands
        }
        for (easy, transfer) in active {
            _ = curl_multi_remove_handle(multi, easy)
            transfer.cleanup()
            transfer.finish(.failure(Self.shutdownError(transfer.request)))
        }
        for case .add(let transfer) in leftovers {
            transfer.finish(.failure(Self.shutdownError(transfer.request)))
        }
        _ = curl_multi_cleanup(multi)
    }
}
