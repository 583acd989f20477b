public import LiveBridgeCore

/// One SABnzbd instance's activity: a session of jobs, from the first job that starts to a
/// couple of quiet polls after the last one leaves post-processing.
///
/// A value type with no I/O and no clock: it is fed queue/history answers with their time and
/// answers with the `ActivityUpdate`s to emit, so the live poller, `livebridge replay` and the
/// tests run exactly the same mapping. It never decides when to push (the tracker does).
///
/// Progress is tracked per `nzo_id` over the session's jobs and never goes backwards: each poll
/// moves the bar by the share of the remaining bytes that got done, so jobs joining, par2
/// volumes being added and failed jobs dropping out change the pace, not the position. A job
/// that leaves for post-processing counts in full; a failed one counts what it fetched.
public struct SABnzbdMapper: Sendable {
    /// What the card is about right now.
    enum Stage: String, Sendable, Hashable {
        case waiting, propagating, checking, fetching, downloading, stalled, paused, jobPaused, postProcessing
        case settled

        /// Stages in which bytes should be arriving (the stall clock and the rate run).
        var isMoving: Bool { self == .waiting || self == .downloading || self == .stalled }
    }

    static let downloadingStatuses: Set<String> = ["Downloading", "Fetching", "Grabbing", "Checking"]

    /// Slug, name and the end, stall and grace rules.
    public let settings: SABnzbdMapperSettings
    var jobs: [SABnzbdMapperJob] = []
    /// The session's progress, 0…1.
    public internal(set) var progress: Double = 0
    /// When the session began (Unix seconds), nil when none is open.
    public internal(set) var startedAt: Double?
    /// True once an update for this session went out (the activity exists).
    public internal(set) var emitted = false
    var stage: Stage?
    var focusID: String?
    var quietPolls = 0
    /// Bytes done over the session, only ever growing: the rate's input.
    var advanced: Double = 0
    var segmentStart: Double?
    var segmentBase: Double = 0
    var lastAdvanceAt: Double?
    /// Seconds between the session's last few advances of the byte count, across stalls and
    /// pauses: how long a quiet stretch this download usually has (see `stallThreshold`).
    var advanceGaps: [Double] = []
    var previousAdvanceAt: Double?
    /// The highest reading of SABnzbd's speed meter since the byte count last moved (or the
    /// session began), stalls included.
    var quietPeakSpeed: Double = 0
    var rate: TransferRateEstimator
    /// The last rate measured in this session, kept across the restarts that reset `rate`.
    var earlierRate: Double?
    var knownFinalIDs: Set<String> = []
    var historySeen = false
    var historyPostProcessing = 0
    var postProcessingOrder: [String] = []
    /// Polls with a non-zero speed since downloading (re)started.
    var speedSamples = 0

    /// An empty session (nothing open until a job shows up).
    public init(settings: SABnzbdMapperSettings) {
        self.settings = settings
        rate = TransferRateEstimator(window: settings.rateWindow, minimumSpan: min(6, settings.rateWindow))
    }

    /// True while a session is open (some job is tracked).
    public var isOpen: Bool { !jobs.isEmpty }

    /// The `nzo_id`s of the session's jobs, in the order they joined.
    public var jobIDs: [String] { jobs.map(\.id) }

    // MARK: - Questions the poller asks

    /// Whether a `limit=1` idle answer shows work worth a full poll: something downloads, or a
    /// job that is not paused on its own waits. A globally paused queue starts no session.
    public static func hasWork(_ idleQueue: SABnzbdQueue) -> Bool {
        if idleQueue.paused { return false }
        if idleQueue.status == "Downloading" { return true }
        guard idleQueue.totalSlots > 0 else { return false }
        if idleQueue.totalSlots > 1 { return true }
        return idleQueue.slots.first.map { $0.status != "Paused" } ?? true
    }

    /// Whether the poll that got `queue` should read the history too: always for the first
    /// look, and while a job of the session is somewhere other than the queue and not finished.
    public func wantsHistory(with queue: SABnzbdQueue) -> Bool {
        if !historySeen || historyPostProcessing > 0 { return true }
        let queued = Set(queue.slots.map(\.id))
        return jobs.contains { !$0.isFinal && !($0.place == .queue && queued.contains($0.id)) }
    }

    /// The history `limit` that surely lists every job of the session.
    public var historyLimit: Int { max(10, jobs.count + 10) }

    // MARK: - Observing

    /// Takes one poll's answers; returns the updates to emit (usually one, none while nothing
    /// runs, two when a session that never showed ends).
    public mutating func observe(_ observation: SABnzbdObservation) -> [ActivityUpdate] {
        let t = observation.time
        let queue = observation.queue
        let wasOpen = isOpen
        let remainingBefore = jobs.filter { !$0.isFinal }.reduce(0) { $0 + $1.remainingBytes }
        var gained = 0.0
        var joined = false
        var historyByID: [String: SABnzbdHistorySlot] = [:]
        for slot in observation.history?.slots ?? [] where historyByID[slot.id] == nil { historyByID[slot.id] = slot }
        let queueIDs = Set(queue.slots.map(\.id))

        for slot in queue.slots where historyByID[slot.id] == nil {
            if let index = jobs.firstIndex(where: { $0.id == slot.id }) {
                gained += Self.apply(slot, to: &jobs[index])
            } else if !queue.paused, slot.status != "Paused" {
                jobs.append(Self.job(from: slot))
                joined = true
            }
        }
        for index in jobs.indices where jobs[index].place == .queue && !queueIDs.contains(jobs[index].id) {
            jobs[index].place = .unknown
        }
        if let history = observation.history {
            for slot in history.slots {
                if let index = jobs.firstIndex(where: { $0.id == slot.id }) {
                    gained += Self.apply(slot, to: &jobs[index])
                } else if !knownFinalIDs.contains(slot.id), shouldJoin(slot, at: t) {
                    jobs.append(Self.job(from: slot))
                    joined = true
                }
            }
            for index in jobs.indices where !jobs[index].isFinal {
                let id = jobs[index].id
                if queueIDs.contains(id) || historyByID[id] != nil {
                    jobs[index].absences = 0
                    continue
                }
                jobs[index].absences += 1
                if jobs[index].absences >= 2 {
                    jobs[index].place = .removed
                    jobs[index].remainingBytes = 0
                }
            }
            let sessionIDs = Set(jobs.map(\.id))
            knownFinalIDs = Set(history.slots.filter { $0.isFinal && !sessionIDs.contains($0.id) }.map(\.id))
            historyPostProcessing = history.postProcessingSlots
            postProcessingOrder = history.slots.filter { !$0.isFinal }.map(\.id)
            historySeen = true
        }
        guard isOpen else { return [] }
        if !wasOpen { begin(at: t) }
        advanced += gained

        // Progress: never backwards.
        let remainingAfter = jobs.filter { !$0.isFinal }.reduce(0) { $0 + $1.remainingBytes }
        if !wasOpen {
            progress = fullShare() ?? 0
        } else if remainingBefore > 0 {
            progress += (1 - progress) * min(1, gained / remainingBefore)
        } else if joined, remainingAfter > 0, progress >= 0.999 {
            // Everything before was downloaded; a full bar over a new download would lie.
            progress = fullShare() ?? progress
        }
        progress = min(1, max(0, progress))

        let (newStage, focus) = decideStage(queue, gained: gained, at: t)
        stage = newStage
        focusID = focus
        quietPolls = newStage == .settled ? quietPolls + 1 : 0
        if newStage == .settled && quietPolls > max(0, settings.endAfterIdlePolls) {
            return finish(at: t)
        }
        let eta = newStage == .downloading ? estimate(queue, at: t) : nil
        if !emitted, let startedAt, t - startedAt < settings.startGrace,
            newStage == .waiting || (newStage == .downloading && eta == nil)
        {
            // The first seconds: SABnzbd's "Idle with slots" and its warm-up speed sample. A seed
            // that already knows the finish saves the push that would bring it a second later.
            return []
        }
        let card = liveCard(newStage, focus: focus, queue: queue, at: t)
        let phase: ActivityPhase = [.paused, .jobPaused, .stalled].contains(newStage) ? .paused : .active
        // Every answer is reported as it came, a count repeated between its steps included: the
        // policy reads a staircase from the repeats, and what a poll says is the truth it is
        // measured against.
        emitted = true
        return [update(phase, card, eta: eta, at: t)]
    }

    // MARK: - Joining and applying answers

    static func job(from slot: SABnzbdQueueSlot) -> SABnzbdMapperJob {
        SABnzbdMapperJob(
            id: slot.id, name: slot.name, place: .queue, status: slot.status, totalBytes: slot.totalBytes,
            doneBytes: slot.doneBytes, remainingBytes: slot.remainingBytes, labels: slot.labels)
    }

    static func job(from slot: SABnzbdHistorySlot) -> SABnzbdMapperJob {
        var job = SABnzbdMapperJob(
            id: slot.id, name: slot.name, place: .unknown, status: slot.status, totalBytes: slot.bytes, doneBytes: 0,
            remainingBytes: 0)
        _ = apply(slot, to: &job)
        return job
    }

    /// Updates a job from its queue slot; returns the bytes newly done.
    static func apply(_ slot: SABnzbdQueueSlot, to job: inout SABnzbdMapperJob) -> Double {
        job.place = .queue
        job.status = slot.status
        job.labels = slot.labels
        job.totalBytes = slot.totalBytes
        job.remainingBytes = slot.remainingBytes
        job.absences = 0
        let gain = max(0, slot.doneBytes - job.doneBytes)
        job.doneBytes += gain
        return gain
    }

    /// Updates a job from its history slot; returns the bytes newly done.
    static func apply(_ slot: SABnzbdHistorySlot, to job: inout SABnzbdMapperJob) -> Double {
        job.status = slot.status
        job.actionLine = slot.actionLine
        job.loaded = slot.loaded
        job.failMessage = slot.failMessage
        job.historyBytes = slot.bytes
        job.downloadTime = slot.downloadTime
        job.postProcessingTime = slot.postProcessingTime
        job.absences = 0
        job.remainingBytes = 0
        if job.totalBytes <= 0 { job.totalBytes = slot.bytes }
        let fetched = min(job.totalBytes, slot.bytes)
        let target: Double
        switch slot.status {
        case "Completed":
            job.place = .completed
            target = job.totalBytes
        case "Failed":
            job.place = .failed
            target = fetched
        case "Deleted":
            job.place = .removed
            target = job.doneBytes
        default:
            job.place = .postProcessing
            target = slot.failMessage.isEmpty ? job.totalBytes : fetched
        }
        let gain = max(0, target - job.doneBytes)
        job.doneBytes += gain
        return gain
    }

    /// A history job never seen in the queue joins when it is being processed, or finished so
    /// recently that it must have run while the bridge was not looking (between idle polls).
    func shouldJoin(_ slot: SABnzbdHistorySlot, at t: Double) -> Bool {
        guard slot.isFinal else { return true }
        guard slot.status != "Deleted", let completed = slot.completed else { return false }
        return abs(completed - t) <= settings.recentWindow
    }

    /// Bytes done over bytes in total of the jobs that count in full (not failed or removed).
    private func fullShare() -> Double? {
        let counted = jobs.filter {
            switch $0.place {
            case .queue, .unknown, .completed: true
            case .postProcessing: $0.failMessage.isEmpty
            case .failed, .removed: false
            }
        }
        let total = counted.reduce(0) { $0 + max($1.totalBytes, $1.doneBytes + $1.remainingBytes) }
        guard total > 0 else { return nil }
        return min(1, counted.reduce(0) { $0 + $1.doneBytes } / total)
    }

    private mutating func begin(at t: Double) {
        startedAt = t
        emitted = false
        quietPolls = 0
        stage = nil
        focusID = nil
        advanced = 0
        segmentStart = nil
        lastAdvanceAt = nil
        advanceGaps.removeAll()
        previousAdvanceAt = nil
        quietPeakSpeed = 0
        earlierRate = nil
        rate.reset()
    }

    /// How long without a new byte before the card says "Stalled": `stallAfter`, or three of this
    /// download's usual gaps between advances when they are longer (a slow download counted in
    /// whole articles moves once a minute or less, and is not stalled between its steps).
    public var stallThreshold: Double { max(settings.stallAfter, 3 * (usualAdvanceGap ?? 0)) }

    /// The median of `advanceGaps`, nil before two advances.
    var usualAdvanceGap: Double? {
        guard !advanceGaps.isEmpty else { return nil }
        return advanceGaps.sorted()[advanceGaps.count / 2]
    }

    /// True right after a pause while the articles already on their way still land (SABnzbd
    /// finishes the ones it was fetching: a few more steps over the next seconds). The card goes
    /// on saying what it said — bytes are still arriving — and says "Paused" once they stop, in
    /// one change instead of a paused card whose count still moves. Once shown paused, it stays
    /// paused until downloading resumes.
    private func articlesLanding(_ queue: SABnzbdQueue, gained: Double, at t: Double) -> Bool {
        // SABnzbd's meter reads 0 the moment its connections are idle.
        guard stage == .downloading, let lastAdvanceAt, queue.bytesPerSecond > 0 else { return false }
        return gained > 0 || t - lastAdvanceAt <= max(2, 1.5 * (usualAdvanceGap ?? 0))
    }

    private mutating func noteAdvance(at t: Double) {
        if let previousAdvanceAt, t > previousAdvanceAt {
            advanceGaps.append(t - previousAdvanceAt)
            if advanceGaps.count > 5 { advanceGaps.removeFirst() }
        }
        previousAdvanceAt = t
    }

    // MARK: - Stages

    private mutating func decideStage(_ queue: SABnzbdQueue, gained: Double, at t: Double) -> (Stage, String?) {
        let sessionSlots = queue.slots.filter { slot in jobs.contains { $0.id == slot.id && $0.place == .queue } }
        let active = sessionSlots.first {
            Self.downloadingStatuses.contains($0.status) && ($0.remainingBytes > 0 || $0.status == "Grabbing")
        }
        if queue.paused, let first = sessionSlots.first {
            if articlesLanding(queue, gained: gained, at: t) {
                return (moving(queue, job: first, gained: gained, at: t), first.id)
            }
            return (.paused, first.id)
        }
        if let active {
            switch active.status {
            case "Checking": return (.checking, active.id)
            case "Fetching", "Grabbing": return (.fetching, active.id)
            default: return (moving(queue, job: active, gained: gained, at: t), active.id)
            }
        }
        let processing = jobs.filter { $0.place == .postProcessing }
        if !processing.isEmpty {
            let ordered = postProcessingOrder.compactMap { id in processing.first { $0.id == id } }
            let focus = processing.first(where: \.loaded) ?? ordered.first ?? processing[0]
            return (.postProcessing, focus.id)
        }
        if let propagating = sessionSlots.first(where: { $0.status == "Propagating" }) {
            return (.propagating, propagating.id)
        }
        if let paused = sessionSlots.first(where: { $0.status == "Paused" }) {
            if articlesLanding(queue, gained: gained, at: t) {
                return (moving(queue, job: paused, gained: gained, at: t), paused.id)
            }
            return (.jobPaused, paused.id)
        }
        if let first = sessionSlots.first {
            return (moving(queue, job: first, gained: gained, at: t), first.id)
        }
        if jobs.contains(where: { $0.place == .unknown }) {
            // Left the queue; the history will tell where to. Keep showing what was shown.
            if let stage, stage != .settled { return (stage, focusID) }
            return (.waiting, focusID)
        }
        return (.settled, focusID)
    }

    /// Downloading, waiting for the first bytes, or stalled — judged by bytes, not by `status`.
    /// A job that already has bytes (a resume) is downloading, not waiting, while its speed
    /// meter starts again.
    private mutating func moving(_ queue: SABnzbdQueue, job: SABnzbdQueueSlot, gained: Double, at t: Double) -> Stage {
        if !(stage?.isMoving ?? false) || segmentStart == nil {
            segmentStart = t
            speedSamples = 0
            segmentBase = advanced - gained
            lastAdvanceAt = nil
            rate.reset()
        }
        if queue.bytesPerSecond > 0 { speedSamples += 1 }
        rate.add(time: t, done: advanced)
        if let measured = rate.rate { earlierRate = measured }
        if gained > 0 {
            lastAdvanceAt = t
            noteAdvance(at: t)
            quietPeakSpeed = 0
        }
        quietPeakSpeed = max(quietPeakSpeed, queue.bytesPerSecond)
        let started = advanced > segmentBase || queue.bytesPerSecond > 0 || job.doneBytes > 0
        let quietSince = lastAdvanceAt ?? segmentStart ?? t
        // SABnzbd's speed meter decays within seconds when nothing arrives (halving every few
        // seconds); one holding at least half of its highest reading since the count last moved
        // says bytes are flowing into articles not yet complete: slow, not stalled. A stall once
        // shown ends with the bytes, not with the meter waking (one card change, not two).
        let flowing = queue.bytesPerSecond > 0 && queue.bytesPerSecond >= 0.5 * quietPeakSpeed
        if t - quietSince >= stallThreshold, stage == .stalled || !flowing { return .stalled }
        return started ? .downloading : .waiting
    }

    private func estimate(_ queue: SABnzbdQueue, at time: Double) -> ActivityETA? {
        guard !jobs.contains(where: \.isHeld) else { return nil }
        let remaining = jobs.filter { $0.place == .queue }.reduce(0) { $0 + $1.remainingBytes }
        guard remaining > 0 else { return nil }
        // The measured rate only where the count moves often enough to measure one: known from a
        // few advances, at least `rateMinimumAdvances` of them per window. Two articles seconds
        // apart at a slow download's start say nothing about its speed.
        let rhythmKnown = advanceGaps.count >= 2
        let movesOften =
            rhythmKnown && (usualAdvanceGap ?? .infinity) * settings.rateMinimumAdvances <= settings.rateWindow
        if movesOften, let finish = rate.finish(remaining: remaining, now: time) {
            return .remaining(finish - time)
        }
        if rhythmKnown, !movesOften, speedSamples >= 2, let left = queue.timeLeftSeconds, left > 0 {
            return .remaining(left)
        }
        // Resumed after a pause or a stall, before the rate can be measured again: SABnzbd's
        // speed meter starts from nothing and its `timeleft` runs long for the next seconds,
        // while the rate the server gave before is the better guess.
        if rate.rate == nil, let earlier = earlierRate, earlier > 0 {
            return .remaining(remaining / earlier)
        }
        // Too early for a measured rate: SABnzbd's own estimate, but never the first sample after
        // a (re)start, when the speed meter is still warming up.
        if speedSamples >= 2, let left = queue.timeLeftSeconds, left > 0 {
            return .remaining(left)
        }
        return nil
    }

    // MARK: - Cards

    var countedJobs: [SABnzbdMapperJob] { jobs.filter { $0.place != .removed } }

    /// `2/3 · Job.Name`, or just the name in a one-job session.
    private func subtitle(for id: String?) -> String {
        let counted = countedJobs
        guard let id, let index = counted.firstIndex(where: { $0.id == id }) else {
            return counted.count > 1 ? SABnzbdText.jobs(counted.count) : counted.first?.name ?? ""
        }
        return counted.count > 1 ? "\(index + 1)/\(counted.count) · \(counted[index].name)" : counted[index].name
    }

    private func liveCard(_ stage: Stage, focus: String?, queue: SABnzbdQueue, at t: Double) -> SABnzbdCard {
        let subtitle = subtitle(for: focus)
        let job = jobs.first { $0.id == focus }
        switch stage {
        case .waiting:
            return SABnzbdCard(state: "Waiting", icon: "hourglass", accent: "teal", subtitle: subtitle)
        case .propagating:
            return SABnzbdCard(state: "Waiting for propagation", icon: "hourglass", accent: "teal", subtitle: subtitle)
                .detailed(job?.labels.first)
        case .checking:
            return SABnzbdCard(state: "Checking", icon: "magnifyingglass", accent: "teal", subtitle: subtitle)
        case .fetching:
            return SABnzbdCard(state: "Fetching", icon: "arrow.down.doc", accent: "teal", subtitle: subtitle)
        case .downloading:
            let speed = queue.bytesPerSecond > 0 ? SABnzbdText.speed(queue.bytesPerSecond) : nil
            return SABnzbdCard(state: "Downloading", icon: "arrow.down.circle", accent: "blue", subtitle: subtitle)
                .detailed(speed)
        case .stalled:
            let since = lastAdvanceAt ?? segmentStart ?? t
            return SABnzbdCard(state: "Stalled", icon: "exclamationmark.triangle", accent: "orange", subtitle: subtitle)
                .detailed("no data for \(SABnzbdText.duration(t - since))")
        case .paused:
            return SABnzbdCard(state: "Paused", icon: "pause.circle", accent: "yellow", subtitle: subtitle)
        case .jobPaused:
            return SABnzbdCard(state: "Job paused", icon: "pause.circle", accent: "yellow", subtitle: subtitle)
        case .postProcessing:
            let text = SABnzbdStageText.postProcessing(job?.status ?? "")
            let detail = job.map { $0.actionLine.isEmpty ? $0.failMessage : $0.actionLine }
            return SABnzbdCard(state: text.state, icon: text.icon, accent: "purple", subtitle: subtitle).detailed(
                detail)
        case .settled:
            // Every job is final and the session waits out its idle polls: the summary is what the
            // end will show, and showing it now is the push the end needed anyway.
            return finalCard().card
        }
    }

    /// The summary card and outcome once every job is done.
    func finalCard() -> (card: SABnzbdCard, outcome: ActivityOutcome) {
        let counted = countedJobs
        let completed = counted.filter { $0.place == .completed }
        let failed = counted.filter { $0.place != .completed }
        guard !counted.isEmpty else {
            return (
                SABnzbdCard(state: "Removed", icon: "trash", accent: "brown", subtitle: "deleted in SABnzbd"),
                .cancelled
            )
        }
        if failed.isEmpty {
            return (
                SABnzbdCard(
                    state: "Complete", icon: "checkmark.circle.fill", accent: "green", subtitle: summary(completed)),
                .success
            )
        }
        let first = failed[0]
        let reason = first.failMessage.isEmpty ? "failed" : first.failMessage
        if completed.isEmpty {
            let state = failed.count == 1 ? "Failed" : "\(failed.count) jobs failed"
            var subtitle = failed.count == 1 ? reason : "\(first.name): \(reason)"
            if failed.count > 1 { subtitle += " (+\(failed.count - 1) more)" }
            return (SABnzbdCard(state: state, icon: "xmark.octagon.fill", accent: "red", subtitle: subtitle), .failure)
        }
        let state = "\(failed.count) of \(counted.count) failed"
        let subtitle = summary(completed) + " · \(first.name) failed: \(reason)"
        return (
            SABnzbdCard(state: state, icon: "exclamationmark.circle.fill", accent: "orange", subtitle: subtitle),
            .failure
        )
    }

    /// `3 jobs · 1.2 GB · 45 MB/s avg · unpack 2m 3s`, from SABnzbd's own figures.
    func summary(_ jobs: [SABnzbdMapperJob]) -> String {
        let bytes = jobs.reduce(0) { $0 + ($1.historyBytes > 0 ? $1.historyBytes : $1.totalBytes) }
        let downloadTime = jobs.reduce(0) { $0 + $1.downloadTime }
        let processingTime = jobs.reduce(0) { $0 + $1.postProcessingTime }
        var parts = [SABnzbdText.jobs(jobs.count), SABnzbdText.size(bytes)]
        if downloadTime > 0 { parts.append(SABnzbdText.speed(bytes / downloadTime) + " avg") }
        if processingTime > 0 { parts.append("unpack " + SABnzbdText.duration(processingTime)) }
        return parts.joined(separator: " · ")
    }

    // MARK: - Updates

    private func update(_ phase: ActivityPhase, _ card: SABnzbdCard, eta: ActivityETA?, at t: Double) -> ActivityUpdate
    {
        var update = ActivityUpdate(
            slug: settings.slug, name: settings.name, phase: phase, content: card.content(tapURL: settings.tapURL),
            details: card.details, progress: progress, eta: eta, priority: settings.priority, observedAt: t)
        // SABnzbd states a `timeleft` once the download has a speed.
        update.statesFinish = true
        // Post-processing (queued, verifying, repairing, unpacking) moves no byte of the session,
        // and neither does a settled one (every job final, waiting out its idle polls): the
        // progress stands where the download left it, also short of 100 % (missing articles, a
        // job SABnzbd aborted half way), so the card does not glide on toward a finish.
        update.progressHolds = stage == .postProcessing || stage == .settled
        return update
    }

    private mutating func finish(at t: Double) -> [ActivityUpdate] {
        let (card, outcome) = finalCard()
        var updates: [ActivityUpdate] = []
        if !emitted { updates.append(update(.active, card, eta: nil, at: t)) }
        updates.append(update(.ended(outcome), card, eta: nil, at: t))
        knownFinalIDs.formUnion(jobs.map(\.id))
        jobs.removeAll()
        progress = 0
        startedAt = nil
        emitted = false
        stage = nil
        focusID = nil
        quietPolls = 0
        rate.reset()
        return updates
    }
}
