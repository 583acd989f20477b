/// Where the engine keeps its trackers in the data directory, at a cost that does not grow with
/// the history: a checkpoint and a journal of the changes since.
///
/// `trackers.json` (the checkpoint) holds every tracker still alive and, per sink, the highest
/// sequence number a forgotten activity used; it is rewritten atomically (temp file + rename) in
/// the background. `trackers.journal` holds one JSON line per change since the checkpoint — a
/// tracker's new snapshot, or the note that it was forgotten — appended and synced before the
/// change counts as done. A crash at any moment leaves the old checkpoint, or the new one, and a
/// journal whose complete lines are all still true; only a line cut short by the crash can be
/// incomplete, and it was never acknowledged. Loading replays the journal over the checkpoint.
struct TrackerJournal: Sendable {
    static let checkpointKey = "trackers.json"
    static let journalKey = "trackers.journal"

    /// What a journal line says about one (sink, slug).
    enum Entry: Sendable, Equatable {
        /// The tracker's snapshot after the change.
        case tracker(JSONValue)
        /// The tracker was forgotten; its frames went up to `sequence`.
        case forgotten(sequence: Int)
    }

    /// One journal line.
    struct Record: Sendable, Equatable {
        var sink: String
        var slug: String
        var entry: Entry
    }

    /// The persisted state: trackers per sink and slug, and per sink the sequence floor.
    struct Contents: Sendable {
        var trackers: [String: [String: JSONValue]] = [:]
        var floors: [String: Int] = [:]
        /// Journal lines read (replayed or not).
        var journalRecords = 0
        /// What could not be read, each said in a sentence for the log.
        var problems: [String] = []
    }

    let store: any StateStore
    /// Bytes appended to the journal since the last checkpoint.
    private(set) var journalBytes = 0

    init(store: any StateStore) {
        self.store = store
    }

    /// Reads the checkpoint and replays the journal over it.
    mutating func load() -> Contents {
        var contents = Contents()
        do {
            if let json = try store.readJSON(Self.checkpointKey) {
                for (sink, entries) in json["sinks"]?.objectValue ?? [:] {
                    contents.trackers[sink] = entries.objectValue ?? [:]
                }
                for (sink, floor) in json["sequenceFloor"]?.objectValue ?? [:] {
                    contents.floors[sink] = floor.intValue ?? 0
                }
            }
        } catch {
            contents.problems.append("\(error.description); the journal is replayed without it")
        }
        let bytes: [UInt8]
        do {
            bytes = try store.read(Self.journalKey) ?? []
        } catch {
            contents.problems.append(error.description)
            return contents
        }
        journalBytes = bytes.count
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if let last = lines.popLast(), !last.isEmpty {
            contents.problems.append(
                "\(Self.journalKey): the last record is incomplete (\(last.count) bytes; the process stopped "
                    + "while writing it) and was ignored; it had not been acknowledged")
        }
        for (index, line) in lines.enumerated() where !line.isEmpty {
            contents.journalRecords += 1
            guard let record = Self.record(Array(line)) else {
                contents.problems.append(
                    "\(Self.journalKey): line \(index + 1) is not a tracker record and was skipped "
                        + "(the file was damaged; a later record of the same activity still applies)")
                continue
            }
            switch record.entry {
            case .tracker(let snapshot):
                contents.trackers[record.sink, default: [:]][record.slug] = snapshot
            case .forgotten(let sequence):
                contents.trackers[record.sink]?[record.slug] = nil
                contents.floors[record.sink] = max(contents.floors[record.sink] ?? 0, sequence)
            }
        }
        return contents
    }

    /// Appends `records` durably (one line each, one sync for all).
    mutating func append(_ records: [Record]) throws(StateStoreError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        for record in records {
            bytes += JSONWriter.bytes(Self.json(record))
            bytes.append(UInt8(ascii: "\n"))
        }
        try store.append(Self.journalKey, bytes)
        journalBytes += bytes.count
    }

    /// Writes `trackers` and `floors` as the new checkpoint, then empties the journal. A crash
    /// between the two replays a journal the checkpoint already contains, which changes nothing.
    mutating func checkpoint(
        trackers: [String: [String: JSONValue]], floors: [String: Int], savedAt: Double
    ) throws(StateStoreError) {
        var sinks: [String: JSONValue] = [:]
        for (sink, entries) in trackers { sinks[sink] = .object(entries) }
        var floorObject: [String: JSONValue] = [:]
        for (sink, floor) in floors where floor > 0 { floorObject[sink] = .int(Int64(floor)) }
        try store.writeJSON(
            Self.checkpointKey,
            [
                "version": 1, "savedAt": .number(savedAt), "sinks": .object(sinks),
                "sequenceFloor": .object(floorObject),
            ])
        try store.remove(Self.journalKey)
        journalBytes = 0
    }

    static func json(_ record: Record) -> JSONValue {
        var object: [String: JSONValue] = ["sink": .string(record.sink), "slug": .string(record.slug)]
        switch record.entry {
        case .tracker(let snapshot): object["tracker"] = snapshot
        case .forgotten(let sequence):
            object["forgotten"] = true
            object["sequence"] = .int(Int64(sequence))
        }
        return .object(object)
    }

    static func record(_ line: [UInt8]) -> Record? {
        guard let json = try? JSONParser.parse(line), let sink = json["sink"]?.stringValue,
            let slug = json["slug"]?.stringValue
        else { return nil }
        if let snapshot = json["tracker"], snapshot.objectValue != nil {
            return Record(sink: sink, slug: slug, entry: .tracker(snapshot))
        }
        if json["forgotten"]?.boolValue == true {
            return Record(sink: sink, slug: slug, entry: .forgotten(sequence: json["sequence"]?.storedCount ?? 0))
        }
        return nil
    }
}
