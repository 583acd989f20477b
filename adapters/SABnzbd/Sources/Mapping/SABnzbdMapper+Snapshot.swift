public import LiveBridgeCore

extension SABnzbdMapper {
    /// The part of the session a restarted bridge needs to continue the same activity: the jobs
    /// by `nzo_id` with what they counted, and the progress (a `card` member of older snapshots is
    /// ignored: the card follows from the next answer).
    public var snapshot: JSONValue {
        let jobList: [JSONValue] = jobs.map { job in
            [
                "id": .string(job.id), "name": .string(job.name), "place": .string(job.place.rawValue),
                "status": .string(job.status), "total": .number(job.totalBytes.rounded()),
                "done": .number(job.doneBytes.rounded()), "remaining": .number(job.remainingBytes.rounded()),
                "failMessage": .string(job.failMessage), "historyBytes": .number(job.historyBytes.rounded()),
                "downloadTime": .number(job.downloadTime), "postProcessingTime": .number(job.postProcessingTime),
            ]
        }
        var object: [String: JSONValue] = [
            "version": 1, "slug": .string(settings.slug), "jobs": .array(jobList), "progress": .number(progress),
            "emitted": .bool(emitted),
        ]
        if let startedAt { object["startedAt"] = .number(startedAt) }
        return .object(object)
    }

    /// Restores a session from `snapshot`; nil when it is unreadable or belongs to another slug.
    public init?(snapshot: JSONValue, settings: SABnzbdMapperSettings) {
        guard snapshot["version"]?.intValue == 1, snapshot["slug"]?.stringValue == settings.slug,
            let list = snapshot["jobs"]?.arrayValue
        else { return nil }
        self.init(settings: settings)
        for entry in list {
            guard let id = entry["id"]?.stringValue, let placeText = entry["place"]?.stringValue,
                let place = SABnzbdMapperJob.Place(rawValue: placeText)
            else { return nil }
            jobs.append(
                SABnzbdMapperJob(
                    id: id, name: entry["name"]?.stringValue ?? id,
                    // Where it is now is for the next answer to say.
                    place: place == .queue ? .unknown : place, status: entry["status"]?.stringValue ?? "",
                    totalBytes: entry["total"]?.doubleValue ?? 0, doneBytes: entry["done"]?.doubleValue ?? 0,
                    remainingBytes: entry["remaining"]?.doubleValue ?? 0,
                    failMessage: entry["failMessage"]?.stringValue ?? "",
                    historyBytes: entry["historyBytes"]?.doubleValue ?? 0,
                    downloadTime: entry["downloadTime"]?.doubleValue ?? 0,
                    postProcessingTime: entry["postProcessingTime"]?.doubleValue ?? 0))
        }
        progress = min(1, max(0, snapshot["progress"]?.doubleValue ?? 0))
        startedAt = snapshot["startedAt"]?.doubleValue
        emitted = snapshot["emitted"]?.boolValue ?? false
    }
}
