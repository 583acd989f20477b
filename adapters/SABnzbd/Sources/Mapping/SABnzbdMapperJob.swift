/// One job of a session, tracked by its `nzo_id` wherever SABnzbd lists it.
struct SABnzbdMapperJob: Sendable, Hashable {
    /// Where the job was last seen.
    enum Place: String, Sendable, Hashable {
        /// In the queue (downloading, waiting, paused, propagating, checking, fetching).
        case queue
        /// Left the queue but the history has not been read since.
        case unknown
        /// In the history with a post-processing status.
        case postProcessing
        case completed
        case failed
        /// Deleted from SABnzbd: gone from both queue and history.
        case removed
    }

    var id: String
    var name: String
    var place: Place
    /// Queue or history status text (`Downloading`, `Paused`, `Extracting`, …).
    var status: String
    /// Bytes of the job (par2 volumes included); the history's bytes when it never was queued.
    var totalBytes: Double
    /// Bytes counted as done: a high-water mark, so par2 churn never counts twice.
    var doneBytes: Double
    /// Bytes still to download (0 once the job left the queue).
    var remainingBytes: Double
    var labels: [String] = []
    var actionLine = ""
    var loaded = false
    var failMessage = ""
    /// From the history: bytes fetched, SABnzbd's download and post-processing seconds.
    var historyBytes: Double = 0
    var downloadTime: Double = 0
    var postProcessingTime: Double = 0
    /// Consecutive history-bearing observations that listed the job nowhere.
    var absences = 0

    var isFinal: Bool { place == .completed || place == .failed || place == .removed }

    /// Paused on its own or waiting out the propagation delay: its bytes will not move now.
    var isHeld: Bool { place == .queue && (status == "Paused" || status == "Propagating") }
}
