import Synchronization

/// One long-running part of the bridge (the engine, the control server, the adapters, a preview
/// page), run by a `ServiceGroup`.
public protocol Service: Sendable {
    /// For the log.
    var name: String { get }
    /// Brings it up; the group starts the next service once this returns.
    func start() async throws
    /// Runs until cancelled. The default waits for the cancellation.
    func run() async throws
    /// Brings it down, after `run` returned. Runs without the cancellation, so it may flush
    /// and wait (bounded by its own deadlines).
    func stop() async
}

extension Service {
    public func start() async throws {}

    public func run() async throws {
        await Task.waitForCancellation()
    }

    public func stop() async {}
}

/// Starts services in order, runs them concurrently, and when its task is cancelled (a signal,
/// or the embedding program) stops them in the reverse order, each after the ones started after
/// it have stopped: the adapters stop before the engine flushes, the engine before the server
/// that shows its health goes.
///
/// A service whose `start` throws stops the start-up: the ones already started are stopped in
/// reverse order and the error is thrown. A service whose `run` returns or throws early is
/// logged; the others keep running until the group is cancelled (the adapters restart
/// themselves under their `Supervisor`).
public struct ServiceGroup: Sendable {
    public var services: [any Service]
    public var logger: Logger

    public init(_ services: [any Service], logger: Logger = .disabled) {
        self.services = services
        self.logger = logger
    }

    /// Runs until cancelled, then stops every service; throws when one cannot start.
    public func run() async throws {
        var running: [(any Service, Task<Void, Never>)] = []
        var failure: (any Error)?
        for service in services {
            do {
                try Task.checkCancellation()
                try await service.start()
            } catch {
                failure = error
                break
            }
            let logger = self.logger
            let task = Task {
                do {
                    try await service.run()
                } catch is CancellationError {
                    return
                } catch {
                    if Task.isCancelled { return }
                    logger.error("service failed", ["service": service.name, "error": "\(error)"])
                    return
                }
                if !Task.isCancelled { logger.warning("service returned early", ["service": service.name]) }
            }
            running.append((service, task))
        }
        if failure == nil { await Task.waitForCancellation() }
        for (service, task) in running.reversed() {
            task.cancel()
            await task.value
            // Not cancelled: a stop may wait for its flush.
            await Task { await service.stop() }.value
        }
        if let failure { throw failure }
    }
}

extension Task where Success == Never, Failure == Never {
    /// Returns once the current task is cancelled.
    public static func waitForCancellation() async {
        let waiter = CancellationWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in waiter.wait(continuation) }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// Resumes one waiting continuation when cancelled, whichever comes first.
private final class CancellationWaiter: Sendable {
    private let state = Mutex<(cancelled: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}
