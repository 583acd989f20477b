import LiveBridgeApp
import LiveBridgeCore

/// One job's truth as the error measurement sees it: the reported progress, linear between
/// observations, over the window from the first push (the first running observation) to the
/// first `ended` observation — exactly as `EconomySimulation` measures it, so the tracker, the
/// fixed-interval policy and the oracle are judged on the same curve and the same 1 s grid.
struct JobTruth: Sendable {
    var samples: [(time: Double, progress: Double)]
    /// First running observation: the tracker's seed goes out here.
    var start: Double
    /// The first `ended` observation at or after `start` (else the last sample).
    var end: Double
    /// Times the card's text or phase changed while the job ran: any sender must push there.
    var changes: [Double]
    /// The progress the job ended with (1 for a success).
    var finalProgress: Double
    /// When the job really finished: the first observation of its whole progress, else its end
    /// (what an honest countdown counts down to).
    var finish: Double {
        samples.first { $0.time >= start && $0.progress >= 1 - 1e-9 }.map { min($0.time, end) } ?? end
    }

    /// Builds the truth from one job's observations (one slug, any order).
    init(_ updates: [ActivityUpdate]) {
        let sorted = updates.enumerated().sorted {
            ($0.element.observedAt ?? 0, $0.offset) < ($1.element.observedAt ?? 0, $1.offset)
        }.map(\.element)
        var samples: [(time: Double, progress: Double)] = []
        for update in sorted {
            let observed = update.observedAt ?? 0
            // A progress is true at its own time (a sensor's `last_changed`); the same value
            // travelling with a later update adds nothing.
            let time = min(observed, update.progressObservedAt ?? observed)
            if let progress = update.progress {
                if let last = samples.last, time <= last.time { continue }
                samples.append((time, min(1, max(0, progress.isFinite ? progress : 0))))
            } else if case .ended(.success) = update.phase, !samples.isEmpty {
                // A success is the whole bar, for a job that had one (a plug's cycle has none).
                samples.append((observed, 1))
            }
        }
        let first = sorted.first { !$0.phase.isEnded }?.observedAt ?? sorted.first?.observedAt ?? 0
        let ended = sorted.first { $0.phase.isEnded && ($0.observedAt ?? 0) >= first }
        self.samples = samples
        start = first
        end = ended?.observedAt ?? samples.last?.time ?? first
        var changes: [Double] = []
        var previous: String?
        for update in sorted where !update.phase.isEnded {
            let time = update.observedAt ?? 0
            guard time >= first, time < end else { continue }
            let key = Self.cardKey(update)
            if let previous, key != previous { changes.append(time) }
            previous = key
        }
        self.changes = changes
        if case .ended(let outcome) = ended?.phase, outcome == .success {
            finalProgress = 1
        } else {
            finalProgress = samples.last?.progress ?? 0
        }
    }

    /// What a person sees change on the card, apart from the bar: the adapter's stable content
    /// (without the fields the tracker owns) and the phase.
    static func cardKey(_ update: ActivityUpdate) -> String {
        var json = update.content.json
        for field in ["progress", "end_date", "live_progress", "remaining_time", "duration", "start_date"] {
            json[field] = nil
        }
        let phase: String
        switch update.phase {
        case .active: phase = "active"
        case .paused: phase = "paused"
        case .ended: phase = "ended"
        }
        return JSONWriter.string(MergePatch.stripNulls(json)) + "|" + phase
    }

    /// The grid the error is measured on: `start`, `start + step`, … up to `end` inclusive.
    func grid(step: Double = 1) -> [Double] { DisplayError.grid(from: start, through: end, step: step) }

    /// The truth at each of `times` (ascending): linear between samples, flat outside them.
    func values(at times: [Double]) -> [Double] {
        DisplayError.truth(samples, at: times)
    }
}

/// Display error of a sequence of anchors against a job's truth on the 1 s grid.
enum DisplayErrorMeter {
    /// Measures `anchors` (ascending by time) drawn under `model` against `truth`, from the first
    /// anchor on (before it there is no card to be wrong): `DisplayError.measure` on the job's grid.
    static func measure(_ truth: JobTruth, anchors: [DisplayAnchor], model: DisplayModel = .interpolating)
        -> DisplayError.Figures
    {
        guard !anchors.isEmpty, !truth.samples.isEmpty, truth.end > truth.start else {
            return DisplayError.Figures(max: 0, mean: 0, samples: 0)
        }
        let times = truth.grid()
        return DisplayError.measure(times: times, truth: truth.values(at: times), anchors: anchors, model: model)
    }
}
