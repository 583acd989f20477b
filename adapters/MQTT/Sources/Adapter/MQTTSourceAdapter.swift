public import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// A generic MQTT source: one session to the broker (the shared MQTT client: TLS options,
/// reconnect with the shared backoff, resubscription, so retained messages resync the jobs after
/// every reconnect) and one `MQTTJobMapper` per configured job.
///
/// A payload that cannot be read is reported once per change of the problem (log line, the
/// `livebridge_adapter_parse_errors_total` counter, `/health`); the job keeps its last good
/// values. A broker that goes away, or the source's own last will, pauses a running card with
/// "Offline" after `offlineGrace`.
public struct MQTTSourceAdapter: Adapter {
    public let configuration: MQTTSourceConfiguration
    /// Seconds between checks of the hold and offline timers.
    public var tickInterval: Double = 5

    public init(configuration: MQTTSourceConfiguration) {
        self.configuration = configuration
    }

    public var name: String { configuration.name }
    public var type: String { "mqtt" }

    /// Connects once (up to 15 s) and says what the broker answered (`livebridge check`).
    public func probe(_ context: AdapterContext) async -> ProbeResult {
        await MQTTSourceProbe(configuration: configuration, context: context).run()
    }

    public func run(_ context: AdapterContext) async throws {
        let session = try MQTTSession(
            configuration: configuration.session, pinStore: context.store, logger: context.logger)
        let statuses = session.statusUpdates()
        context.health.setDetail("connection", "connecting")
        context.logger.info(
            "following MQTT topics",
            [
                "broker": configuration.session.endpoint,
                "topics": configuration.topicFilters.joined(separator: " "),
                "jobs": configuration.jobs.map(\.slug).joined(separator: " "),
            ])
        do {
            try session.start()
        } catch {
            await session.shutdown()
            throw error
        }
        let logger = context.logger
        var state = State(
            configuration: configuration, context: context, requestIDs: Int.random(in: 1...999_999) * 1_000
        ) { request in
            do {
                // QoS 0, as Moonraker asks of requests without a timestamp: a repeat is not run twice.
                try await session.publish(topic: request.topic, text: request.payload, qos: .atMostOnce)
            } catch {
                logger.warning("could not publish a request", ["topic": request.topic, "error": "\(error)"])
            }
        }
        let clock = context.clock
        await session.follow(statuses: statuses, ticking: tickInterval, on: clock) { input in
            await state.handle(input, at: clock.now)
        }
        await session.shutdown()
        context.health.setDetail("connection", "stopped")
    }

    /// The jobs' mappers and what they report.
    struct State {
        let configuration: MQTTSourceConfiguration
        let context: AdapterContext
        var mappers: [MQTTJobMapper]
        /// Publishes a job's request to the broker.
        let publish: @Sendable (MQTTJobMapper.Request) async -> Void

        /// `requestIDs`: where the jobs' JSON-RPC ids start (each job 100 000 further on).
        init(
            configuration: MQTTSourceConfiguration, context: AdapterContext, requestIDs: Int = 0,
            publish: @escaping @Sendable (MQTTJobMapper.Request) async -> Void
        ) {
            self.configuration = configuration
            self.context = context
            self.publish = publish
            mappers = configuration.jobs.enumerated().map { index, job in
                let runs = (try? context.store.readJSON(Self.runsKey(job.slug)))?.arrayValue?.compactMap(\.doubleValue)
                return MQTTJobMapper(
                    mapping: job, offlineGrace: configuration.offlineGrace, pastRuns: runs ?? [],
                    requestIDs: requestIDs + index * 100_000)
            }
        }

        static func runsKey(_ slug: String) -> String { "mqtt-runs-\(slug)" }

        mutating func handle(_ input: MQTTSourceInput, at now: Double) async {
            switch input {
            case .message(let message):
                for availability in configuration.availability {
                    guard let offline = availability.says(topic: message.topic, payload: message.payload) else {
                        continue
                    }
                    context.health.setDetail("source", offline ? "offline" : "online")
                    for index in mappers.indices {
                        await apply(mappers[index].availability(online: !offline, at: now), job: index)
                    }
                }
                for index in mappers.indices where mappers[index].follows(message.topic) {
                    await apply(
                        mappers[index].receive(topic: message.topic, payload: message.payload, at: now), job: index)
                }
            case .status(let status):
                switch status.state {
                case .connected:
                    context.health.set(.ok)
                    context.health.setDetail("connection", "connected")
                    for index in mappers.indices {
                        await apply(mappers[index].availability(online: true, at: now), job: index)
                    }
                case .disconnected(let error), .failed(let error):
                    context.health.set(error.isConfigurationProblem ? .error : .degraded, error.message)
                    context.health.setDetail("connection", "disconnected")
                    for index in mappers.indices {
                        await apply(mappers[index].availability(online: false, at: now), job: index)
                    }
                default:
                    break
                }
            case .tick:
                for index in mappers.indices { await apply(mappers[index].tick(at: now), job: index) }
            }
        }

        func apply(_ output: MQTTJobMapper.Output, job index: Int) async {
            if let problem = output.problem { context.reportParseError(problem) }
            if let runs = output.pastRuns {
                let slug = configuration.jobs[index].slug
                do {
                    try context.store.writeJSON(Self.runsKey(slug), .array(runs.map { .number($0) }))
                } catch {
                    context.logger.warning("could not keep the run's duration", ["slug": slug, "error": "\(error)"])
                }
            }
            for update in output.updates { await context.emit(update) }
            for request in output.requests { await publish(request) }
        }
    }
}
