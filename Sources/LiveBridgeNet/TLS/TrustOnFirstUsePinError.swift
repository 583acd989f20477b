/// A stored trust-on-first-use pin exists but cannot be used.
public struct TrustOnFirstUsePinError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the stored pin and what to do about it.
    public var message: String

    /// The message.
    public var description: String { message }
}
