/// The test broker could not be started.
public struct MosquittoBrokerError: Error, CustomStringConvertible {
    /// What happened, with mosquitto's output.
    public var message: String
    /// The port was taken between choosing and binding it.
    public var portInUse: Bool
    /// The message.
    public var description: String { message }
}
