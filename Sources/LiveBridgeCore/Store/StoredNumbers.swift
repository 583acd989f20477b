/// Numbers read back from the data directory (tracker snapshots and journal, the budget ledger, a
/// sink's account): a damaged or hand-edited file's number past what the bridge writes reads as
/// missing, as an unreadable file does, so nothing derived from it can trap.
extension JSONValue {
    /// A time, duration, progress or rate as a snapshot stores it: finite and within
    /// ±`ActivityETA.latestFinish`; nil otherwise.
    package var storedNumber: Double? {
        guard let number = doubleValue, number.isFinite, abs(number) <= ActivityETA.latestFinish else { return nil }
        return number
    }

    /// A sequence number or count as local state stores it: 0…2⁵³ (what a JSON number holds
    /// exactly, far past any a bridge reaches); nil otherwise.
    package var storedCount: Int? {
        guard let number = intValue, (0...(1 << 53)).contains(number) else { return nil }
        return number
    }
}
