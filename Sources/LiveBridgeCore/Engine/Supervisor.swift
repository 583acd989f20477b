/// Runs every adapter concurrently and restarts the ones that throw, with backoff.
///
/// Stopping is task cancellation, as in swift-service-lifecycle: cancel the task running
/// `run()` and every adapter's `run` is cancelled with it.
public struct Supervisor: Sendable {
    /// An adapter and the context it runs with.
    public struct Entry: Sendable {
        public var adapter: any Adapter
        public var context: AdapterContext

        public init(adapter: any Adapter, context: AdapterContext) {
            self.adapter = adapter
            self.context = context
        }
    }

    public var entries: [Entry]
    /// First restart delay in seconds (doubles to `maximumBackoff`).
    public var initialBackoff: Double = 1
    /// Longest restart delay in seconds.
    public var maximumBackoff: Double = 60

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Runs until cancelled.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for entry in entries {
                group.addTask { await supervise(entry) }
            }
        }
    }

    private func supervise(_ entry: Entry) async {
        let context = entry.context
        var backoff = Backoff(initial: initialBackoff, maximum: maximumBackoff)
        while !Task.isCancelled {
            let started = context.clock.now
            let failure: String?
            do {
                try await entry.adapter.run(context)
                if Task.isCancelled { return }
                failure = nil
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                failure = "\(error)"
            }
            // A run longer than the longest delay was a working adapter: its restart is quick again.
            if context.clock.now - started > maximumBackoff { backoff.reset() }
            let delay = backoff.attemptFailed()
            if let failure {
                context.health.set(.error, failure)
                context.logger.error("adapter failed; restarting", ["error": failure, "in_s": String(Int(delay))])
            } else {
                context.logger.notice("adapter returned; restarting")
            }
            context.metrics.increment("livebridge_adapter_restarts_total", ["source": context.name])
            do {
                try await context.clock.sleep(for: delay)
            } catch {
                return
            }
        }
    }
}
