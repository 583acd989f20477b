import CMosquitto
import Synchronization

/// Owns one libmosquitto client object and the C resources that must live exactly as long.
///
/// Only the session's loop thread drives the network (`mosquitto_connect`, `mosquitto_loop`);
/// other threads (publishers, `shutdown()`) reach the object only through `withLiveHandle`, which
/// holds a lock that `destroy()` also takes, so nobody touches the object after it is freed.
/// Teardown is explicit and ordered: disconnect, stop the loop thread, `destroy()`, then release
/// the TLS context — never in `deinit`, which could run on the network thread.
final class MQTTNativeClient: Sendable {
    /// The `struct mosquitto *`. Used directly only by the loop thread.
    nonisolated(unsafe) let mosquitto: OpaquePointer
    /// Our TLS context (nil for plaintext); libmosquitto holds its own reference.
    let tls: TLSClientContext?
    /// Wakes the loop thread for shutdown.
    let wake: MQTTWakeSignal
    private let alive = Mutex(true)

    init(mosquitto: OpaquePointer, tls: TLSClientContext?, wake: MQTTWakeSignal) {
        self.mosquitto = mosquitto
        self.tls = tls
        self.wake = wake
    }

    /// Runs `body` with the handle unless it was destroyed (then returns nil).
    ///
    /// `body` must not call back into code that takes the session's state lock while libmosquitto
    /// could be waiting for it; publishing and disconnecting are fine.
    func withLiveHandle<Result>(_ body: (OpaquePointer) -> Result) -> Result? {
        alive.withLock { alive in
            alive ? body(mosquitto) : nil
        }
    }

    /// Frees the libmosquitto object (once). Call after the loop thread stopped using it.
    func destroy() {
        alive.withLock { alive in
            guard alive else { return }
            alive = false
            mosquitto_destroy(mosquitto)
        }
    }
}
