import Foundation
import LiveBridgeNet
import Testing

/// Opt-in throughput measurement of client + server on loopback:
/// `LIVEBRIDGE_HTTP_BENCH=1 swift test -c release --filter HTTPLoopbackBenchmark`.
@Suite(
    "HTTPLoopbackBenchmark", .enabled(if: ProcessInfo.processInfo.environment["LIVEBRIDGE_HTTP_BENCH"] != nil),
    .timeLimit(.minutes(2)))
struct HTTPLoopbackBenchmark {
    @Test("1000 sequential and 100 concurrent GETs against the loopback server")
    func measure() async throws {
        let server = try HTTPServer(address: "127.0.0.1:0") { _ in .text("ok") }
        defer { server.shutdown() }
        let client = HTTPClient()
        defer { client.shutdown() }
        let url = "http://127.0.0.1:\(server.port)/bench"
        _ = try await client.execute(HTTPRequest(url: url))  // warm up

        let sequentialStart = ContinuousClock.now
        for _ in 0..<1000 {
            let response = try await client.execute(HTTPRequest(url: url))
            #expect(response.status == 200)
        }
        let sequential = secondsSince(sequentialStart)

        let concurrentStart = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await client.execute(HTTPRequest(url: url)).status }
            }
            var collected: [Int] = []
            for try await status in group { collected.append(status) }
            return collected
        }
        let concurrent = secondsSince(concurrentStart)
        #expect(statuses.count == 100 && statuses.allSatisfy { $0 == 200 })
        print(
            "HTTP loopback: 1000 sequential in \(String(format: "%.3f", sequential)) s "
                + "(\(String(format: "%.0f", 1000 / sequential)) req/s, "
                + "\(String(format: "%.2f", sequential)) ms/req); "
                + "100 concurrent in \(String(format: "%.3f", concurrent)) s")
    }
}
