/// The mutable state of an `MQTTSession`, guarded by its mutex.
///
/// Touched by the network thread (callbacks, the loop), publishers and `shutdown()`. Nothing
/// here calls into libmosquitto, so holding the lock never waits for the library.
struct MQTTSessionState {
    /// Where the session is in its life.
    enum Phase: Equatable {
        case idle, starting, running, finished
    }

    /// One connection attempt's evidence for error messages.
    struct Attempt {
        /// The CONNACK code when the broker refused.
        var connackCode: Int?
        /// `MOSQ_LOG_ERR` lines from libmosquitto (OpenSSL errors), newest last, at most 8.
        var libraryErrors: [String] = []
    }

    var phase: Phase = .idle
    var stopRequested = false
    var client: MQTTNativeClient?
    var status = MQTTSessionStatus.initial
    /// CONNACK 0 received on the current connection.
    var linkUp = false
    var attempt = Attempt()
    /// Subscriptions sent in this connection's on-connect, by message id, awaiting SUBACK.
    var pendingSubscriptions: [Int32: MQTTSubscription] = [:]
    /// The on-connect hook waits for the pending subscriptions.
    var hookPending = false
    var hookTasks: [Task<Void, Never>] = []
    var acknowledgements = MQTTPublishAcknowledgements<CheckedContinuation<Result<Void, MQTTSessionError>, Never>>()
    var observers: [UInt64: AsyncStream<MQTTSessionStatus>.Continuation] = [:]
    var nextObserverID: UInt64 = 0
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// The code of the last logged failure, to log repeats quietly.
    var lastLoggedFailure: MQTTSessionError.Code?
}
