/// A Home Assistant message LiveBridge could not read.
///
/// Bad input is data, not a crash: the session logs it, counts it and keeps its last good state.
public struct HomeAssistantDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the place in the message (`event.c.timer.washer.+.a: expected an object`).
    public var message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// `Home Assistant message: <message>`.
    public var description: String { "Home Assistant message: \(message)" }
}
