/// Matches libmosquitto's publish acknowledgements (`on_publish(mid)`) to waiting publishers.
///
/// The message id is only known after `mosquitto_publish` returns, and on loopback the broker's
/// PUBACK can arrive on the network thread before the publisher has registered its waiter. So an
/// acknowledgement for an unknown id is remembered while a publish call is in flight and claimed
/// when the waiter registers. Acknowledgements for unknown ids arriving while no call is in
/// flight (messages the library re-sent after a reconnect) are ignored. A value type owned under
/// the session's lock; methods return the waiters the caller resumes after unlocking.
struct MQTTPublishAcknowledgements<Waiter> {
    /// How a registration ended.
    enum Registration {
        /// Parked until `acknowledge`/`fail`.
        case waiting
        /// Already settled: resume the waiter at once with this result.
        case settled(Result<Void, MQTTSessionError>)
    }

    private var waiters: [Int32: Waiter] = [:]
    private var earlyAcknowledgements: Set<Int32> = []
    private var cancelledBeforeRegistration: Set<Int32> = []
    private var callsInFlight = 0

    /// Number of publishers waiting for an acknowledgement.
    var waitingCount: Int { waiters.count }

    /// A publish call is about to enter `mosquitto_publish`.
    mutating func beginCall() {
        callsInFlight += 1
    }

    /// The publish call failed before a message id existed.
    mutating func abandonCall() {
        endCall()
    }

    /// Registers the waiter for `mid` after `mosquitto_publish` returned it.
    mutating func register(_ mid: Int32, _ waiter: Waiter) -> Registration {
        defer { endCall() }
        if cancelledBeforeRegistration.remove(mid) != nil {
            return .settled(.failure(MQTTSessionError(code: .cancelled, message: "the publish was cancelled")))
        }
        if earlyAcknowledgements.remove(mid) != nil {
            return .settled(.success(()))
        }
        waiters[mid] = waiter
        return .waiting
    }

    /// The library acknowledged `mid`; returns the waiter to resume with success, if any.
    mutating func acknowledge(_ mid: Int32) -> Waiter? {
        if let waiter = waiters.removeValue(forKey: mid) { return waiter }
        if callsInFlight > 0 { earlyAcknowledgements.insert(mid) }
        return nil
    }

    /// The waiting task was cancelled; returns its waiter to resume with `cancelled`, if registered.
    mutating func cancel(_ mid: Int32) -> Waiter? {
        if let waiter = waiters.removeValue(forKey: mid) { return waiter }
        if callsInFlight > 0 { cancelledBeforeRegistration.insert(mid) }
        return nil
    }

    /// Removes every waiter (connection lost, shutdown) so the caller can fail them.
    mutating func removeAll() -> [Waiter] {
        let all = Array(waiters.values)
        waiters.removeAll()
        earlyAcknowledgements.removeAll()
        cancelledBeforeRegistration.removeAll()
        return all
    }

    private mutating func endCall() {
        callsInFlight = max(0, callsInFlight - 1)
        if callsInFlight == 0 {
            earlyAcknowledgements.removeAll()
            cancelledBeforeRegistration.removeAll()
        }
    }
}
