/// What the last emitted update said, to tell whether a poll has news.
///
/// SABnzbd moves `mbleft` in steps of a few articles, so at a short poll interval most polls
/// repeat the previous one; emitting those adds flat stretches to the truth that the tracker
/// would read as display error. A poll is worth an update when the card, the phase or the
/// progress changed, when the finish estimate moved, or when the last update is getting old.
struct SABnzbdNews: Sendable, Hashable {
    /// Seconds after which an update goes out even without news (keeps the truth fresh).
    static let keepAlive = 30.0
    /// Finish-time moves smaller than this (seconds) are not news.
    static let finishTolerance = 2.0

    var card: SABnzbdCard
    var paused: Bool
    var progress: Double
    var finish: Double?
    var time: Double

    func isWorthTelling(since last: SABnzbdNews) -> Bool {
        if card != last.card || paused != last.paused { return true }
        if abs(progress - last.progress) > 1e-6 { return true }
        if time - last.time >= Self.keepAlive { return true }
        switch (finish, last.finish) {
        case (nil, nil): return false
        case (let now?, let before?): return abs(now - before) > max(Self.finishTolerance, 0.02 * max(0, now - time))
        default: return true
        }
    }
}
