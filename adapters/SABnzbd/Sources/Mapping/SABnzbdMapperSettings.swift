/// How the session mapping names the activity and when it calls things stalled, waiting or done.
public struct SABnzbdMapperSettings: Sendable, Hashable {
    /// The activity's slug (`sabnzbd-home`).
    public var slug: String
    /// The activity's display name (`SABnzbd (home)`).
    public var name: String
    /// Polls that must show no work after the last job finished before the activity ends.
    public var endAfterIdlePolls: Int
    /// Seconds without a single new byte while downloading before the card says "Stalled".
    public var stallAfter: Double
    /// Seconds the "Idle with slots" moment at a job's start is held back, so a job that starts
    /// downloading within it costs no extra push.
    public var startGrace: Double
    /// Seconds of bytes the download rate (and so the remaining time) is measured over.
    public var rateWindow: Double
    /// The measured rate needs the byte count to move at least this many times per `rateWindow`;
    /// a count that moves less often (a slow server's articles, tens of seconds apart) gives a
    /// rate that swings with the articles' uneven arrival, and SABnzbd's own `timeleft` — from
    /// its speed meter, which counts the bytes as they stream in — is the steadier clock.
    public var rateMinimumAdvances: Double
    /// A finished job found in the history that was never seen in the queue joins the session
    /// only if it finished at most this many seconds ago (older ones predate the bridge).
    public var recentWindow: Double
    /// Lock Screen priority 0…10 (nil = the service's default).
    public var priority: Int?
    /// Where a tap on the card leads (SABnzbd's web interface), if set.
    public var tapURL: String?

    /// Creates a value with the given members.
    public init(
        slug: String, name: String, endAfterIdlePolls: Int = 2, stallAfter: Double = 60, startGrace: Double = 5,
        rateWindow: Double = 20, rateMinimumAdvances: Double = 3, recentWindow: Double = 60, priority: Int? = nil,
        tapURL: String? = nil
    ) {
        self.slug = slug
        self.name = name
        self.endAfterIdlePolls = endAfterIdlePolls
        self.stallAfter = stallAfter
        self.startGrace = startGrace
        self.rateWindow = rateWindow
        self.rateMinimumAdvances = rateMinimumAdvances
        self.recentWindow = recentWindow
        self.priority = priority
        self.tapURL = tapURL
    }
}
