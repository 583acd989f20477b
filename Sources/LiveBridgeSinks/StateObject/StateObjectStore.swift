import LiveBridgeCore

/// The state-object sink's part of the data directory: each activity's id and copy of its state
/// (`activities/<slug>.json`), and the account (`account.json`: a refused button styling, a
/// spent free tier), so a restart keeps updating the same activities and remembers what the
/// service said. A write that fails is said once in the log and each time in `/health`; the sink
/// goes on from memory.
struct StateObjectStore {
    /// What the sink knows about one activity on the service (persisted per slug).
    struct ActivityRecord: Sendable, Equatable {
        var id: String
        /// The service's state after our calls (our model of it).
        var state: JSONValue
        /// The brand object it last received.
        var brand: JSONValue?
        /// How it ended, remembered from the final frame for the end call.
        var outcome: ActivityOutcome?
        /// It was started again after a `No activity matched`, and no update has landed since.
        var restartedAfterNotMatched = false
    }

    /// What the account file remembers.
    struct Account: Sendable, Equatable {
        /// False once the service refused button styling.
        var buttonStyling: Bool?
        /// The free tier's reset, while spent.
        var quotaUntil: Double?
    }

    let store: any StateStore
    let name: String
    let logger: Logger
    let health: HealthReporter?
    private let prefix: String
    /// The records read or written so far.
    private(set) var records: [String: ActivityRecord] = [:]
    private var failureLogged = false

    init(store: any StateStore, name: String, logger: Logger, health: HealthReporter?) {
        self.store = store
        self.name = name
        self.logger = logger
        self.health = health
        prefix = "state-object/" + ContentRules.slugify(name)
    }

    /// The account as last saved (nothing when never saved or unreadable).
    func account() -> Account {
        guard let json = try? store.readJSON(prefix + "/account.json") else { return Account() }
        return Account(buttonStyling: json["buttonStyling"]?.boolValue, quotaUntil: json["quotaUntil"]?.storedNumber)
    }

    mutating func saveAccount(buttonStyling: Bool, quotaUntil: Double?) {
        var json: JSONValue = ["buttonStyling": .bool(buttonStyling)]
        if let quotaUntil { json["quotaUntil"] = .number(quotaUntil) }
        do {
            try store.writeJSON(prefix + "/account.json", json)
        } catch {
            problem(error)
        }
    }

    /// The record of `slug`, from memory or the data directory; an unreadable one is said and
    /// treated as none (the activity is started again).
    mutating func record(_ slug: String) -> ActivityRecord? {
        if let cached = records[slug] { return cached }
        let json: JSONValue?
        do {
            json = try store.readJSON(key(slug))
        } catch {
            logger.warning(
                "stored activity unreadable; it will be started again", ["slug": slug, "error": error.description])
            return nil
        }
        guard let json, let id = json["id"]?.stringValue else { return nil }
        let record = ActivityRecord(
            id: id, state: json["state"] ?? .object([:]), brand: json["brand"],
            outcome: json["outcome"]?.stringValue.flatMap(ActivityOutcome.init(rawValue:)),
            restartedAfterNotMatched: json["restartedAfterNotMatched"]?.boolValue ?? false)
        records[slug] = record
        return record
    }

    /// Keeps `record` for `slug` (nil: removes it).
    mutating func save(_ slug: String, _ record: ActivityRecord?) {
        records[slug] = record
        do {
            if let record {
                var json: JSONValue = ["id": .string(record.id), "state": record.state]
                if let brand = record.brand { json["brand"] = brand }
                if let outcome = record.outcome { json["outcome"] = .string(outcome.rawValue) }
                if record.restartedAfterNotMatched { json["restartedAfterNotMatched"] = true }
                try store.writeJSON(key(slug), json)
            } else {
                try store.remove(key(slug))
            }
        } catch {
            problem(error)
        }
    }

    private mutating func problem(_ error: StateStoreError) {
        health?.noteError("\(name): cannot persist activity ids: \(error.description)")
        if !failureLogged {
            failureLogged = true
            logger.error(
                "cannot persist state-object activity ids; a restart will start new activities",
                ["sink": name, "error": error.description])
        }
    }

    private func key(_ slug: String) -> String { prefix + "/activities/" + slug + ".json" }
}
