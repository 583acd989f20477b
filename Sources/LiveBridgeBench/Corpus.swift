import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeSABnzbd

/// The generated corpus: families of job trajectories, each with seeded variants, shaped like what
/// the adapters report from real sources (the resolution, the cadence, the estimates' biases).
///
/// The economy is judged on jobs nobody has seen, so no family is tuned on: each draws its
/// parameters (size, speed, cadence, where and how long a stall or a pause is, the bias of an
/// estimate) from its seed. `livebridge-bench` runs every variant; the test suite runs a seeded
/// subset and checks the invariants on each.
enum Corpus {
    /// One family: a name, what it models, and its generator.
    /// Variants per family in the full bench.
    static let variants = 40

    /// `FAMILY:VARIANT` (`stall:7`) as a trajectory, for `--explain`.
    static func job(named name: String) -> LoadedTrajectory? {
        let parts = name.split(separator: ":")
        guard parts.count == 2, let variant = Int(parts[1]),
            let index = families.firstIndex(where: { $0.name == parts[0] })
        else { return nil }
        let family = families[index]
        let seed = CorpusBench.seed(family: index, variant: variant)
        return LoadedTrajectory(
            name: "job", kind: family.kind, summary: "\(family.name) variant \(variant): \(family.summary)",
            origin: "corpus", updates: family.generate(seed, ReplayCommand.base))
    }

    /// Every family: the bench's own generated trajectories, then those the sources declare
    /// (`SourceDescriptor.trajectories`, in the registry's order: the MQTT source's four), then the
    /// bench's families that joined after those (a variant's seed follows its family's place, so a
    /// new family joins at the end and every other family keeps its jobs).
    static let families: [TrajectoryFamily] =
        trajectoryFamilies + ComponentRegistry.standard.sources.flatMap(\.trajectories) + laterFamilies

    static let trajectoryFamilies: [TrajectoryFamily] = [
        TrajectoryFamily(
            name: "steady", summary: "download at a steady speed ±8 %, 5 min–3 h, polls 1–5 s", kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(300...10_800)
            let speed = r.uniform(2e6...40e6)
            return download(&r, bytes: seconds * speed, regimes: [(speed, nil)], base: base)
        },
        TrajectoryFamily(
            name: "speed-change", summary: "download whose server speed changes 1–4 times by ×0.3–×3", kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(900...7200)
            var regimes: [(Double, Double?)] = []
            var speed = r.uniform(3e6...30e6)
            var total = 0.0
            for _ in 0..<Int(r.uniform(1...4.99)) {
                let length = r.uniform(0.1...0.4) * seconds
                regimes.append((speed, length))
                total += speed * length
                speed = max(5e5, speed * r.uniform(0.3...3))
            }
            regimes.append((speed, nil))
            total += speed * seconds * 0.3
            return download(&r, bytes: total, regimes: regimes, base: base)
        },
        TrajectoryFamily(
            name: "stall", summary: "download whose news server stops answering for 30 s–10 min", kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(120...3600)
            let speed = r.uniform(1e6...20e6)
            let before = r.uniform(0.15...0.75) * seconds
            let stall = r.uniform(30...600)
            return download(
                &r, bytes: seconds * speed,
                regimes: [(speed, before), (0, stall), (speed * r.uniform(0.7...1.3), nil)],
                base: base)
        },
        TrajectoryFamily(
            name: "growing-total", summary: "download whose remaining bytes grow mid-job (par2 repair blocks)",
            kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(60...3600)
            let speed = r.uniform(1e6...20e6)
            let bytes = seconds * speed
            let growths = (0..<Int(r.uniform(1...3.99))).map { _ in
                (at: r.uniform(0.3...0.9), bytes: bytes * r.uniform(0.03...0.25))
            }
            return download(&r, bytes: bytes, regimes: [(speed, nil)], growth: growths, base: base)
        },
        TrajectoryFamily(
            name: "pauses", summary: "download paused (queue or one job) 1–3 times for 10 s–15 min", kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(60...5400)
            let speed = r.uniform(1e6...20e6)
            let pauses = (0..<Int(r.uniform(1...3.99))).map { _ in
                (at: r.uniform(0.1...0.9), seconds: r.uniform(10...900))
            }.sorted { $0.at < $1.at }
            return download(&r, bytes: seconds * speed, regimes: [(speed, nil)], pauses: pauses, base: base)
        },
        TrajectoryFamily(
            name: "multi-job", summary: "a session of 2–5 downloads joining while it runs, a card per job",
            kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let jobs = Int(r.uniform(2...5.99))
            let speed = r.uniform(2e6...30e6)
            let sizes = (0..<jobs).map { _ in r.uniform(200...1500) * speed }
            let joins = (0..<jobs).map { index in index == 0 ? 0 : r.uniform(0...0.8) }.sorted()
            return session(&r, sizes: sizes, joins: joins, speed: speed, base: base)
        },
        TrajectoryFamily(
            name: "stepwise", summary: "low-speed download counted in article-sized steps (0.3–1 % each)",
            kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(300...5400)
            let speed = r.uniform(1e5...8e5)
            let step = seconds * speed * r.uniform(0.003...0.01)
            return download(&r, bytes: seconds * speed, regimes: [(speed, nil)], step: step, base: base)
        },
        TrajectoryFamily(
            name: "biased-eta", summary: "print: whole %, whole-minute estimate floored, slicer 10–30 % long or short",
            kind: .print
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            return print(&r, minutes: r.uniform(20...360), bias: r.uniform(-0.3...0.3), base: base)
        },
        TrajectoryFamily(
            name: "sensor-sampled",
            summary: "appliance: progress in whole % every 30–60 s, remaining in whole minutes every 60 s",
            kind: .washer
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            return appliance(&r, minutes: r.uniform(8...150), fixedFinish: false, base: base)
        },
        TrajectoryFamily(
            name: "non-linear-fixed",
            summary: "appliance program against a fixed finish (timer), phases at their own pace", kind: .washer
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            return appliance(&r, minutes: r.uniform(20...180), fixedFinish: true, base: base)
        },
        TrajectoryFamily(
            name: "short", summary: "jobs under 2 minutes: 20 s–2 min at a steady speed, polls 0.5–3 s", kind: .download
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(20...119)
            let speed = r.uniform(1e6...10e6)
            return download(
                &r, bytes: seconds * speed, regimes: [(speed, nil)], interval: r.uniform(0.5...3), postProcessing: 5,
                base: base)
        },
        TrajectoryFamily(
            name: "long", summary: "prints of 6–20 h: whole % and minutes, speed drifting section by section",
            kind: .print
        ) {
            seed, base in
            var r = SeededRandom(seed: seed)
            return print(&r, minutes: r.uniform(360...1200), bias: r.uniform(-0.15...0.15), interval: 10, base: base)
        },
        TrajectoryFamily(
            name: "coarse-stepwise",
            summary: "small download from a slow server: 1–4 articles landing together, 2–20 % of the job a step",
            kind: .download
        ) {
            seed, base in
            var (r, bytes, speed) = slowServer(seed)
            // A news server's articles (384 KB) over 1–4 connections that finish together.
            let step = 384_000 * r.uniform(1...4.99).rounded(.down)
            return download(
                &r, bytes: bytes, regimes: [(speed, nil)], interval: r.uniform(2...5).rounded(), step: step, base: base)
        },
        TrajectoryFamily(
            name: "uneven-articles",
            summary: "small download from a slow server: articles landing one by one, unevenly, over 1–4 connections",
            kind: .download
        ) {
            seed, base in
            var (r, bytes, speed) = slowServer(seed)
            // Each connection fetches its articles (384 KB) one after the other at its share of
            // the speed, every article taking 0.5–1.5 × its usual time (a busy server): the count
            // moves when any connection finishes one, so its steps come at uneven times.
            let article = 384_000.0
            let connections = Int(r.uniform(1...4.99).rounded(.down))
            var clocks = (0..<connections).map { _ in r.uniform(0...1) * article / (speed / Double(connections)) }
            var arrivals: [Double] = []
            for index in 0..<Int((bytes / article).rounded(.up)) {
                let connection = index % connections
                clocks[connection] += article / (speed / Double(connections)) * r.uniform(0.5...1.5)
                arrivals.append(clocks[connection])
            }
            return download(
                &r, bytes: bytes, regimes: [(speed, nil)], interval: r.uniform(2...5).rounded(), step: article,
                arrivals: arrivals.sorted(), base: base)
        },
    ]

    static let laterFamilies: [TrajectoryFamily] = [
        TrajectoryFamily(
            name: "slow-poll",
            summary: "download polled every 15–30 s, 10–90 min, counted in articles of 0.3–3 % of the job",
            kind: .download
        ) {
            seed, base in
            // A bridge polling SABnzbd every half minute (or a recording stretched to an hour):
            // 0–3 articles land between two readings, the truth between them is a straight line.
            var (r, seconds, interval, bytes) = slowPoll(seed, seconds: 600...5400)
            return download(
                &r, bytes: bytes, regimes: [(bytes / seconds, nil)], interval: interval, step: slowPollArticle,
                base: base)
        },
        TrajectoryFamily(
            name: "slow-speed-change",
            summary: "download polled every 15–30 s, 20–120 min, its speed changing once by ×0.4–×0.7 or ×1.5–×2.5",
            kind: .download
        ) {
            seed, base in
            // The slow poll of `slow-poll` with a server that slows down or speeds up once at 30–70 %
            // of the job (the recordings stretched to an hour halve their rate at half way).
            slowSpeedChange(seed, base: base, stretched: false)
        },
        TrajectoryFamily(
            name: "stretched-speed-change",
            summary: "`slow-speed-change` with the speed meter turning over 5–15 min (a recording stretched ×30–×90)",
            kind: .download
        ) {
            seed, base in
            // A recording replayed stretched: SABnzbd's meter, the mean of its last 10 s, becomes
            // the mean of the last 5–15 minutes, so its estimate turns over many answers after a
            // change of speed instead of at the next one.
            slowSpeedChange(seed, base: base, stretched: true)
        },
        TrajectoryFamily(
            name: "opening-burst",
            summary: "download whose second answer jumps 5–20 % (articles missing on the server, counted at once), "
                + "then a steady speed; polls 1–30 s, 5–90 min, counted in articles",
            kind: .download
        ) {
            seed, base in
            // A repair job's missing articles fail at once and count as done: the answer after
            // the first that says the job downloads jumps, the speed meter never saw those bytes,
            // and the rest of the job downloads at the server's speed.
            var r = SeededRandom(seed: seed)
            let seconds = r.uniform(300...5400)
            let interval = r.uniform(1...30).rounded()
            let bytes = slowPollArticle / r.uniform(0.003...0.03)
            let opening = bytes * r.uniform(0.05...0.2)
            return download(
                &r, bytes: bytes, regimes: [((bytes - opening) / seconds, nil)], interval: interval,
                step: slowPollArticle, opening: opening, base: base)
        },
    ]

    /// A slowly polled download whose server slows down (×0.4–×0.7) or speeds up (×1.5–×2.5) once,
    /// at 30–70 % of the bytes; `stretched`: SABnzbd's speed meter averages 10 s × 30–90.
    static func slowSpeedChange(_ seed: UInt64, base: Double, stretched: Bool) -> [ActivityUpdate] {
        var (r, seconds, interval, bytes) = slowPoll(seed, seconds: 1200...7200)
        let factor = r.uniform(0...1) < 0.5 ? r.uniform(0.4...0.7) : r.uniform(1.5...2.5)
        let share = r.uniform(0.3...0.7)
        let meter = stretched ? 10 * r.uniform(30...90) : 10
        // The first speed takes `share` of the bytes, the second the rest, `seconds` in all.
        let first = bytes * (share + (1 - share) / factor) / seconds
        return download(
            &r, bytes: bytes, regimes: [(first, bytes * share / first), (first * factor, nil)],
            interval: interval, step: slowPollArticle, meter: meter, base: base)
    }

    /// SABnzbd's article in the slowly polled families (384 KB).
    static let slowPollArticle = 384_000.0

    /// A slowly polled download: the seed's random source, then its length within `seconds`, the
    /// poll interval (15–30 s) and its size (articles of 0.3–3 % of it), drawn in that order.
    static func slowPoll(_ seed: UInt64, seconds: ClosedRange<Double>)
        -> (SeededRandom, Double, Double, Double)
    {
        var r = SeededRandom(seed: seed)
        let length = r.uniform(seconds)
        let interval = r.uniform(15...30).rounded()
        let bytes = slowPollArticle / r.uniform(0.003...0.03)
        return (r, length, interval, bytes)
    }

    // MARK: - Downloads

    /// A small download from a slow server: the seed's random source, then its size (8–60 MB) and
    /// the server's speed (10–80 KB/s), drawn in that order.
    static func slowServer(_ seed: UInt64) -> (SeededRandom, Double, Double) {
        var r = SeededRandom(seed: seed)
        let bytes = r.uniform(8e6...60e6)
        let speed = r.uniform(1e4...8e4)
        return (r, bytes, speed)
    }

    /// A download as a SABnzbd answers it, through the adapter's own mapping (`SABnzbdMapper`):
    /// the queue's bytes over a total that may grow, moving in article-sized steps when `step` is
    /// set, SABnzbd's speed meter (the mean of the last `meter` seconds, 10 on a live server, so it
    /// lags and decays) and its
    /// `timeleft` from it, paused stretches (a queue pause), `opening` bytes counted done by the
    /// second answer that says the job downloads, without passing the meter (articles missing on
    /// the server), and post-processing in the history before the job completes there.
    static func download(
        _ r: inout SeededRandom, bytes: Double, regimes: [(Double, Double?)], interval explicitInterval: Double? = nil,
        growth: [(at: Double, bytes: Double)] = [], pauses: [(at: Double, seconds: Double)] = [], step: Double = 0,
        arrivals: [Double]? = nil, postProcessing explicitPost: Double? = nil, meter: Double = 10, opening: Double = 0,
        base: Double
    ) -> [ActivityUpdate] {
        let interval = explicitInterval ?? r.uniform(1...5).rounded()
        let postProcessing = explicitPost ?? r.uniform(10...180)
        var total = bytes
        var done = 0.0
        var reported = 0.0
        var t = 0.0
        var regime = 0
        var regimeStart = 0.0
        var recent: [Double] = []
        var wobble = 0.0
        var pendingGrowth = growth.sorted { $0.at < $1.at }
        var pendingPauses = pauses
        var pausedUntil: Double?
        var downloadTime = 0.0
        var openingLeft = opening
        var observations: [SABnzbdObservation] = []
        let id = "SABnzbd_nzo_corpus"
        let name = "Corpus.Job"
        // What the queue reports of `bytes` downloaded: whole articles of `step`, all of them at the end.
        func counted(_ bytes: Double) -> Double {
            step > 0 && bytes < total ? (bytes / step).rounded(.down) * step : bytes
        }
        func answer(paused: Bool, speed: Double) {
            let left = max(0, total - reported)
            let timeLeft = speed > 1000 && !paused ? SABnzbdClock.text(left / speed) : "0:00:00"
            let slot = SABnzbdQueueSlot(
                id: id, name: name, status: "Downloading", totalBytes: total, remainingBytes: left, timeLeft: timeLeft)
            let queue = SABnzbdQueue(
                status: paused ? "Paused" : speed > 0 ? "Downloading" : "Idle", paused: paused, bytesPerSecond: speed,
                totalBytes: total, remainingBytes: left, timeLeft: timeLeft, slots: [slot])
            observations.append(SABnzbdObservation(time: base + t, queue: queue, history: SABnzbdHistory()))
        }
        while reported < total - 1 {
            while let seconds = regimes[regime].1, t - regimeStart >= seconds, regime + 1 < regimes.count {
                regimeStart += seconds
                regime += 1
            }
            if let until = pausedUntil {
                if t < until {
                    answer(paused: true, speed: 0)
                    t += interval
                    continue
                }
                pausedUntil = nil
                recent.removeAll()
            }
            if let next = pendingPauses.first, reported / total >= next.at {
                pendingPauses.removeFirst()
                pausedUntil = t + next.seconds
                continue
            }
            if let next = pendingGrowth.first, reported / total >= next.at {
                pendingGrowth.removeFirst()
                total += next.bytes
            }
            if openingLeft > 0, t >= 2 * interval - 1e-9 {
                // Bytes counted done without passing the speed meter (`opening`), between the
                // first answer that says the job downloads and the next.
                done = min(total, done + openingLeft)
                openingLeft = 0
                reported = counted(done)
            }
            answer(paused: false, speed: recent.isEmpty ? 0 : recent.reduce(0, +) / Double(recent.count))
            wobble = 0.8 * wobble + r.uniform(-0.08...0.08)
            let speed = max(0, regimes[regime].0 * (1 + wobble))
            done = min(total, done + speed * interval)
            if let arrivals {
                // Articles of `step` bytes landing at the given times (the speed meter still sees
                // the bytes stream in).
                reported = min(total, step * Double(arrivals.prefix { $0 <= t + interval }.count))
            } else {
                reported = counted(done)
            }
            // The meter's last `meter` seconds; a poll further apart than that still reads the
            // latest speed.
            recent.append(speed)
            if recent.count > 1, Double(recent.count) * interval > meter { recent.removeFirst() }
            if speed > 0 { downloadTime += interval }
            t += interval
        }
        // Downloaded: the job leaves the queue for the history's post-processing, then completes.
        let idle = SABnzbdQueue(status: "Idle")
        let end = t + postProcessing
        while t < end {
            let slot = SABnzbdHistorySlot(
                id: id, name: name, status: "Extracting", loaded: true, actionLine: "Unpacking", bytes: total)
            observations.append(SABnzbdObservation(time: base + t, queue: idle, history: SABnzbdHistory(slots: [slot])))
            t += interval
        }
        let completed = SABnzbdHistorySlot(
            id: id, name: name, status: "Completed", bytes: total, downloadTime: downloadTime,
            postProcessingTime: postProcessing, completed: base + t)
        observations.append(
            SABnzbdObservation(time: base + t, queue: idle, history: SABnzbdHistory(slots: [completed])))
        return SABnzbdReplay.updates(
            from: observations, settings: SABnzbdMapperSettings(slug: "job", name: "SABnzbd")
        )
    }

    /// A session of downloads: the card names the current job (`2/3 · name`), progress is over the
    /// session's bytes, jobs join at `joins` (fractions of the first job's time).
    static func session(_ r: inout SeededRandom, sizes: [Double], joins: [Double], speed: Double, base: Double)
        -> [ActivityUpdate]
    {
        let interval = r.uniform(1...4).rounded()
        var t = 0.0
        var joined = 1
        var done = Array(repeating: 0.0, count: sizes.count)
        var progress = 0.0
        var result: [ActivityUpdate] = []
        let firstJobTime = sizes[0] / speed
        var wobble = 0.0
        while true {
            while joined < sizes.count, t >= joins[joined] * firstJobTime { joined += 1 }
            let active = (0..<joined).first { done[$0] < sizes[$0] }
            guard let current = active else { break }
            let left = (0..<joined).reduce(0) { $0 + sizes[$1] - done[$1] }
            result.append(
                ActivityUpdate(
                    slug: "job", name: "SABnzbd", phase: .active,
                    content: GenericContent(
                        state: "Downloading", icon: "arrow.down.circle",
                        subtitle: "\(current + 1)/\(joined) · Job \(current + 1)"),
                    progress: progress, eta: t > 0 ? .remaining((left / speed).rounded()) : nil, observedAt: base + t))
            wobble = 0.8 * wobble + r.uniform(-0.06...0.06)
            let got = speed * (1 + wobble) * interval
            done[current] = min(sizes[current], done[current] + got)
            if left > 0 { progress = min(1, progress + (1 - progress) * min(got, left) / left) }
            t += interval
        }
        result.append(
            ActivityUpdate(
                slug: "job", name: "SABnzbd", phase: .ended(.success),
                content: GenericContent(state: "Completed", icon: "checkmark.circle"), progress: 1, observedAt: base + t
            ))
        return result
    }

    // MARK: - Prints

    /// A print as a Bambu printer reports it: preparation without an estimate, then `mc_percent`
    /// (whole %, floored) and `mc_remaining_time` (whole minutes, floored) from a slicer model that
    /// is off by `bias` overall and by ±15 % section by section; the layer as a volatile detail.
    static func print(_ r: inout SeededRandom, minutes: Double, bias: Double, interval: Double = 2, base: Double)
        -> [ActivityUpdate]
    {
        let slicer = minutes * 60
        let (weights, actual) = SlicedPrint.sections(&r, seconds: slicer, bias: bias)
        let layers = Int(r.uniform(60...600))
        let preparation = r.uniform(60...420).rounded()
        var result: [ActivityUpdate] = []
        func emit(
            _ t: Double, _ phase: ActivityPhase, _ state: String, fraction: Double, minutesLeft: Int?, layer: Int?
        ) {
            var details = GenericContent()
            if let layer { details.subtitle = .value("Benchy · Layer \(layer)/\(layers)") }
            result.append(
                ActivityUpdate(
                    slug: "job", name: "X1 Carbon", phase: phase,
                    content: GenericContent(state: state, icon: "printer.fill"),
                    details: details, progress: (fraction * 100).rounded(.down) / 100,
                    eta: minutesLeft.map { .remaining(Double($0) * 60) }, observedAt: base + t,
                    progressResolution: 0.01, etaResolution: 60))
            // The printer states its minutes left, as `BambuActivityMapper` says.
            result[result.count - 1].statesFinish = true
        }
        var t = 0.0
        while t < preparation {
            emit(t, .active, "Preparing", fraction: 0, minutesLeft: nil, layer: nil)
            t += interval
        }
        let start = t
        let totalActual = actual.reduce(0, +)
        while t - start < totalActual {
            let done = SlicedPrint.slicerTime(done: t - start, weights: weights, actual: actual)
            let fraction = min(1, done / slicer)
            emit(
                t, .active, "Printing", fraction: fraction, minutesLeft: Int(((slicer - done) / 60).rounded(.down)),
                layer: max(1, Int((fraction * Double(layers)).rounded(.up))))
            t += interval
        }
        emit(t, .ended(.success), "Complete", fraction: 1, minutesLeft: nil, layer: layers)
        return result
    }

    // MARK: - Appliances

    /// A washer or dishwasher through Home Assistant: a program of 3–6 phases at their own pace
    /// (card text per phase), progress sensor in whole % sampled every 30–60 s, and either a
    /// remaining-minutes sensor every 60 s (its own entity: the progress value it travels with is
    /// the one reported earlier, true at its `last_changed`) or a timer's fixed `finishes_at`.
    static func appliance(_ r: inout SeededRandom, minutes: Double, fixedFinish: Bool, base: Double) -> [ActivityUpdate]
    {
        let duration = (minutes * 60).rounded()
        let phaseNames = ["Washing", "Rinsing", "Spinning", "Drying", "Soaking", "Heating"]
        let count = Int(r.uniform(3...6.99))
        var shares = (0..<count).map { _ in r.uniform(0.5...1.5) }
        let shareSum = shares.reduce(0, +)
        shares = shares.map { $0 / shareSum }
        // Each phase's share of the time and of the percentage differ: a non-linear program.
        var weights = (0..<count).map { _ in r.uniform(0.5...1.5) }
        let weightSum = weights.reduce(0, +)
        weights = weights.map { $0 / weightSum }
        let progressInterval = r.uniform(30...60).rounded()
        let remainingOffset = r.uniform(0...59).rounded()
        func truth(_ t: Double) -> (progress: Double, phase: Int) {
            var elapsed = t / duration
            var done = 0.0
            for index in 0..<count {
                if elapsed <= shares[index] { return (done + weights[index] * elapsed / shares[index], index) }
                elapsed -= shares[index]
                done += weights[index]
            }
            return (1, count - 1)
        }
        var result: [ActivityUpdate] = []
        var lastProgress = 0.0
        var lastProgressAt = 0.0
        var nextProgress = 0.0
        var nextRemaining = remainingOffset
        var lastRemaining: Double?
        var lastRemainingAt = 0.0
        var t = 0.0
        while t < duration {
            let now = truth(t)
            let state = phaseNames[now.phase % phaseNames.count]
            var carries: Double?
            var remainingChanged = false
            if t >= nextProgress {
                lastProgress = (now.progress * 100).rounded(.down) / 100
                lastProgressAt = t
                carries = lastProgress
                nextProgress += progressInterval
            }
            if !fixedFinish, t >= nextRemaining {
                lastRemaining = ((duration - t) / 60).rounded(.down) * 60
                lastRemainingAt = t
                remainingChanged = true
                nextRemaining += 60
            }
            // Every update carries the latest value of each entity, counted from the time it was
            // true (its `last_changed`), as the adapter's mapping does.
            let eta: ActivityETA? =
                fixedFinish
                ? .finishesAt(base + duration) : lastRemaining.map { .remaining(max(0, $0 - (t - lastRemainingAt))) }
            if carries != nil || remainingChanged || result.isEmpty {
                result.append(
                    ActivityUpdate(
                        slug: "job", name: "Washer", phase: .active,
                        content: GenericContent(state: state, icon: "washer.fill"), progress: carries ?? lastProgress,
                        eta: eta, observedAt: base + t, progressObservedAt: base + lastProgressAt,
                        progressResolution: 0.01, etaResolution: fixedFinish ? nil : 60))
                // A remaining-time sensor or a timer states the finish, as the adapter's mapping says.
                result[result.count - 1].statesFinish = true
            }
            t += 1
        }
        result.append(
            ActivityUpdate(
                slug: "job", name: "Washer", phase: .ended(.success),
                content: GenericContent(state: "Done", icon: "washer.fill"),
                progress: 1, observedAt: base + duration + 1))
        return result
    }
}
