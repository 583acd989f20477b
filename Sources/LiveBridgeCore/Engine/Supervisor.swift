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
        var backoff = initialBackoff
        while !Task.isCancelled {
            let started = context.clock.now
            do {
                try await entry.adapter.run(context)
                if Task.isCancelled { return }
                context.logger.notice("adapter returned; restarting")
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                let message = "\(error)"
                context.health.set(.error, message)
                context.logger.error("adapter failed; restarting", ["error": message, "in_s": String(Int(backoff))])
            }
            context.metrics.increment("livebridge_adapter_restarts_total", ["source": context.name])
            if context.clock.now - started > maximumBackoff { backoff = initialBackoff }
            do {
                try await context.clock.sleep(for: backoff)
            } catch {
                return
            }
            backoff = min(maximumBackoff, backoff * 2)
        }
    }
}
