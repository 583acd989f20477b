public import LiveBridgeCore
import LiveBridgeNet
import Synchronization

/// A strict state-object Live Activity service on a real loopback socket.
///
/// It implements the service as the project's API notes describe it (`state-object-api.md`):
/// `x-api-key` auth, the merge rule (top level shallow, `versus` one level down, arrays whole),
/// the field defaults, server-generated `activityId`s, ended activities no longer matching
/// updates and ends (branding still reaches them), a monthly call quota that counts every
/// authenticated call, and the `{statusCode, error, message}` error answers. It validates every
/// request against the assumptions, each switchable in `Rules`: a non-empty `primaryText` on
/// start, known fields and enum values, field types, `#RRGGBB` colours, no `button` objects,
/// progress already clamped, Unix seconds in `countdownTo`, and per-activity ordering of the
/// `X-LiveBridge-Sequence` header. A request the real service would refuse is answered as it
/// would (400/415) and listed in `violations`; one it would accept but a careful client never
/// sends (an invalid colour, `null`) is accepted and listed in `violations` or `warnings`. Fields
/// sent with the value already stored are listed in `redundantFields`, so tests can check that
/// a client sends only changes. A test that used the fake asserts `violations` is empty.
///
/// Faults can be injected (any error answer, 429 with `Retry-After`, an HTML page, a dropped
/// connection, latency), activities can be made to vanish (`expire`), the plan can be the free
/// one (button styling refused) and the quota limited; `goDown()` refuses connections.
public final class FakeStateObjectServer: LoopbackFake {
    /// One stored activity.
    public struct Activity: Sendable, Equatable {
        public var id: String
        /// The merged state as stored (only fields ever sent).
        public var state: JSONValue
        /// The brand object (start, then branding calls).
        public var brand: JSONValue?
        public var ended = false
        public var updates = 0
        public var brandings = 0
        public var lastSequence: Int?

        /// The state with the defaults applied, as the device renders it.
        public var rendered: JSONValue { FakeStateObjectServer.render(state, brand: brand) }
    }

    /// One request as received.
    public struct Record: Sendable {
        public var time: Double
        public var method: String
        public var path: String
        /// Which operation the route matched (`start`, `update`, `end`, `branding`), nil when none.
        public var operation: String?
        public var body: JSONValue?
        public var status: Int
        public var messages: [String]
        public var sequence: Int?
    }

    /// A fault answered to the next request instead of handling it.
    public enum Fault: Sendable, Equatable {
        /// An error answer `{statusCode, error, message}`.
        case answer(status: Int, message: String)
        /// An error answer whose `message` is an array (a NestJS validation error).
        case answers(status: Int, messages: [String])
        /// 429 with a `Retry-After` header.
        case rateLimit(retryAfter: Int)
        /// An HTML page with this status (a proxy in the way).
        case html(status: Int)
        case dropConnection
        /// Waits this long (on the fake's clock), then handles the request normally.
        case delay(Double)
    }

    /// The plan of the account: the free one refuses button styling.
    public enum Plan: Sendable, Equatable {
        case free, paid
    }

    /// The routes, as `"METHOD /path"` with `{id}` (the API notes' assumed defaults).
    public struct Routes: Sendable {
        public var start = "POST /api/activities"
        public var updateMany = "POST /api/activities/update"
        public var updateOne = "PATCH /api/activities/{id}"
        public var endMany = "POST /api/activities/end"
        public var endOne = "POST /api/activities/{id}/end"
        public var branding = "POST /api/branding"

        public init() {}
    }

    /// The validation assumptions, each switchable.
    public struct Rules: Sendable {
        /// A start needs a non-empty `state.primaryText`.
        public var primaryTextRequiredOnStart = true
        /// Unknown `layout`, `progressStyle`, `countdownStyle`, `activeSide` values are 400.
        public var enumsStrict = true
        /// Unknown state fields are 400 (a NestJS whitelist).
        public var unknownFieldsRefused = true
        /// Validation errors carry `message` as an array of strings.
        public var messagesAsArrays = true

        public init() {}
    }

    private struct State {
        var activities: [String: Activity] = [:]
        var order: [String] = []
        var records: [Record] = []
        var violations: [String] = []
        var warnings: [String] = []
        var redundant: [String] = []
        var faults: [Fault] = []
        var quotaLimit: Int?
        var quotaUsed = 0
        var plan = Plan.paid
        var rules = Rules()
        var nextID = 0
    }

    /// The key requests must carry.
    public let apiKey: String
    /// The header it travels in.
    public let apiKeyHeader: String
    public let routes: Routes
    private let clock: any TimeSource
    private let state = Mutex(State())
    public let loopback = RestartableLoopbackServer()

    static let enums: [String: Set<String>] = [
        "layout": ["progress", "picture", "versus", "countdown"], "progressStyle": ["segmented", "linear"],
        "countdownStyle": ["hms", "days", "hours", "months", "years", "auto"], "activeSide": ["left", "right"],
    ]
    static let stringFields: Set<String> = [
        "layout", "primaryText", "secondaryText", "accessoryText", "accentColorHex", "backgroundColorHex",
        "backgroundGradientHex", "backgroundImageUrl", "headerIconUrl", "lockScreenImageUrl", "stage", "endIcon",
        "progressStyle", "countdownStyle", "completionText", "actionLabel", "actionURL", "actionColorHex",
    ]
    static let boolFields: Set<String> = ["immersive", "isComplete"]
    static let numberFields: Set<String> = ["progress", "estimatedMinutes", "countdownTo"]
    static let colorFields: Set<String> = [
        "accentColorHex", "backgroundColorHex", "backgroundGradientHex", "actionColorHex",
    ]
    static let versusStringFields: Set<String> = [
        "leftName", "rightName", "leftScore", "rightScore", "leftStatus", "rightStatus", "activeSide",
        "leftColorHex", "rightColorHex", "centerLabel", "centerValue", "leftImageUrl", "rightImageUrl",
        "centerImageUrl", "sourceLogoUrl", "barColorHex",
    ]
    static let brandFields: Set<String> = ["title", "name", "url", "logo", "description", "color"]

    /// Starts listening on 127.0.0.1 (port 0 = any free port).
    public init(
        apiKey: String = "sok_testkey0123456789abcdef", apiKeyHeader: String = "x-api-key", routes: Routes = Routes(),
        clock: any TimeSource = SystemClock(), port: UInt16 = 0
    ) throws {
        self.apiKey = apiKey
        self.apiKeyHeader = apiKeyHeader
        self.routes = routes
        self.clock = clock
        try loopback.start(port: port) { [weak self] request in
            guard let self else { return .dropConnection }
            return await self.handle(request)
        }
    }

    // MARK: - Test controls and inspection

    /// Queues faults answered to the next requests, in order.
    public func inject(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Limits authenticated calls this month (refused ones count too); beyond it every call is
    /// answered 402 `FREE_TIER_LIMIT_REACHED`.
    public func setQuota(limit: Int?, used: Int = 0) {
        state.withLock {
            $0.quotaLimit = limit
            $0.quotaUsed = used
        }
    }

    /// Sets the account's plan.
    public func setPlan(_ plan: Plan) { state.withLock { $0.plan = plan } }

    /// Changes the validation rules.
    public func setRules(_ rules: Rules) { state.withLock { $0.rules = rules } }

    /// Makes an activity vanish (expired, or ended elsewhere): it no longer matches anything.
    public func expire(_ id: String) { state.withLock { _ = $0.activities.removeValue(forKey: id) } }

    /// Every contract violation seen.
    public var violations: [String] { state.withLock { $0.violations } }
    /// Things accepted that a careful client avoids (`null` values).
    public var warnings: [String] { state.withLock { $0.warnings } }
    /// `id.field` for every field sent with the value already stored.
    public var redundantFields: [String] { state.withLock { $0.redundant } }
    /// Every request seen.
    public var records: [Record] { state.withLock { $0.records } }
    /// Records of one operation (`start`, `update`, `end`, `branding`).
    public func records(_ operation: String) -> [Record] { records.filter { $0.operation == operation } }
    /// One stored activity.
    public func activity(_ id: String) -> Activity? { state.withLock { $0.activities[id] } }
    /// Every stored activity, in creation order.
    public var activities: [Activity] { state.withLock { state in state.order.compactMap { state.activities[$0] } } }
    /// Authenticated calls counted against the quota.
    public var quotaUsed: Int { state.withLock { $0.quotaUsed } }

    // MARK: - Answers

    private func answer(_ status: Int, _ messages: [String], asArray: Bool = false) -> HTTPServerResponse {
        let message: JSONValue = asArray ? .array(messages.map { .string($0) }) : .string(messages.first ?? "")
        let body: JSONValue = [
            "statusCode": .int(Int64(status)), "error": .string(Self.reason(status)),
            "message": message,
        ]
        return .json(JSONWriter.bytes(body), status: status)
    }

    /// The reason phrase the service puts in `error`.
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 404: "Not Found"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        default: HTTPServerResponse.reasonPhrase(for: status)
        }
    }

    private func violation(_ message: String) { state.withLock { $0.violations.append(message) } }

    private func record(
        _ request: HTTPServerRequest, operation: String?, body: JSONValue?, status: Int, messages: [String] = []
    ) {
        let sequence = request.headers.first(name: "X-LiveBridge-Sequence").flatMap { Int($0) }
        let now = clock.now
        state.withLock {
            $0.records.append(
                Record(
                    time: now, method: request.method, path: request.path, operation: operation, body: body,
                    status: status, messages: messages, sequence: sequence))
        }
    }

    private func refuse(
        _ request: HTTPServerRequest, operation: String?, body: JSONValue?, status: Int, _ messages: [String],
        violation text: String? = nil
    ) -> HTTPServerResponse {
        if let text { violation(text) }
        record(request, operation: operation, body: body, status: status, messages: messages)
        let asArray = status == 400 && state.withLock { $0.rules.messagesAsArrays }
        return answer(status, messages, asArray: asArray)
    }

    // MARK: - Handling

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let fault = state.withLock({ $0.faults.isEmpty ? nil : $0.faults.removeFirst() }) {
            switch fault {
            case .answer(let status, let message):
                record(request, operation: nil, body: nil, status: status, messages: [message])
                var response = answer(status, [message])
                if status == 429 { response.headers.add(name: "Retry-After", value: "30") }
                return response
            case .answers(let status, let messages):
                record(request, operation: nil, body: nil, status: status, messages: messages)
                return answer(status, messages, asArray: true)
            case .rateLimit(let retryAfter):
                record(
                    request, operation: nil, body: nil, status: 429, messages: ["ThrottlerException: Too Many Requests"]
                )
                var response = answer(429, ["ThrottlerException: Too Many Requests"])
                response.headers.add(name: "Retry-After", value: String(retryAfter))
                return response
            case .html(let status):
                record(request, operation: nil, body: nil, status: status)
                var response = HTTPServerResponse(
                    status: status, body: Array("<html><body>Bad Gateway</body></html>".utf8))
                response.headers.add(name: "Content-Type", value: "text/html")
                return response
            case .dropConnection:
                record(request, operation: nil, body: nil, status: 0)
                return .dropConnection
            case .delay(let seconds):
                try? await clock.sleep(for: seconds)
            }
        }
        return route(request)
    }

    private enum Operation: String {
        case start, update, end, branding
    }

    /// Matches `request` against the routes; literal routes win over `{id}` ones.
    private func match(_ request: HTTPServerRequest) -> (Operation, String?)? {
        let candidates: [(Operation, String)] = [
            (.start, routes.start), (.update, routes.updateMany), (.update, routes.updateOne),
            (.end, routes.endMany), (.end, routes.endOne), (.branding, routes.branding),
        ]
        let segments = request.path.split(separator: "/").map(String.init)
        var placeholderMatch: (Operation, String?)?
        for (operation, route) in candidates {
            let parts = route.split(separator: " ")
            guard parts.count == 2, parts[0] == request.method else { continue }
            let pattern = parts[1].split(separator: "/").map(String.init)
            guard pattern.count == segments.count else { continue }
            var id: String?
            var matches = true
            for (expected, actual) in zip(pattern, segments) {
                if expected == "{id}" {
                    id = actual
                } else if expected != actual {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if id == nil { return (operation, nil) }
            if placeholderMatch == nil { placeholderMatch = (operation, id) }
        }
        return placeholderMatch
    }

    private func route(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let matched = match(request)
        let operationName = matched?.0.rawValue
        guard let key = request.headers.first(name: apiKeyHeader), !key.isEmpty else {
            return refuse(request, operation: operationName, body: nil, status: 401, ["API_KEY_REQUIRED"])
        }
        guard key == apiKey else {
            return refuse(request, operation: operationName, body: nil, status: 401, ["INVALID_API_KEY"])
        }
        let exhausted = state.withLock { state -> Bool in
            state.quotaUsed += 1
            return state.quotaLimit.map { state.quotaUsed > $0 } ?? false
        }
        if exhausted {
            return refuse(request, operation: operationName, body: nil, status: 402, ["FREE_TIER_LIMIT_REACHED"])
        }
        guard let (operation, pathID) = matched else {
            return refuse(
                request, operation: nil, body: nil, status: 404, ["Cannot \(request.method) \(request.path)"],
                violation: "unknown route \(request.method) \(request.path)")
        }
        let contentType = request.headers.first(name: "Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("application/json") else {
            violation("\(request.method) \(request.path): Content-Type \"\(contentType)\" instead of application/json")
            record(request, operation: operation.rawValue, body: nil, status: 415)
            let body: JSONValue = [
                "statusCode": 415, "code": "FST_ERR_CTP_INVALID_MEDIA_TYPE", "error": "Unsupported Media Type",
                "message": .string("Unsupported Media Type: \(contentType)"),
            ]
            return .json(JSONWriter.bytes(body), status: 415)
        }
        guard let json = try? JSONParser.parse(request.body), case .object(let members) = json else {
            return refuse(
                request, operation: operation.rawValue, body: nil, status: 400, ["body must be a JSON object"],
                violation: "\(request.method) \(request.path): body is not a JSON object")
        }
        let sequence = request.headers.first(name: "X-LiveBridge-Sequence").flatMap { Int($0) }
        let call = Call(
            request: request, operation: operation, pathID: pathID, members: members, body: json, sequence: sequence)
        switch operation {
        case .start: return startActivity(call)
        case .update: return updateActivities(call)
        case .end: return endActivities(call)
        case .branding: return brand(call)
        }
    }

    private struct Call {
        var request: HTTPServerRequest
        var operation: Operation
        var pathID: String?
        var members: [String: JSONValue]
        var body: JSONValue
        var sequence: Int?
        var label: String { "\(request.method) \(request.path)" }
    }

    private func refuse(_ call: Call, _ status: Int, _ messages: [String], violation text: String? = nil)
        -> HTTPServerResponse
    {
        refuse(
            call.request, operation: call.operation.rawValue, body: call.body, status: status, messages, violation: text
        )
    }

    /// Unknown top-level keys (a whitelist) → 400.
    private func checkKeys(_ call: Call, allowed: Set<String>) -> HTTPServerResponse? {
        for key in call.members.keys.sorted() where !allowed.contains(key) {
            if key == "button" {
                return buttonRefusal(call)
            }
            return refuse(
                call, 400, ["property \(key) should not exist"],
                violation: "\(call.label): unknown top-level key \"\(key)\"")
        }
        return nil
    }

    private func buttonRefusal(_ call: Call) -> HTTPServerResponse {
        if state.withLock({ $0.plan }) == .free {
            return refuse(
                call, 402, ["BUTTON_STYLING_REQUIRES_PAID_PLAN"],
                violation: "\(call.label): a button object was sent (never send one)")
        }
        return refuse(
            call, 400, ["property button should not exist"], violation: "\(call.label): a button object was sent")
    }

    private enum Targets {
        case ids([String])
        case refused(HTTPServerResponse)
    }

    /// The target ids: from the path, or a non-empty `activityIds` array of strings.
    private func targets(_ call: Call) -> Targets {
        if let id = call.pathID {
            if call.members["activityIds"] != nil {
                return .refused(
                    refuse(
                        call, 400, ["property activityIds should not exist"],
                        violation: "\(call.label): activityIds sent to a route that names the activity in its path"))
            }
            return .ids([id])
        }
        guard let ids = call.members["activityIds"]?.arrayValue, !ids.isEmpty,
            ids.allSatisfy({ $0.stringValue != nil })
        else {
            return .refused(
                refuse(
                    call, 400, ["activityIds is required: no target was named"],
                    violation: "\(call.label): no activityIds"))
        }
        return .ids(ids.compactMap(\.stringValue))
    }

    private func startActivity(_ call: Call) -> HTTPServerResponse {
        if let refusal = checkKeys(call, allowed: ["state", "brand"]) { return refusal }
        guard let stateValue = call.members["state"], case .object = stateValue else {
            return refuse(call, 400, ["state is required"], violation: "\(call.label): no state object")
        }
        if let refusal = validate(stateValue, call: call) { return refusal }
        let rules = state.withLock { $0.rules }
        if rules.primaryTextRequiredOnStart, (stateValue["primaryText"]?.stringValue ?? "").isEmpty {
            return refuse(
                call, 400, ["state.primaryText should not be empty"],
                violation: "\(call.label): start without a primaryText")
        }
        if let brand = call.members["brand"], let refusal = validateBrand(brand, call: call) { return refusal }
        var ignored: [String] = []
        let merged = Self.merge(stateValue, into: .object([:]), redundant: &ignored)
        let id = state.withLock { state -> String in
            state.nextID += 1
            let digits = String(state.nextID)
            let id = "act_" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
            state.activities[id] = Activity(
                id: id, state: merged, brand: call.members["brand"],
                lastSequence: call.sequence)
            state.order.append(id)
            return id
        }
        record(call.request, operation: "start", body: call.body, status: 200)
        return .json(JSONWriter.bytes(["activityId": .string(id)]))
    }

    private func updateActivities(_ call: Call) -> HTTPServerResponse {
        if let refusal = checkKeys(call, allowed: call.pathID == nil ? ["activityIds", "state"] : ["state"]) {
            return refusal
        }
        let ids: [String]
        switch targets(call) {
        case .refused(let response): return response
        case .ids(let found): ids = found
        }
        guard let stateValue = call.members["state"], case .object(let fields) = stateValue else {
            return refuse(call, 400, ["state is required"], violation: "\(call.label): no state object")
        }
        if fields.isEmpty { violation("\(call.label): an update with an empty state (a wasted call)") }
        if let refusal = validate(stateValue, call: call) { return refusal }
        return apply(call, ids: ids, state: stateValue, ending: false)
    }

    private func endActivities(_ call: Call) -> HTTPServerResponse {
        if let refusal = checkKeys(call, allowed: call.pathID == nil ? ["activityIds", "state"] : ["state"]) {
            return refusal
        }
        let ids: [String]
        switch targets(call) {
        case .refused(let response): return response
        case .ids(let found): ids = found
        }
        if let stateValue = call.members["state"] {
            guard case .object = stateValue else {
                return refuse(
                    call, 400, ["state must be an object"], violation: "\(call.label): state is not an object")
            }
            if let refusal = validate(stateValue, call: call) { return refusal }
        }
        return apply(call, ids: ids, state: call.members["state"], ending: true)
    }

    private func apply(_ call: Call, ids: [String], state stateValue: JSONValue?, ending: Bool) -> HTTPServerResponse {
        var orderProblems: [String] = []
        let (matched, notMatched) = state.withLock { state -> ([String], [String]) in
            var matched: [String] = []
            var notMatched: [String] = []
            for id in ids {
                guard var activity = state.activities[id], !activity.ended else {
                    notMatched.append(id)
                    continue
                }
                if let sequence = call.sequence {
                    if let last = activity.lastSequence, sequence <= last {
                        orderProblems.append("\(id): frame \(sequence) arrived after frame \(last) (out of order)")
                    }
                    activity.lastSequence = sequence
                }
                if let stateValue {
                    var redundant: [String] = []
                    activity.state = Self.merge(stateValue, into: activity.state, redundant: &redundant)
                    state.redundant += redundant.map { "\(id).\($0)" }
                }
                if ending { activity.ended = true } else { activity.updates += 1 }
                state.activities[id] = activity
                matched.append(id)
            }
            return (matched, notMatched)
        }
        for problem in orderProblems { violation("\(call.label): \(problem)") }
        guard !matched.isEmpty else {
            return refuse(call, 404, ["No activity matched"])
        }
        record(call.request, operation: call.operation.rawValue, body: call.body, status: 200)
        let key = ending ? "ended" : "updated"
        return .json(
            JSONWriter.bytes([
                key: .array(matched.map { .string($0) }), "notMatched": .array(notMatched.map { .string($0) }),
            ]))
    }

    private func brand(_ call: Call) -> HTTPServerResponse {
        if let refusal = checkKeys(call, allowed: call.pathID == nil ? ["activityIds", "brand"] : ["brand"]) {
            return refusal
        }
        let ids: [String]
        switch targets(call) {
        case .refused(let response): return response
        case .ids(let found): ids = found
        }
        guard let brandValue = call.members["brand"], case .object(let fields) = brandValue else {
            return refuse(call, 400, ["brand is required"], violation: "\(call.label): no brand object")
        }
        if let refusal = validateBrand(brandValue, call: call) { return refusal }
        let (matched, notMatched) = state.withLock { state -> ([String], [String]) in
            var matched: [String] = []
            var notMatched: [String] = []
            for id in ids {
                // Ended activities still take branding.
                guard var activity = state.activities[id] else {
                    notMatched.append(id)
                    continue
                }
                var stored = activity.brand?.objectValue ?? [:]
                for (key, value) in fields { stored[key] = value }
                activity.brand = .object(stored)
                activity.brandings += 1
                state.activities[id] = activity
                matched.append(id)
            }
            return (matched, notMatched)
        }
        guard !matched.isEmpty else { return refuse(call, 404, ["No activity matched"]) }
        record(call.request, operation: "branding", body: call.body, status: 200)
        return .json(
            JSONWriter.bytes([
                "updated": .array(matched.map { .string($0) }), "notMatched": .array(notMatched.map { .string($0) }),
            ]))
    }

    // MARK: - Validation

    /// Checks a (partial) state; returns the refusal, or nil when the service would accept it.
    private func validate(_ value: JSONValue, call: Call) -> HTTPServerResponse? {
        guard case .object(let fields) = value else { return refuse(call, 400, ["state must be an object"]) }
        let (rules, plan) = state.withLock { ($0.rules, $0.plan) }
        var errors: [String] = []
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            if field.isNull {
                state.withLock { $0.warnings.append("\(call.label): state.\(key) is null (rendered as its default)") }
                continue
            }
            if key == "button" { return buttonRefusal(call) }
            if key == "actionColorHex", plan == .free {
                return refuse(call, 402, ["BUTTON_STYLING_REQUIRES_PAID_PLAN"])
            }
            if Self.stringFields.contains(key) {
                guard let text = field.stringValue else {
                    errors.append("state.\(key) must be a string")
                    continue
                }
                if let allowed = Self.enums[key], !allowed.contains(text), rules.enumsStrict {
                    errors.append("state.\(key) must be one of: \(allowed.sorted().joined(separator: ", "))")
                }
                if Self.colorFields.contains(key), !text.isEmpty, !Self.isHexColor(text) {
                    violation("\(call.label): state.\(key) \"\(text)\" is not #RRGGBB (the service shows the default)")
                }
            } else if Self.boolFields.contains(key) {
                if field.boolValue == nil { errors.append("state.\(key) must be a boolean value") }
            } else if Self.numberFields.contains(key) {
                guard let number = field.doubleValue else {
                    errors.append("state.\(key) must be a number")
                    continue
                }
                if key == "progress", !(0...1).contains(number) {
                    violation(
                        "\(call.label): state.progress \(number) outside 0…1 (the service clamps; clamp it yourself)")
                }
                if key == "countdownTo", number > 100_000_000_000 {
                    violation("\(call.label): state.countdownTo \(number) looks like milliseconds; it is Unix seconds")
                }
                if key == "estimatedMinutes", number < 0 {
                    violation("\(call.label): state.estimatedMinutes \(number) is negative; send 0 to hide it")
                }
            } else if key == "segments" {
                guard let items = field.arrayValue,
                    items.allSatisfy({ $0["label"]?.stringValue != nil && $0["complete"]?.boolValue != nil })
                else {
                    errors.append("state.segments must be an array of {label, complete}")
                    continue
                }
            } else if key == "versus" {
                guard case .object(let versus) = field else {
                    errors.append("state.versus must be an object")
                    continue
                }
                for (inner, innerValue) in versus where !innerValue.isNull {
                    if !Self.versusStringFields.contains(inner) {
                        if rules.unknownFieldsRefused {
                            errors.append("state.versus.property \(inner) should not exist")
                        }
                    } else if innerValue.stringValue == nil {
                        errors.append("state.versus.\(inner) must be a string")
                    } else if inner == "activeSide", rules.enumsStrict,
                        !(Self.enums["activeSide"] ?? []).contains(innerValue.stringValue!)
                    {
                        errors.append("state.versus.activeSide must be one of: left, right")
                    }
                }
            } else if rules.unknownFieldsRefused {
                errors.append("state.property \(key) should not exist")
            }
        }
        guard errors.isEmpty else {
            return refuse(call, 400, errors, violation: "\(call.label): " + errors.joined(separator: "; "))
        }
        return nil
    }

    private func validateBrand(_ value: JSONValue, call: Call) -> HTTPServerResponse? {
        guard case .object(let fields) = value else {
            return refuse(call, 400, ["brand must be an object"], violation: "\(call.label): brand is not an object")
        }
        var errors: [String] = []
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            guard Self.brandFields.contains(key) else {
                errors.append("brand.property \(key) should not exist")
                continue
            }
            guard let text = field.stringValue else {
                errors.append("brand.\(key) must be a string")
                continue
            }
            if key == "color", !Self.isHexColor(text) {
                violation("\(call.label): brand.color \"\(text)\" is not #RRGGBB")
            }
        }
        guard errors.isEmpty else {
            return refuse(call, 400, errors, violation: "\(call.label): " + errors.joined(separator: "; "))
        }
        return nil
    }

    static func isHexColor(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return scalars.count == 7 && scalars[0] == "#" && scalars.dropFirst().allSatisfy(\.properties.isASCIIHexDigit)
    }

    // MARK: - Merge and defaults

    /// The service's merge rule; `redundant` collects fields sent with the value already stored.
    static func merge(_ partial: JSONValue, into stored: JSONValue, redundant: inout [String]) -> JSONValue {
        var result = stored.objectValue ?? [:]
        for (key, value) in partial.objectValue ?? [:] {
            if key == "versus", case .object(let inner) = value {
                var storedInner = result[key]?.objectValue ?? [:]
                for (innerKey, innerValue) in inner {
                    if storedInner[innerKey] == innerValue { redundant.append("versus.\(innerKey)") }
                    storedInner[innerKey] = innerValue
                }
                result[key] = .object(storedInner)
            } else {
                if result[key] == value { redundant.append(key) }
                result[key] = value
            }
        }
        return .object(result)
    }

    /// The state as the device draws it: defaults for fields never set (or set to `null`),
    /// invalid colours replaced by their defaults, progress clamped, the brand colour seeding
    /// the accent.
    static func render(_ stored: JSONValue, brand: JSONValue?) -> JSONValue {
        var result: [String: JSONValue] = [
            "layout": "progress", "primaryText": "", "secondaryText": "", "accessoryText": "",
            "accentColorHex": "#007AFF", "immersive": false, "progress": 0, "progressStyle": "segmented",
            "countdownStyle": "auto", "actionColorHex": "#FF3B30", "isComplete": false,
        ]
        if let color = brand?["color"]?.stringValue, isHexColor(color) { result["accentColorHex"] = .string(color) }
        for (key, value) in stored.objectValue ?? [:] where !value.isNull {
            if colorFields.contains(key), !(value.stringValue.map(isHexColor) ?? false) { continue }
            result[key] = value
        }
        if let progress = result["progress"]?.doubleValue { result["progress"] = .number(min(1, max(0, progress))) }
        if case .object(let versus)? = result["versus"] {
            var drawn: [String: JSONValue] = [
                "leftName": "", "rightName": "", "leftScore": "0", "rightScore": "0", "leftStatus": "",
                "rightStatus": "",
            ]
            for (key, value) in versus where !value.isNull { drawn[key] = value }
            result["versus"] = .object(drawn)
        }
        return .object(result)
    }
}
