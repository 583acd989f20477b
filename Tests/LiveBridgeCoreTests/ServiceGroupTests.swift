import LiveBridgeCore
import Synchronization
import Testing

/// The service lifecycle: start in order, stop in reverse order on cancellation.
@Suite("Service group")
struct ServiceGroupTests {
    /// Records what happens to it in a shared journal.
    struct Recorder: Service {
        let name: String
        let journal: Journal
        var failsToStart = false

        func start() async throws {
            journal.add("start \(name)")
            if failsToStart { throw ServiceError(message: "\(name) cannot start") }
        }

        func run() async throws {
            journal.add("run \(name)")
            await Task.waitForCancellation()
        }

        func stop() async {
            journal.add("stop \(name)\(Task.isCancelled ? " (cancelled)" : "")")
        }
    }

    struct ServiceError: Error, Equatable {
        var message: String
    }

    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self)
        func add(_ entry: String) {
            entries.withLock { $0.append(entry) }
            continuation.yield()
        }
        var all: [String] { entries.withLock { $0 } }

        /// Waits (bounded by the test's time limit) until `condition` holds.
        func until(_ condition: ([String]) -> Bool) async {
            if condition(all) { return }
            for await _ in changes where condition(all) { return }
        }
    }

    @Test(
        "starts in order, runs all, and on cancellation stops in reverse order, each stop uncancelled",
        .timeLimit(.minutes(1)))
    func order() async throws {
        let journal = Journal()
        let group = ServiceGroup(["server", "engine", "adapters"].map { Recorder(name: $0, journal: journal) })
        let task = Task { try await group.run() }
        await journal.until { entries in ["server", "engine", "adapters"].allSatisfy { entries.contains("run \($0)") } }
        let started = journal.all.filter { $0.hasPrefix("start") }
        #expect(started == ["start server", "start engine", "start adapters"])
        task.cancel()
        try await task.value
        #expect(journal.all.filter { $0.hasPrefix("stop") } == ["stop adapters", "stop engine", "stop server"])
    }

    @Test(
        "a service that cannot start stops the ones already started, in reverse order, and the error is thrown",
        .timeLimit(.minutes(1)))
    func startFailure() async throws {
        let journal = Journal()
        let group = ServiceGroup([
            Recorder(name: "server", journal: journal), Recorder(name: "engine", journal: journal),
            Recorder(name: "adapters", journal: journal, failsToStart: true),
            Recorder(name: "never", journal: journal),
        ])
        await #expect(throws: ServiceError(message: "adapters cannot start")) { try await group.run() }
        let entries = journal.all
        #expect(!entries.contains("start never"))
        #expect(entries.filter { $0.hasPrefix("stop") } == ["stop engine", "stop server"])
    }

    @Test("waitForCancellation returns at once in a task already cancelled", .timeLimit(.minutes(1)))
    func alreadyCancelled() async {
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            await Task.waitForCancellation()
            return true
        }
        task.cancel()
        #expect(await task.value)
    }
}
