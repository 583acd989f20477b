/// The version LiveBridge reports (`livebridge version`, User-Agent).
public enum LiveBridgeVersion {
    public static let current = "0.1.0"
}
