import LiveBridgeCore

/// What a webhook body says, for the log: SABnzbd's Apprise `json://` notification
/// (`{"title": "NZB added to queue", "message": "Job.nzb", "type": "info"}`), or anything else.
///
/// The body only ever wakes the poller — the queue is the truth — so an unknown or empty body
/// is as good as any.
public enum SABnzbdWebhook {
    /// `NZB added to queue: Job.nzb`, or nil when the body is not an Apprise JSON notification.
    public static func summary(of body: [UInt8]) -> String? {
        guard !body.isEmpty, let json = try? JSONParser.parse(body), case .object(let members) = json else {
            return nil
        }
        let title = members["title"]?.stringValue ?? ""
        let message = members["message"]?.stringValue ?? members["body"]?.stringValue ?? ""
        let text = [title, message].filter { !$0.isEmpty }.joined(separator: ": ")
        guard !text.isEmpty else { return nil }
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}
