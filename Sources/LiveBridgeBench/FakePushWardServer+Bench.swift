import LiveBridgeTestSupport

/// The strict PushWard fake of the tests, as the bench's receiver: the latency, resource and soak
/// sections send to it over loopback and fail on any contract violation it records.
extension FakePushWardServer {
    /// A fake keeping no per-request log, its failure to start said as `section`'s error.
    /// `maxOngoing: nil` for a section that runs more jobs at once than a phone shows.
    static func bench(
        apiKey: String, section: String, maxOngoing: Int? = FakePushWardServer.maxOngoing,
        onAccepted: @escaping @Sendable (Accepted) -> Void = { _ in }
    ) throws(BenchError) -> FakePushWardServer {
        do {
            return try FakePushWardServer(
                apiKey: apiKey, maxOngoing: maxOngoing, keepsRecords: false, onAccepted: onAccepted)
        } catch {
            throw BenchError("\(section): cannot start the loopback PushWard: \(error)")
        }
    }

    /// Accepted creates and patches.
    var counts: (creates: Int, patches: Int) {
        activities.values.reduce((0, 0)) { ($0.0 + $1.creates, $0.1 + $1.updates) }
    }

    /// Activities that went ongoing and have ended since.
    var endedCount: Int { activities.values.filter { $0.state == "ended" && !$0.lifecycles.isEmpty }.count }
}
