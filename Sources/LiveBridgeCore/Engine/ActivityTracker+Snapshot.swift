extension ActivityTracker {
    /// The tracker's state as JSON, written to the data directory so a restart resumes the same
    /// activity without a second create or a re-seed.
    public var snapshot: JSONValue {
        var object: [String: JSONValue] = [
            "slug": .string(slug), "name": .string(name), "lifecycle": .string(lifecycle.rawValue),
            "stored": stored, "lastStable": lastStableContent, "phase": .string(lastPhase),
            "staleTTL": .number(currentStaleTTL), "sequence": .int(Int64(sequence)),
            "needsResync": .bool(resyncPending), "model": .string(model.rawValue),
            "delivered": .int(Int64(deliveredSequence)),
        ]
        if let anchor {
            var anchorObject: [String: JSONValue] = [
                "progress": .number(anchor.progress), "time": .number(anchor.time), "live": .bool(anchor.live),
            ]
            if let endDate = anchor.endDate { anchorObject["endDate"] = .number(endDate) }
            object["anchor"] = .object(anchorObject)
        }
        if let truth {
            var truthObject: [String: JSONValue] = ["time": .number(truth.time), "fixed": .bool(truth.fixedFinish)]
            if let progress = truth.progress { truthObject["progress"] = .number(progress) }
            if truth.progressTime != truth.time { truthObject["progressTime"] = .number(truth.progressTime) }
            if truth.resolution > 0 { truthObject["resolution"] = .number(truth.resolution) }
            if truth.holds { truthObject["holds"] = .bool(true) }
            if let finish = truth.finish { truthObject["finish"] = .number(finish) }
            object["truth"] = .object(truthObject)
        }
        if let lastPushAt { object["lastPushAt"] = .number(lastPushAt) }
        if let lastDetails = detailsRefreshedAt { object["lastDetailsAt"] = .number(lastDetails) }
        if let due = endDueAt { object["endDue"] = .number(due) }
        if let outcome = pendingEndOutcome { object["endOutcome"] = .string(outcome.rawValue) }
        if let priority = activityPriority { object["priority"] = .int(Int64(priority)) }
        if let started = jobStartedAt { object["startedAt"] = .number(started) }
        if let source { object["source"] = .string(source) }
        if waiting { object["waiting"] = true }
        if let started = liveActivityStartedAt, started != jobStartedAt {
            object["lifecycleStartedAt"] = .number(started)
        }
        if let gap = observationGap { object["observationGap"] = .number(gap) }
        object["glided"] = .bool(glided)
        return .object(object)
    }

    /// Restores a tracker from `snapshot`; nil when the snapshot is unreadable or was made for
    /// another display model. A number past what the tracker ever writes (a damaged or hand-edited
    /// file) reads as missing, so nothing derived from it can trap.
    public init?(snapshot: JSONValue, model: DisplayModel, settings: EconomySettings) {
        guard let slug = snapshot["slug"]?.stringValue,
            snapshot["model"]?.stringValue == model.rawValue,
            let lifecycleText = snapshot["lifecycle"]?.stringValue,
            let lifecycle = Lifecycle(rawValue: lifecycleText)
        else { return nil }
        self.init(slug: slug, name: snapshot["name"]?.stringValue, model: model, settings: settings)
        var anchor: DisplayAnchor?
        if let object = snapshot["anchor"], let progress = object["progress"]?.storedNumber,
            let time = object["time"]?.storedNumber
        {
            anchor = DisplayAnchor(
                progress: progress, time: time, endDate: object["endDate"]?.storedNumber,
                live: object["live"]?.boolValue ?? false)
        }
        var truth: TruthSample?
        if let object = snapshot["truth"], let time = object["time"]?.storedNumber {
            truth = TruthSample(
                progress: object["progress"]?.storedNumber, time: time,
                progressTime: object["progressTime"]?.storedNumber,
                finish: object["finish"]?.storedNumber, fixedFinish: object["fixed"]?.boolValue ?? false,
                resolution: object["resolution"]?.storedNumber ?? 0, holds: object["holds"]?.boolValue ?? false)
        }
        restore(
            lifecycle: lifecycle, stored: snapshot["stored"] ?? .object([:]),
            lastStable: snapshot["lastStable"] ?? .object([:]), phase: snapshot["phase"]?.stringValue ?? "none",
            anchor: anchor, truth: truth, lastPushAt: snapshot["lastPushAt"]?.storedNumber,
            lastDetailsAt: snapshot["lastDetailsAt"]?.storedNumber, endDue: snapshot["endDue"]?.storedNumber,
            staleTTL: snapshot["staleTTL"]?.storedNumber ?? 0, priority: snapshot["priority"]?.intValue,
            sequence: snapshot["sequence"]?.storedCount ?? 0, needsResync: snapshot["needsResync"]?.boolValue ?? false,
            startedAt: snapshot["startedAt"]?.storedNumber, deliveredSequence: snapshot["delivered"]?.storedCount,
            glided: snapshot["glided"]?.boolValue, source: snapshot["source"]?.stringValue,
            lifecycleStartedAt: snapshot["lifecycleStartedAt"]?.storedNumber,
            waiting: snapshot["waiting"]?.boolValue ?? false,
            endOutcome: snapshot["endOutcome"]?.stringValue.flatMap(ActivityOutcome.init(rawValue:)),
            observationGap: snapshot["observationGap"]?.storedNumber)
    }
}
