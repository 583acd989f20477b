public import LiveBridgeCore
public import LiveBridgeNet
import LiveBridgeSinks
import Synchronization

/// `livebridge send`: one activity update from a script, with the same validation, retry policy
/// and error handling as the daemon.
public enum SendCommand {
    public static let usage = """
        usage: livebridge send --slug SLUG [--url URL] [--name NAME] [--progress 0.4] [--state TEXT]
                               [--subtitle TEXT] [--icon ICON] [--color COLOR] [--remaining 30m | --end-date EPOCH]
                               [--live] [--end] [--failed] [--end-delay 4] [--priority 0-10] [--retries 4]
                               [--timeout 15] [--api-key KEY]

        Creates the activity if needed and updates it. --live lets the phone animate the bar toward
        the finish (needs --remaining or --end-date). --end sends the final frame (end_date,
        live_progress and remaining_time cleared) and then state "ended" after --end-delay seconds
        (0 = one request). The API key comes from --api-key or LIVEBRIDGE_API_KEY; the URL from
        --url or LIVEBRIDGE_URL (default https://api.pushward.app).

        exit status: 0 ok, 64 usage, 65 invalid content, 69 service unreachable after retries,
                     75 rate limited or temporary failure, 77 authentication or quota
        """

    static let options = [
        "url", "slug", "name", "progress", "state", "subtitle", "icon", "color", "remaining", "end-date", "end-delay",
        "api-key", "priority", "retries", "timeout", "background-color", "text-color",
    ]
    static let flags = ["live", "end", "failed", "help"]

    /// Runs the command; returns the exit status.
    public static func run(
        _ arguments: [String], environment: [String: String], transport: any HTTPTransport, clock: any TimeSource,
        output: CommandOutput
    ) async -> Int32 {
        let parsed: ParsedArguments
        let plan: Plan
        do {
            parsed = try ParsedArguments(arguments, options: options, flags: flags)
            if parsed.flag("help") {
                output.out(usage)
                return ExitStatus.ok
            }
            plan = try Plan(parsed, environment: environment, now: clock.now)
        } catch {
            output.err("livebridge send: \(error.message)\n\n\(usage)")
            return ExitStatus.usage
        }
        do {
            try plan.validate()
        } catch {
            output.err("livebridge send: \(error)")
            return ExitStatus.invalidContent
        }
        let sink = PushWardSink(
            configuration: .init(
                name: "pushward", baseURL: plan.url, apiKey: plan.apiKey, timeout: plan.timeout, keyPath: "--api-key"),
            transport: transport, clock: clock)
        var policy = RetryPolicy()
        policy.maximumAttempts = plan.retries + 1
        policy.breakerThreshold = Int.max
        let queue = DeliveryQueue(
            sink: sink, policy: policy, clock: clock, logger: .disabled, metrics: MetricsRegistry(),
            health: .detached(clock: clock))
        let failure = FailureBox()
        await queue.setObserver(DeliveryObserver(dropped: { _, error in failure.set(error) }))
        for (index, frame) in plan.frames.enumerated() {
            if index > 0, plan.endDelay > 0 { try? await clock.sleep(for: plan.endDelay) }
            await queue.enqueue(frame)
            while let next = await queue.pump() {
                try? await clock.sleep(until: next)
            }
            if let error = failure.value {
                output.err("livebridge send: \(Redactor.shared.redact(error.description))")
                return exitStatus(for: error)
            }
        }
        output.out("ok: \(plan.slug) " + (plan.isEnd ? "ended" : "updated"))
        return ExitStatus.ok
    }

    static func exitStatus(for error: SinkError) -> Int32 {
        switch error.kind {
        case .unavailable:
            if let status = error.status, (500...599).contains(status) { return ExitStatus.temporary }
            return ExitStatus.unavailable
        case .rateLimited: return ExitStatus.temporary
        case .quotaExhausted, .authentication: return ExitStatus.permission
        case .rejected:
            return error.status == 422 || error.status == 400 ? ExitStatus.invalidContent : ExitStatus.permission
        }
    }

    /// What to send, derived from the arguments.
    struct Plan {
        var url: String
        var apiKey: String
        var slug: String
        var name: String
        var timeout: Double
        var retries: Int
        var endDelay: Double
        var isEnd: Bool
        var content: GenericContent
        var priority: Int?
        var now: Double

        init(_ arguments: ParsedArguments, environment: [String: String], now: Double) throws(UsageError) {
            self.now = now
            guard !arguments.positional.contains(where: { _ in true }) else {
                throw UsageError("unexpected argument \(arguments.positional[0])")
            }
            guard let slug = arguments.value("slug") else { throw UsageError("--slug is required") }
            self.slug = slug
            url = arguments.value("url") ?? environment["LIVEBRIDGE_URL"] ?? "https://api.pushward.app"
            guard let key = arguments.value("api-key") ?? environment["LIVEBRIDGE_API_KEY"], !key.isEmpty else {
                throw UsageError("no API key: pass --api-key or set LIVEBRIDGE_API_KEY")
            }
            apiKey = key
            Redactor.shared.register(key)
            name = arguments.value("name") ?? slug
            timeout = try arguments.number("timeout", range: 1...300) ?? 15
            retries = Int(try arguments.number("retries", range: 0...20) ?? 4)
            endDelay = try arguments.number("end-delay", range: 0...300) ?? 4
            priority = try arguments.number("priority", range: 0...10).map(Int.init)
            isEnd = arguments.flag("end") || arguments.flag("failed")
            var content = GenericContent()
            content.template = .value("generic")
            if let progress = try arguments.number("progress", range: 0...1) { content.progress = .value(progress) }
            content.state = Field(arguments.value("state"))
            content.subtitle = Field(arguments.value("subtitle"))
            content.icon = Field(arguments.value("icon"))
            content.accentColor = Field(arguments.value("color"))
            content.backgroundColor = Field(arguments.value("background-color"))
            content.textColor = Field(arguments.value("text-color"))
            var endDate: Int?
            if let remainingText = arguments.value("remaining") {
                guard let remaining = DurationText.parse(remainingText), remaining >= 0 else {
                    throw UsageError("--remaining \(remainingText): expected a duration such as 90s, 30m or 1h30m")
                }
                guard now + remaining <= ActivityETA.latestFinish else {
                    throw UsageError("--remaining \(remainingText): would end after the year 9999")
                }
                endDate = Int((now + remaining).rounded())
                content.remainingTime = .value(Int(remaining.rounded()))
            }
            if let endText = arguments.value("end-date") {
                guard endDate == nil else { throw UsageError("use either --remaining or --end-date, not both") }
                guard let epoch = Int(endText), epoch > 0 else {
                    throw UsageError("--end-date \(endText): expected Unix seconds (for example \(Int(now) + 1800))")
                }
                endDate = epoch
            }
            if let endDate { content.endDate = .value(endDate) }
            if arguments.flag("live") {
                guard !isEnd else { throw UsageError("--live and --end contradict each other") }
                guard endDate != nil else {
                    throw UsageError("--live needs --remaining or --end-date to animate toward")
                }
                content.liveProgress = .value(true)
                content.remainingTime = .absent
            }
            if isEnd {
                let failed = arguments.flag("failed")
                if content.progress.value == nil && !failed { content.progress = .value(1) }
                if content.state.value == nil { content.state = .value(failed ? "Failed" : "Complete") }
                if content.icon.value == nil {
                    content.icon = .value(failed ? "xmark.circle.fill" : "checkmark.circle.fill")
                }
                if content.accentColor.value == nil { content.accentColor = .value(failed ? "red" : "green") }
                content.endDate = .null
                content.liveProgress = .null
                content.remainingTime = .null
            }
            self.content = content
        }

        func validate() throws(ContentValidationError) {
            try ContentRules.validateSlug(slug)
            try ContentRules.validateName(name)
            try content.validate(asDocument: false)
            if url.hasPrefix("http://") == false && url.hasPrefix("https://") == false {
                throw ContentValidationError(problems: ["--url \(url): expected an http:// or https:// URL"])
            }
        }

        /// The full document used when the activity must be created first.
        var fullContent: JSONValue {
            var full = MergePatch.stripNulls(content.json)
            if full["progress"] == nil { full["progress"] = 0 }
            return full
        }

        var frames: [ActivityFrame] {
            let update = ActivityFrame(
                slug: slug, name: name, kind: isEnd ? .final : .update, activityState: "ongoing", patch: content.json,
                content: fullContent, ttls: ActivityTTLs(), priority: priority, time: now, reason: .structural,
                sequence: Int(now * 1000))
            guard isEnd else { return [update] }
            if endDelay == 0 {
                var single = update
                single.kind = .end
                single.activityState = "ended"
                return [single]
            }
            let end = ActivityFrame(
                slug: slug, name: name, kind: .end, activityState: "ended", patch: .object([:]), content: fullContent,
                priority: priority, time: now, reason: .end, sequence: Int(now * 1000) + 1)
            return [update, end]
        }
    }
}

/// Holds the first delivery failure reported by the queue.
final class FailureBox: Sendable {
    private let error = Mutex<SinkError?>(nil)

    func set(_ error: SinkError) { self.error.withLock { if $0 == nil { $0 = error } } }
    var value: SinkError? { error.withLock { $0 } }
}
