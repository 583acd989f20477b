public import LiveBridgeCore

/// The first answer of `racers` (each returns nil when it has none to give), or `timedOut` after
/// `timeout` seconds on `clock`; the rest are cancelled. What a probe waits for: a printer's full
/// report, a broker's refusal, or the time it is given (`livebridge check`).
public func firstAnswer<Answer: Sendable>(
    of racers: [@Sendable () async -> Answer?], within timeout: Double, on clock: any TimeSource,
    else timedOut: Answer
) async -> Answer {
    await withTaskGroup(of: Answer?.self) { group -> Answer in
        for racer in racers { group.addTask { await racer() } }
        group.addTask {
            try? await clock.sleep(for: timeout)
            return timedOut
        }
        var result = timedOut
        for await answer in group {
            if let answer {
                result = answer
                break
            }
        }
        group.cancelAll()
        return result
    }
}
