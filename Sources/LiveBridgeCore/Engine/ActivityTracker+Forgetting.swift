extension ActivityTracker {
    /// A new tracker whose frames are numbered after `sequence` (the sink's floor): whatever was
    /// sent for this slug before its earlier activity was forgotten has a lower number, so no
    /// frame of the new activity can look older than one of the old.
    init(slug: String, name: String?, model: DisplayModel, settings: EconomySettings, numberedAfter sequence: Int) {
        self.init(slug: slug, name: name, model: model, settings: settings)
        guard sequence > 0 else { return }
        restore(
            lifecycle: .idle, stored: .object([:]), lastStable: .object([:]), phase: "none", anchor: nil, truth: nil,
            lastPushAt: nil, lastDetailsAt: nil, endDue: nil, staleTTL: 0, priority: nil, sequence: sequence,
            needsResync: false, startedAt: nil, deliveredSequence: sequence, glided: false)
    }

    /// The activity ended and the service acknowledged the end: nothing is left to send, and the
    /// tracker can be forgotten.
    var isFinished: Bool {
        lifecycle == .ended && deliveredSequence >= sequence && nextDeadline == nil
    }
}
