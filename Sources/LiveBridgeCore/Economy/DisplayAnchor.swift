/// What the phone was last told about the bar, from which it draws every moment until the next
/// push: the model the push economy is built on (PushWard API reference §12).
public struct DisplayAnchor: Sendable, Hashable, Codable {
    /// Pushed progress p0 (clamped to 0…1).
    public var progress: Double
    /// When the push was applied (Unix seconds), t0.
    public var time: Double
    /// Pushed `end_date` E (whole Unix seconds), nil when cleared.
    public var endDate: Double?
    /// Pushed `live_progress` L.
    public var live: Bool

    public init(progress: Double, time: Double, endDate: Double?, live: Bool) {
        self.progress = min(1, max(0, progress))
        self.time = time
        self.endDate = endDate
        self.live = live
    }

    /// The bar at time `t` under `model`.
    ///
    /// Interpolating: with `live` and a future `end_date`, the bar glides linearly from p0 at t0 to
    /// 1.0 at E; once E has passed it shows p0 again (the literal reading of "freezes at the last
    /// pushed progress"). Static: always p0.
    public func shown(at t: Double, model: DisplayModel) -> Double {
        guard model == .interpolating, live, let endDate, endDate > time else { return progress }
        if t < time { return progress }
        if t >= endDate { return progress }
        return progress + (1 - progress) * (t - time) / (endDate - time)
    }

    /// True when the bar is gliding at `t` (a live anchor whose `end_date` is still ahead).
    public func isGliding(at t: Double, model: DisplayModel) -> Bool {
        guard model == .interpolating, live, let endDate else { return false }
        return endDate > time && t < endDate
    }
}

extension ActivityFrame {
    /// The anchor this frame puts on the phone when it leaves at `time`: its pushed progress, and
    /// its `end_date` when it carries `live_progress` (an end glides no more); nil without a
    /// progress (the phone keeps what it showed).
    public func displayAnchor(at time: Double) -> DisplayAnchor? {
        guard let progress = content["progress"]?.doubleValue else { return nil }
        let live = kind != .end && content["live_progress"]?.boolValue == true
        let endDate = live ? content["end_date"]?.doubleValue : nil
        return DisplayAnchor(progress: progress, time: time, endDate: endDate, live: live && endDate != nil)
    }
}
