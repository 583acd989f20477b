public import LiveBridgeCore
public import LiveBridgeKit

/// Recorded SABnzbd answers → the updates the live adapter would have emitted, without sockets.
///
/// The format is JSON Lines, one poll per line: `{"t": 12.5, "queue": {…}, "history": {…}}`.
/// `queue` and `history` are the API answers as SABnzbd sends them (`{"queue": {…}}`) or their
/// inner objects; `history` may be missing or `false` (not read that time). Extra members (the
/// recordings' `t_history`) are ignored. `t` is seconds — relative, or absolute Unix seconds.
public enum SABnzbdReplay {
    /// Whether a JSON record looks like this format (for `livebridge replay`'s detection).
    public static func detects(_ record: JSONValue) -> Bool {
        guard let queue = record["queue"], record["t"]?.doubleValue != nil else { return false }
        return queue["queue"] != nil || queue["slots"] != nil
    }

    /// Parses the recording into observations, times as written.
    public static func observations(fromJSONLines lines: [String]) throws(ReplayError) -> [SABnzbdObservation] {
        var result: [SABnzbdObservation] = []
        var times = ReplayTimes()
        for (offset, line) in lines.enumerated() {
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            let number = offset + 1
            let record: JSONValue
            do throws(JSONParseError) {
                record = try JSONParser.parse(line)
            } catch {
                throw ReplayError(line: number, message: error.description)
            }
            guard let time = record["t"]?.doubleValue else {
                throw ReplayError(line: number, message: "expected an object with a numeric \"t\"")
            }
            try times.check(time, line: number)
            guard let queueAnswer = record["queue"] else {
                throw ReplayError(line: number, message: "missing \"queue\" (the mode=queue answer)")
            }
            do throws(SABnzbdAnswerError) {
                let queue = try SABnzbdQueue(answer: queueAnswer)
                var history: SABnzbdHistory?
                if let answer = record["history"], !answer.isNull, answer != .bool(false) {
                    history = try SABnzbdHistory.decode(answer: answer)
                }
                result.append(SABnzbdObservation(time: time, queue: queue, history: history))
            } catch {
                throw ReplayError(line: number, message: error.message)
            }
        }
        return result
    }

    /// The updates for a recording, with `observedAt` set.
    ///
    /// - Parameters:
    ///   - base: when given, times move so the recording starts at `base` (absolute `t`) or
    ///     counts from it (relative `t`, below 10⁹).
    ///   - pollInterval: replay only polls at least this far apart (0 = every line), to see what
    ///     an adapter polling at that interval would have emitted.
    ///   - idleTail: when the recording stops while the session waits out its last quiet polls,
    ///     repeat the last answer as the next polls would have seen it, so the session ends.
    public static func updates(
        fromJSONLines lines: [String], settings: SABnzbdMapperSettings, startingAt base: Double? = nil,
        pollInterval: Double = 0, idleTail: Bool = true
    ) throws(ReplayError) -> [ActivityUpdate] {
        var observations = try observations(fromJSONLines: lines)
        if let base, let first = observations.first?.time {
            let shift = first >= 1e9 ? base - first : base
            for index in observations.indices { observations[index].time += shift }
        }
        return updates(from: observations, settings: settings, pollInterval: pollInterval, idleTail: idleTail)
    }

    /// The updates for observations already decoded (times used as they are).
    public static func updates(
        from observations: [SABnzbdObservation], settings: SABnzbdMapperSettings, pollInterval: Double = 0,
        idleTail: Bool = true
    ) -> [ActivityUpdate] {
        var session = SABnzbdMapper(settings: settings)
        var result: [ActivityUpdate] = []
        var lastKept: SABnzbdObservation?
        var spacings: [Double] = []
        for observation in observations {
            if let lastKept {
                guard observation.time >= lastKept.time + pollInterval - 0.05 else { continue }
                spacings.append(observation.time - lastKept.time)
            }
            lastKept = observation
            result += session.observe(observation)
        }
        // The recording stopped with SABnzbd idle: the next polls would have seen the same.
        guard idleTail, session.isOpen, let last = lastKept, var tail = observations.last, tail.queue.slots.isEmpty,
            (tail.history?.postProcessingSlots ?? 0) == 0
        else { return result }
        let step = pollInterval > 0 ? pollInterval : spacings.sorted().dropFirst(spacings.count / 2).first ?? 1
        tail.time = last.time
        for _ in 0...max(0, settings.endAfterIdlePolls) + 1 where session.isOpen {
            tail.time += step
            result += session.observe(tail)
        }
        return result
    }
}
