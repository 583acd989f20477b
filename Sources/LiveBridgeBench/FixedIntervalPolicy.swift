import LiveBridgeApp
import LiveBridgeCore

/// How today's bridges push, for comparison: on any change at most every `minimumInterval`
/// seconds (a change inside the interval goes out when it ends), a heartbeat every
/// `heartbeatInterval` seconds, `end_date = now + remaining` and `live_progress` on every push,
/// one request to end.
struct FixedIntervalPolicy: Sendable {
    var minimumInterval: Double = 5
    var heartbeatInterval: Double = 30

    /// Pushes and the anchors the phone got for one job's observations.
    struct Result: Sendable {
        var pushes: Int
        var anchors: [DisplayAnchor]
    }

    func run(_ updates: [ActivityUpdate]) -> Result {
        let sorted = updates.enumerated().sorted {
            ($0.element.observedAt ?? 0, $0.offset) < ($1.element.observedAt ?? 0, $1.offset)
        }.map(\.element)
        var anchors: [DisplayAnchor] = []
        var latest: ActivityUpdate?
        var pushed: (progress: Double?, eta: Double?, card: String)?
        var lastPushAt: Double?
        var pending = false
        var ended = false

        func push(at now: Double) {
            guard let update = latest else { return }
            let p0 = update.progress ?? anchors.last?.progress ?? 0
            var endDate: Double?
            if case .active = update.phase, let eta = update.eta {
                switch eta {
                case .remaining(let seconds): endDate = (now + seconds).rounded()
                case .finishesAt(let date): endDate = date.rounded()
                }
            }
            let live = endDate.map { $0 > now } ?? false
            anchors.append(DisplayAnchor(progress: p0, time: now, endDate: live ? endDate : nil, live: live))
            pushed = (update.progress, Self.reported(update.eta), JobTruth.cardKey(update))
            lastPushAt = now
            pending = false
        }

        func runTimers(until limit: Double) {
            while let last = lastPushAt, !ended {
                let due = pending ? last + minimumInterval : last + heartbeatInterval
                guard due < limit else { return }
                push(at: due)
            }
        }

        for update in sorted {
            let now = update.observedAt ?? 0
            runTimers(until: now)
            if ended { break }
            // An end before anything was shown is a leftover from before the job (a source's
            // first snapshot): nothing to end yet.
            if update.phase.isEnded && lastPushAt == nil { continue }
            latest = update
            if update.phase.isEnded {
                if lastPushAt != nil {
                    // One request ends it, with the final progress.
                    let final = update.progress ?? (update.phase == .ended(.success) ? 1 : anchors.last?.progress ?? 0)
                    anchors.append(DisplayAnchor(progress: final, time: now, endDate: nil, live: false))
                }
                ended = true
                break
            }
            guard let last = lastPushAt, let previous = pushed else {
                push(at: now)
                continue
            }
            let changed =
                update.progress != previous.progress || Self.reported(update.eta) != previous.eta
                || JobTruth.cardKey(update) != previous.card
            if changed {
                if now - last >= minimumInterval { push(at: now) } else { pending = true }
            }
        }
        return Result(pushes: anchors.count, anchors: anchors)
    }

    /// The estimate as the source reports it (seconds left, or the finish time): what a bridge
    /// compares to decide that something changed.
    static func reported(_ eta: ActivityETA?) -> Double? {
        switch eta {
        case .remaining(let seconds): seconds
        case .finishesAt(let date): date
        case nil: nil
        }
    }
}
