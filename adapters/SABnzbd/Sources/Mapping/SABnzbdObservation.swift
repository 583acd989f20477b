/// What one poll saw: the queue, and the history when it was read this time.
public struct SABnzbdObservation: Sendable, Hashable {
    /// When the answers arrived (Unix seconds); the update's `observedAt`.
    public var time: Double
    /// The full queue (not a `limit=1` answer).
    public var queue: SABnzbdQueue
    /// The history, or nil when it was not read (or was unchanged).
    public var history: SABnzbdHistory?

    /// One poll's answers at `time`.
    public init(time: Double, queue: SABnzbdQueue, history: SABnzbdHistory? = nil) {
        self.time = time
        self.queue = queue
        self.history = history
    }
}
