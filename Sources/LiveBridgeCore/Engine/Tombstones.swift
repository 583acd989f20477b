/// The slugs whose activities ended and were forgotten, each until its tombstone expires.
///
/// A forgotten activity leaves no tracker behind, only this: its slug and when it may be dropped
/// altogether (its `/metrics` series, what sinks remember about it). The numbering of frames
/// does not need it: a new activity on any slug numbers its frames after the sink's sequence
/// floor, which the checkpoint keeps. Tombstones are appended in expiry order (one TTL for all),
/// so expiring is a walk from the front; a slug buried again keeps only its latest expiry.
struct Tombstones: Sendable {
    private var queue: [(slug: String, until: Double)] = []
    private var head = 0
    private var latest: [String: Double] = [:]

    /// Tombstones alive.
    var count: Int { latest.count }

    /// When the first tombstone expires.
    var nextExpiry: Double? { head < queue.count ? queue[head].until : nil }

    /// When `slug`'s tombstone expires, or nil without one.
    func expiry(of slug: String) -> Double? { latest[slug] }

    /// Buries `slug` until `until`.
    mutating func add(_ slug: String, until: Double) {
        queue.append((slug, until))
        latest[slug] = until
    }

    /// Removes and returns the slugs whose tombstones expired at `now`.
    mutating func expire(at now: Double) -> [String] {
        var expired: [String] = []
        while head < queue.count, queue[head].until <= now {
            let (slug, until) = queue[head]
            head += 1
            if latest[slug] == until {
                latest[slug] = nil
                expired.append(slug)
            }
        }
        // Drop the walked prefix once it is most of the storage.
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return expired
    }
}
