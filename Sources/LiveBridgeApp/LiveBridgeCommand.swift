import Foundation
import LiveBridgeCore
import LiveBridgeNet

/// The `livebridge` command line.
public enum LiveBridgeCommand {
    public static let usage = """
        LiveBridge \(LiveBridgeVersion.current) — home-lab jobs as iPhone Live Activities

        usage: livebridge <command> [options]

        commands:
          run --config FILE        run every configured source and sink (the daemon)
          check --config FILE      validate the config and probe every source and sink
          demo [--speed N] [--port P]
                                   simulated SABnzbd, Bambu and Home Assistant jobs on a local preview page
          send --slug SLUG …       send one update or end an activity (for scripts; see `livebridge send --help`)
          replay FILE [--sink pushward|static] [--epsilon 0.03] [--format updates|sabnzbd|bambu|homeassistant]
                                   run recorded observations through the real tracker on virtual time
          bench [--quick]          measure pushes per job, latency, throughput and memory
          version                  print the version
          help                     print this help
        """

    /// Runs the command named by the process arguments and exits with its status.
    public static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = await run(
            arguments, environment: ProcessInfo.processInfo.environment, output: .standard, handlesSignals: true)
        exit(status)
    }

    /// Runs a command; returns its exit status (tests call this directly).
    ///
    /// `handlesSignals`: SIGINT/SIGTERM stop `run` and `demo` cleanly. Only the program itself
    /// turns this on; a test stops a command by cancelling its task.
    public static func run(
        _ arguments: [String], environment: [String: String], output: CommandOutput, handlesSignals: Bool = false
    ) async -> Int32 {
        NetworkLibraries.initialize()
        guard let command = arguments.first else {
            output.err(usage)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "send":
            return await SendCommand.run(
                rest, environment: environment, transport: HTTPClient.shared, clock: SystemClock(), output: output)
        case "run":
            return await RunCommand.run(rest, environment: environment, output: output, handlesSignals: handlesSignals)
        case "check":
            return await CheckCommand.run(rest, environment: environment, output: output)
        case "replay":
            return await ReplayCommand.run(rest, environment: environment, output: output)
        case "demo":
            return await DemoCommand.run(rest, environment: environment, output: output, handlesSignals: handlesSignals)
        case "bench":
            return await BenchCommand.run(rest, environment: environment, output: output)
        case "version", "--version", "-v":
            output.out("livebridge \(LiveBridgeVersion.current)")
            return ExitStatus.ok
        case "help", "--help", "-h":
            output.out(usage)
            return ExitStatus.ok
        default:
            output.err("livebridge: unknown command \"\(command)\"\n\n\(usage)")
            return ExitStatus.usage
        }
    }
}

extension CommandOutput {
    /// stdout and stderr, line-buffered through FileHandle.
    public static var standard: CommandOutput {
        CommandOutput(
            out: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) },
            err: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) })
    }
}
