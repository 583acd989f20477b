/// Sizes, speeds and durations as the card shows them.
///
/// Sizes use SABnzbd's own convention (powers of 1024, labelled KB/MB/GB) so the card agrees with
/// SABnzbd's web interface; below 10 one decimal, from 10 on whole numbers (`1.2 GB`, `45 MB/s`).
public enum SABnzbdText {
    /// `0 B`, `974 KB`, `62 MB`, `1.2 GB` (from 1000 of a unit on, the next unit: `1.0 MB`); past
    /// the largest unit's 999, `>999 PB` (only a garbled answer says so much).
    public static func size(_ bytes: Double) -> String {
        guard bytes.isFinite, bytes >= 1000 else { return "\(Int(max(0, bytes.isFinite ? bytes : 0))) B" }
        let units = ["KB", "MB", "GB", "TB", "PB"]
        var value = bytes / 1024
        var unit = 0
        // Promote at 1000 so 1023 KB reads 1.0 MB.
        while value >= 1000 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard value < 1000 else { return ">999 " + units[unit] }
        return number(value) + " " + units[unit]
    }

    /// `980 KB/s`, `1.0 MB/s`, `45 MB/s`.
    public static func speed(_ bytesPerSecond: Double) -> String {
        size(bytesPerSecond) + "/s"
    }

    /// `45s`, `2m 3s`, `1h 2m`, `2d 3h`; past `longestDuration`, `>999d`.
    public static func duration(_ seconds: Double) -> String {
        if seconds >= longestDuration { return ">999d" }
        let total = Int(clampedSeconds(seconds).rounded())
        let days = total / 86400
        let hours = total % 86400 / 3600
        let minutes = total % 3600 / 60
        let secs = total % 60
        if days > 0 { return hours > 0 ? "\(days)d \(hours)h" : "\(days)d" }
        if hours > 0 { return minutes > 0 ? "\(hours)h \(minutes)m" : "\(hours)h" }
        if minutes > 0 { return secs > 0 ? "\(minutes)m \(secs)s" : "\(minutes)m" }
        return "\(secs)s"
    }

    /// The longest duration the texts spell out, 1000 days: a source's figure past it is garbled,
    /// and an integer of seconds must hold what is printed.
    static let longestDuration: Double = 1000 * 86400

    /// `seconds` within 0…`longestDuration` (a negative or non-finite figure is 0).
    static func clampedSeconds(_ seconds: Double) -> Double {
        seconds.isFinite ? min(max(0, seconds), longestDuration) : 0
    }

    /// `1 job`, `3 jobs`.
    public static func jobs(_ count: Int) -> String {
        count == 1 ? "1 job" : "\(count) jobs"
    }

    /// One decimal below 10, whole numbers above (rounding that would print `10.0` prints `10`).
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        if tenths < 100 {
            return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
        }
        return "\(Int(value.rounded()))"
    }

    /// The text cut to `limit` characters with an ellipsis (the card allows 256).
    static func truncated(_ text: String, _ limit: Int = 256) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
