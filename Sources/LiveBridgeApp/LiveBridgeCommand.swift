import FoundationEssentials
import Glibc
import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeNet

/// The `livebridge` command line.
public enum LiveBridgeCommand {
    /// The usage text, with the registry's replay formats.
    public static func usage(_ registry: ComponentRegistry = .standard) -> String {
        let formats = ReplayFormats.all(registry).map(\.name).joined(separator: "|")
        return """
            LiveBridge \(LiveBridgeVersion.current) — home-lab jobs as iPhone Live Activities

            usage: livebridge <command> [options]

            commands:
              run --config FILE        run every configured source and sink (the daemon)
              check --config FILE      validate the config and probe every source and sink
              demo [--speed N] [--port P]
                                       simulated jobs of every source on a local preview page
              send --slug SLUG …       send one update or end an activity (for scripts; see `livebridge send --help`)
              replay FILE [--sink pushward|static] [--epsilon 0.03] [--format \(formats)]
                                       run recorded observations through the real tracker on virtual time
              version                  print the version
              help                     print this help
            """
    }

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
        _ arguments: [String], environment: [String: String], output: CommandOutput, handlesSignals: Bool = false,
        registry: ComponentRegistry = .standard
    ) async -> Int32 {
        NetworkLibraries.initialize()
        let usage = usage(registry)
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
            return await ReplayCommand.run(rest, environment: environment, output: output, registry: registry)
        case "demo":
            return await DemoCommand.run(
                rest, environment: environment, output: output, handlesSignals: handlesSignals, registry: registry)
        case "bench":
            output.err(
                "livebridge: the bench is a program of its own: livebridge-bench \(rest.joined(separator: " ")) (make bench)"
            )
            return ExitStatus.usage
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
    /// stdout and stderr, one `write(2)` per line (unbuffered, like the log lines).
    public static var standard: CommandOutput {
        CommandOutput(
            out: { text in StandardStreams.write(text + "\n", to: STDOUT_FILENO) },
            err: { text in StandardStreams.write(text + "\n", to: STDERR_FILENO) })
    }
}

/// The process's standard streams through the system calls, without Foundation's `FileHandle`.
package enum StandardStreams {
    /// Writes all of `text`, retrying short writes and interruptions; gives up on any other error
    /// (a closed pipe: there is no one left to tell).
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Everything on standard input until end of file; nil on a read error.
    static func readStandardInput() -> [UInt8]? { readToEnd(STDIN_FILENO) }

    /// Everything a descriptor gives until end of file (also `/proc` files, which report a size
    /// of 0); nil on a read error.
    package static func readToEnd(_ descriptor: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                return nil
            }
        }
    }
}
