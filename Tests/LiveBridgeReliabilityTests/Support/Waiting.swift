import Foundation
import LiveBridgeCore
import LiveBridgeTestSupport
import Synchronization

/// Real seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Waits until `condition` holds, re-checking every 10 ms, at most `timeout` real seconds.
///
/// For state that announces no change (a `/health` entry, a process's files); where a component
/// signals (the fakes' request waiters, adapter events) the tests wait on the signal instead.
@discardableResult
func eventually(
    _ timeout: Double = 15, _ what: @autoclosure () -> String, condition: () async throws -> Bool
) async throws -> Double {
    let start = ContinuousClock.now
    while true {
        if try await condition() { return seconds(since: start) }
        guard seconds(since: start) < timeout else {
            throw TestTimeout("timed out after \(timeout) s waiting for \(what())")
        }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
}

extension VirtualClock {
    /// Waits (at most `timeout` real seconds) until someone sleeps on this clock.
    func waitForSleeper(timeout: Double, _ what: @autoclosure () -> String) async throws {
        let done = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        let reached = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            done.withLock { $0 = continuation }
            let finish: @Sendable (Bool) -> Void = { value in done.withLock { $0.take() }?.resume(returning: value) }
            // The timer gives up only when its sleep ran out: cancelled, it was beaten by the
            // sleeper (a cancelled `Task.sleep` returns at once, and finishing then raced the
            // sleeper's `finish(true)`: a spurious timeout under load).
            let timer = Task {
                do { try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000)) } catch { return }
                finish(false)
            }
            Task { [self] in
                await waitForSleepers(1)
                finish(true)
                timer.cancel()
            }
        }
        if !reached {
            throw TestTimeout("nobody slept on the clock within \(timeout) s: \(what())")
        }
    }
}
