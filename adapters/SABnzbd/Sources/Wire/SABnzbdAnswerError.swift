/// A SABnzbd answer that does not have the shape of a queue or history answer.
///
/// Raised by the wire decoders; the adapter reports it in `/health` and keeps the activity as it
/// was, because one odd answer says nothing about the jobs.
public struct SABnzbdAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, free of secrets (answers never carry the API key).
    public var message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
