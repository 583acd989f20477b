import Foundation

/// The `livebridge` command line.
public enum LiveBridgeCommand {
    /// Runs the command named by the process arguments and exits with its status.
    public static func main() async {
        exit(0)
    }
}
