/// MQTT topic name and filter rules (MQTT 3.1.1 §4.7), checked before anything reaches the library
/// so a bad topic is a clear error instead of a bare `MOSQ_ERR_INVAL`.
public enum MQTTTopic {
    /// True for a topic a message can be published to: non-empty, no wildcards, no NUL, ≤ 65535 bytes.
    public static func isValidName(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 65535
            && !topic.unicodeScalars.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" })
    }

    /// True for a subscription filter: `+` only as a whole level, `#` only as the whole last level.
    public static func isValidFilter(_ filter: String) -> Bool {
        guard !filter.isEmpty, filter.utf8.count <= 65535, !filter.contains("\0") else { return false }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) { return false }
            if level.contains("+") && level != "+" { return false }
        }
        return true
    }
}
