public import LiveBridgeCore
public import LiveBridgeKit
import LiveBridgeNet
import Synchronization

extension PushWardRequests {
    /// The rule that applies to `frame`'s job: its source's own, else the sink's.
    static func rule(for frame: ActivityFrame, sink: NotificationRule?, sources: [String: NotificationSource])
        -> NotificationRule?
    {
        if let source = frame.source, let own = sources[source]?.rule { return own }
        return sink
    }

    /// `POST /notifications` for a job's end (the frame that carries its outcome), nil when the
    /// rule does not ask for this outcome. Title and body name the job and the outcome from the
    /// final card: `"Bambu X1C: print failed"`, `"Benchy · nozzle clog (0300-4000)"`.
    public static func notification(
        _ frame: ActivityFrame, rule: NotificationRule?, sourceType: String?, linked: Bool = true
    ) -> PushWardRequest? {
        guard let outcome = frame.outcome, let rule, rule.on.contains(outcome) else { return nil }
        let noun: String? =
            switch sourceType {
            case "bambu": "print"
            case "sabnzbd": "download"
            default: nil
            }
        let word =
            switch outcome {
            case .success: "finished"
            case .failure: "failed"
            case .cancelled: "cancelled"
            }
        let title = "\(frame.name): " + (noun.map { "\($0) \(word)" } ?? word)
        let state = frame.content["state"]?.stringValue ?? ""
        // "Failed: nozzle clog (0300-4000)" says the outcome the title says already.
        var reason = state
        for prefix in ["Failed:", "Failed", "Cancelled:", "Cancelled", "Canceled"] where reason.hasPrefix(prefix) {
            reason = String(reason.dropFirst(prefix.count)).trimmingHTTPWhitespace()
            break
        }
        let subtitle = frame.content["subtitle"]?.stringValue ?? ""
        var parts = [subtitle, reason].filter { !$0.isEmpty }
        if parts.isEmpty { parts = [state.isEmpty ? word.prefix(1).uppercased() + word.dropFirst() : state] }
        var body: [String: JSONValue] = [
            "title": .string(String(title.prefix(256))),
            "body": .string(String(parts.joined(separator: " · ").prefix(1024))),
            "level": .string(rule.level.rawValue),
            "thread_id": .string(frame.source ?? "livebridge"),
            "collapse_id": .string(collapseID(frame)),
            "source": "livebridge", "source_display_name": "LiveBridge",
        ]
        if linked { body["activity_slug"] = .string(frame.slug) }
        return PushWardRequest(
            method: "POST", path: "/notifications", body: .object(body), contentType: "application/json")
    }

    /// Stable for one job end (a retry replaces, never repeats), at most 64 characters.
    static func collapseID(_ frame: ActivityFrame) -> String {
        "lb-" + frame.slug.prefix(40) + "-" + String(frame.sequence)
    }
}

/// A PushWard sink's notifications: one per job end that its rule asks for, never for progress,
/// with their own quota (a `429 quota.exceeded` stops notifications until `reset_at`, never the
/// activities) and their own counter (`livebridge_notifications_total`).
final class PushWardNotifier: Sendable {
    private struct State {
        /// Notifications are refused until then (their monthly quota is used up).
        var blockedUntil: Double?
        /// Collapse ids already accepted: a frame delivered again (a retry after a lost answer)
        /// notifies once.
        var sent: [String] = []
    }

    /// Attempts per notification on a 5xx, a network error or a rate limit.
    static let attempts = 3
    /// The wait before the second attempt; doubled before the third.
    static let firstRetry: Double = 1
    static let sentMemory = 256

    private let state = Mutex(State())
    let sinkName: String
    let metrics: MetricsRegistry?
    let logger: Logger

    init(sinkName: String, metrics: MetricsRegistry?, logger: Logger) {
        self.sinkName = sinkName
        self.metrics = metrics
        self.logger = logger
    }

    /// When notifications are refused until (their quota), nil when they are not.
    func blocked(at now: Double) -> Double? {
        state.withLock { state in
            guard let until = state.blockedUntil else { return nil }
            if now >= until {
                state.blockedUntil = nil
                return nil
            }
            return until
        }
    }

    private func count(_ result: String) {
        metrics?.increment("livebridge_notifications_total", ["sink": sinkName, "result": result])
    }

    /// Sends `request` (built for `frame`); never throws: a notification that cannot go out is
    /// counted and logged, and the activity's own delivery goes on.
    func send(
        _ frame: ActivityFrame, build: (Bool) -> PushWardRequest?, clock: any TimeSource,
        execute: (PushWardRequest) async throws(SinkError) -> Void
    ) async {
        guard var request = build(true) else { return }
        let id = PushWardRequests.collapseID(frame)
        if state.withLock({ $0.sent.contains(id) }) { return }
        if let until = blocked(at: clock.now) {
            count("quota")
            logger.info(
                "notification not sent: the notification quota is used up",
                ["slug": frame.slug, "until": RFC3339.format(until)])
            return
        }
        var linked = true
        var wait = Self.firstRetry
        for attempt in 1...Self.attempts {
            do throws(SinkError) {
                try await execute(request)
                state.withLock { state in
                    state.sent.append(id)
                    if state.sent.count > Self.sentMemory { state.sent.removeFirst() }
                }
                count("sent")
                return
            } catch {
                switch error.kind {
                case .quotaExhausted(let until):
                    // Sticky until the month resets (an hour when the answer does not say).
                    let now = clock.now
                    let resume = until.map { QuotaReset.resume(stated: $0, now: now) } ?? now + 3600
                    state.withLock { $0.blockedUntil = resume }
                    count("quota")
                    logger.warning(
                        "notification quota used up; notifications resume \(RFC3339.format(resume)), activities go on",
                        ["slug": frame.slug])
                    return
                case .rejected where error.status == 422 && linked:
                    // The activity is already gone (an unknown `activity_slug` is refused before
                    // anything is stored): the notification goes out without the link.
                    linked = false
                    guard let unlinked = build(false) else { return }
                    request = unlinked
                    continue
                case .unavailable, .rateLimited:
                    guard attempt < Self.attempts else { break }
                    if case .rateLimited(let retryAfter) = error.kind { wait = max(wait, min(retryAfter, 60)) }
                    try? await clock.sleep(for: wait)
                    wait *= 2
                    continue
                case .authentication, .rejected:
                    break
                }
                count("failed")
                logger.warning("notification not sent: \(error.description)", ["slug": frame.slug])
                return
            }
        }
        count("failed")
        logger.warning("notification not sent: no answer after \(Self.attempts) attempts", ["slug": frame.slug])
    }
}
