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
        object["glided"] = .bool(glided)
        return .object(object)
    }

    /// Restores a tracker from `snapshot`; nil when the snapshot is unreadable or was made for
    /// another display model.
    public init?(snapshot: JSONValue, model: DisplayModel, settings: EconomySettings) {
        guard let slug = snapshot["slug"]?.stringValue,
            snapshot["model"]?.stringValue == model.rawValue,
            let lifecycleText = snapshot["lifecycle"]?.stringValue,
            let lifecycle = Lifecycle(rawValue: lifecycleText)
        else { return nil }
        self.init(slug: slug, name: snapshot["name"]?.stringValue, model: model, settings: settings)
        var anchor: DisplayAnchor?
        if let object = snapshot["anchor"], let progress = object["progress"]?.doubleValue,
            let time = object["time"]?.doubleValue
        {
            anchor = DisplayAnchor(
                progress: progress, time: time, endDate: object["endDate"]?.doubleValue,
                live: object["live"]?.boolValue ?? false)
        }
        var truth: TruthSample?
        if let object = snapshot["truth"], let time = object["time"]?.doubleValue {
            truth = TruthSample(
                progress: object["progress"]?.doubleValue, time: time,
                progressTime: object["progressTime"]?.doubleValue,
                finish: object["finish"]?.doubleValue, fixedFinish: object["fixed"]?.boolValue ?? false,
                resolution: object["resolution"]?.doubleValue ?? 0, holds: object["holds"]?.boolValue ?? false)
        }
        restore(
            lifecycle: lifecycle, stored: snapshot["stored"] ?? .object([:]),
            lastStable: snapshot["lastStable"] ?? .object([:]), phase: snapshot["phase"]?.stringValue ?? "none",
            anchor: anchor, truth: truth, lastPushAt: snapshot["lastPushAt"]?.doubleValue,
            lastDetailsAt: snapshot["lastDetailsAt"]?.doubleValue, endDue: snapshot["endDue"]?.doubleValue,
            staleTTL: snapshot["staleTTL"]?.doubleValue ?? 0, priority: snapshot["priority"]?.intValue,
            sequence: snapshot["sequence"]?.intValue ?? 0, needsResync: snapshot["needsResync"]?.boolValue ?? false,
            startedAt: snapshot["startedAt"]?.doubleValue, deliveredSequence: snapshot["delivered"]?.intValue,
            glided: snapshot["glided"]?.boolValue, source: snapshot["source"]?.stringValue,
            lifecycleStartedAt: snapshot["lifecycleStartedAt"]?.doubleValue,
            waiting: snapshot["waiting"]?.boolValue ?? false,
            endOutcome: snapshot["endOutcome"]?.stringValue.flatMap(ActivityOutcome.init(rawValue:)))
    }
}
