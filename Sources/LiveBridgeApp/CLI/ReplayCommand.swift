import FoundationEssentials
import LiveBridgeCore
package import LiveBridgeKit
import LiveBridgeSinks

/// `livebridge replay FILE`: recorded observations through the real tracker on virtual time.
package enum ReplayCommand {
    static func usage(_ registry: ComponentRegistry) -> String {
        """
        usage: livebridge replay FILE [--sink pushward|static] [--epsilon 0.03] [--format FORMAT] [--budget N]
                                      [--end-frames 1|2] [--quiet]

        Reads JSONL observations, runs them through the real tracker with a virtual clock, writes the
        requests that would be sent as JSONL on stdout ({"t", "sink", "method", "path", "body"}) and a
        summary on stderr: pushes, and max and mean display error on a 1 s grid.
        Formats: \(ReplayFormats.all(registry).map(\.name).joined(separator: ", ")) (default: from the first line).
        """
    }

    /// The base of virtual time: `t` in the file counts from here (2026-06-15T10:00:00Z).
    package static let base: Double = 1_781_517_600

    static func run(
        _ arguments: [String], environment: [String: String], output: CommandOutput, registry: ComponentRegistry
    ) async -> Int32 {
        let parsed: ParsedArguments
        do throws(UsageError) {
            parsed = try ParsedArguments(
                arguments, options: ["sink", "epsilon", "format", "budget", "end-frames"], flags: ["quiet", "help"])
            if parsed.flag("help") {
                output.out(usage(registry))
                return ExitStatus.ok
            }
            guard parsed.positional.count == 1 else { throw UsageError("give exactly one input FILE (or - for stdin)") }
        } catch {
            output.err("livebridge replay: \(error.message)\n\n\(usage(registry))")
            return ExitStatus.usage
        }
        let path = parsed.positional[0]
        let data: [UInt8]?
        if path == "-" {
            data = StandardStreams.readStandardInput()
        } else {
            data = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        }
        guard let data else {
            output.err("livebridge replay: cannot read \(path)")
            return ExitStatus.usage
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        var settings = EconomySettings()
        let model: DisplayModel
        do throws(UsageError) {
            switch parsed.value("sink") ?? "pushward" {
            case "pushward": model = .interpolating
            case "static": model = .static
            case let other: throw UsageError("--sink \(other): expected pushward or static")
            }
            if let epsilon = try parsed.number("epsilon", range: 0.001...0.5) { settings.maxDisplayError = epsilon }
            if let budget = try parsed.number("budget", range: 1...1_000_000) { settings.monthlyBudget = Int(budget) }
            if let frames = try parsed.number("end-frames", range: 1...2) { settings.endFrames = Int(frames) }
        } catch {
            output.err("livebridge replay: \(error.message)")
            return ExitStatus.usage
        }
        let format: ReplayFormat
        if let name = parsed.value("format") {
            let formats = ReplayFormats.all(registry)
            guard let match = formats.first(where: { $0.name == name }) else {
                output.err(
                    "livebridge replay: unknown --format \(name); known: \(formats.map(\.name).joined(separator: ", "))"
                )
                return ExitStatus.usage
            }
            format = match
        } else {
            format = ReplayFormats.detect(lines, registry)
        }
        let updates: [ActivityUpdate]
        do {
            updates = try format.parse(lines, base)
        } catch {
            output.err("livebridge replay: \(path): \(error)")
            return ExitStatus.invalidContent
        }
        var simulation = EconomySimulation(model: model, settings: settings)
        // The static display is the state-object service's, which never ends a card for want of
        // updates: no heartbeats there.
        simulation.expiresStale = model == .interpolating
        let result = simulation.run(updates)
        let sinkName = parsed.value("sink") ?? "pushward"
        if !parsed.flag("quiet") {
            for push in result.pushes {
                for request in PushWardRequests.requests(for: push.frame) {
                    var line: [String: JSONValue] = [
                        "t": .number(((push.time - base) * 1000).rounded() / 1000), "sink": .string(sinkName),
                        "method": .string(request.method), "path": .string(request.path),
                        "reason": .string(push.frame.reason.rawValue),
                    ]
                    if let body = request.body { line["body"] = body }
                    output.out(JSONWriter.string(.object(line)))
                }
            }
        }
        output.err(summary(result, format: format.name, sink: sinkName))
        return ExitStatus.ok
    }

    static func summary(_ result: EconomySimulation.Result, format: String, sink: String) -> String {
        var lines: [String] = []
        for activity in result.activities {
            lines.append(
                "\(activity.slug): pushes=\(activity.pushes) max_error=\(fixed(activity.maxError)) "
                    + "mean_error=\(fixed(activity.meanError)) measured=\(activity.samples)s")
        }
        lines.append(
            "replay (\(format), \(sink)): pushes=\(result.totalPushes) max_error=\(fixed(result.maxError)) "
                + "mean_error=\(fixed(result.meanError)) activities=\(result.activities.count)")
        return lines.joined(separator: "\n")
    }

    static func fixed(_ value: Double) -> String {
        let scaled = (value * 10000).rounded() / 10000
        return scaled.decimalText(digits: 4)
    }
}

/// The replay formats the executable knows.
package enum ReplayFormats {
    /// `updates`, then every source's own.
    static func all(_ registry: ComponentRegistry) -> [ReplayFormat] {
        [updates] + registry.sources.compactMap(\.replay)
    }

    /// Nothing but spaces and tabs (Unicode's space separators and U+0009): a line to skip.
    static func isBlank(_ line: String) -> Bool {
        line.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Picks a format from the first record's keys.
    static func detect(_ lines: [String], _ registry: ComponentRegistry) -> ReplayFormat {
        let first = lines.first { !isBlank($0) } ?? ""
        guard let json = try? JSONParser.parse(first) else { return updates }
        for format in registry.sources.compactMap(\.replay) where format.detects(json) { return format }
        return updates
    }

    /// `{"t": 12.5, "slug": …, "phase": …, "progress": …, "remaining": …, "state": …}` per line.
    package static let updates = ReplayFormat(name: "updates", summary: "timestamped ActivityUpdate records") {
        lines, base in
        var result: [ActivityUpdate] = []
        var times = ReplayTimes()
        for (offset, line) in lines.enumerated() where !isBlank(line) {
            let json: JSONValue
            do throws(JSONParseError) {
                json = try JSONParser.parse(line)
            } catch {
                throw ReplayError(line: offset + 1, message: error.description)
            }
            guard var members = json.objectValue, let t = members.removeValue(forKey: "t")?.doubleValue else {
                throw ReplayError(line: offset + 1, message: "expected an object with a numeric \"t\"")
            }
            try times.check(t, line: offset + 1)
            do throws(ContentValidationError) {
                var update = try ActivityCommand.update(from: .object(members), slug: nil, now: base + t)
                update.observedAt = base + t
                result.append(update)
            } catch {
                throw ReplayError(line: offset + 1, message: error.problems.joined(separator: "; "))
            }
        }
        return result
    }
}
