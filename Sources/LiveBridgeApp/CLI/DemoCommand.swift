/// `livebridge demo`: simulated sources on a local preview page.
enum DemoCommand {
    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) async -> Int32 {
        output.err("livebridge demo: not available in this build")
        return ExitStatus.software
    }
}
