// A custom LiveBridge source in under 100 lines: it runs a command and turns the "NN%" it
// prints into a Live Activity, using the library's supervisor, tracker, economy and sinks.
//
//   swift run custom-adapter livebridge.json5 -- rsync --info=progress2 src/ dst/
//
// The config file is a normal LiveBridge config; this program adds the source type "command".
import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// Follows a command's output: the last `NN%` on a line is the progress.
struct CommandProgressAdapter: Adapter {
    let name: String
    let type = "command"
    let command: [String]
    /// Told the command's exit status once its card has ended: the program then stops the bridge.
    let finished: AsyncStream<Int32>.Continuation

    func run(_ context: AdapterContext) async throws {
        let slug = ContentRules.slugify("cmd-\(name)")
        let title = command.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "command"
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { @Sendable handle in
            let data = handle.availableData
            if data.isEmpty { sink.finish() } else { sink.yield(String(decoding: data, as: UTF8.self)) }
        }
        try process.run()
        var progress = 0.0
        for await chunk in lines {
            for line in chunk.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                guard let percent = Self.lastPercent(in: line) else { continue }
                progress = percent / 100
                await context.emit(
                    ActivityUpdate(
                        slug: slug, name: title, phase: .active,
                        content: GenericContent(state: "Running", icon: "terminal", subtitle: String(line.prefix(80))),
                        progress: progress))
            }
        }
        process.waitUntilExit()
        let ok = process.terminationStatus == 0
        await context.emit(
            ActivityUpdate(
                slug: slug, name: title, phase: .ended(ok ? .success : .failure),
                content: GenericContent(
                    state: ok ? "Done" : "Failed (exit \(process.terminationStatus))",
                    icon: ok ? "checkmark.circle.fill" : "xmark.circle.fill", accentColor: ok ? "green" : "red"),
                progress: ok ? 1 : progress))
        try await context.clock.sleep(for: 10)  // let the end frames go out, then stop
        finished.yield(process.terminationStatus)
        await Task.waitForCancellation()
    }

    static func lastPercent(in line: Substring) -> Double? {
        let words = line.split(separator: " ").filter { $0.hasSuffix("%") }
        return words.last.flatMap { Double($0.dropLast()) }.flatMap { (0...100).contains($0) ? $0 : nil }
    }
}

@main
struct CustomAdapterExample {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 4, let separator = arguments.firstIndex(of: "--") else {
            print("usage: custom-adapter CONFIG -- COMMAND [ARGS…]")
            exit(64)
        }
        let command = Array(arguments[(separator + 1)...])
        let (finished, finish) = AsyncStream.makeStream(of: Int32.self)
        var registry = ComponentRegistry.standard
        registry.sources.append(
            SourceDescriptor(type: "command", summary: "follows a command's NN% output") { entry, _ in
                entry.reader.finish()
                return SourceInstance(
                    adapter: CommandProgressAdapter(name: entry.name, command: command, finished: finish))
            })
        var config = try ConfigLoader.load(path: arguments[1])
        config.addSource(name: "job", type: "command")
        let runtime = try LiveBridgeRuntime(config: config, registry: registry)
        // The bridge runs until the command is done (or a signal): then it stops as `livebridge run`
        // does, every part in reverse order, and the program exits with the command's status.
        let running = Task { await runtime.runUntilTerminated() }
        let status = Task {
            for await status in finished {
                running.cancel()
                return status
            }
            return 1
        }
        await running.value
        status.cancel()
        exit(await status.value)
    }
}
