public import LiveBridgeFoundation

/// Masks credentials in a URL before it reaches a log line or an error message.
///
/// SABnzbd and similar APIs carry their key in the query (`?apikey=…`), and users paste URLs
/// with `user:password@`; both must never be shown. Query values whose names look like
/// credentials are masked, user info is masked, the fragment is dropped, and the result passes
/// through `Redactor` for registered secrets.
public enum HTTPURLRedactor {
    /// Query parameter name fragments treated as credentials (case-insensitive).
    static let sensitiveNameParts = [
        "key", "token", "secret", "pass", "auth", "code", "sig", "session", "credential", "pwd",
    ]

    /// The URL with credentials masked; safe to log.
    ///
    /// `redactor` runs first (registered secrets anywhere in the URL), then the URL-aware
    /// masking; the result is not passed through `redactor` again.
    public static func redact(_ url: String, redactor: Redactor = .shared) -> String {
        let prepared = redactor.redact(url)
        var rest = Substring(prepared)
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var output = maskUserInfo(rest)
        if let query {
            output += "?" + maskQuery(query)
        }
        return output
    }

    private static func maskUserInfo(_ base: Substring) -> String {
        guard let schemeEnd = base.firstRange(of: "://") else { return String(base) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = base[authorityStart...].firstIndex(of: "/") ?? base.endIndex
        guard let at = base[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(base) }
        return String(base[..<authorityStart]) + Redactor.mask + String(base[at...])
    }

    private static func maskQuery(_ query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals].lowercased()
            guard sensitiveNameParts.contains(where: { name.contains($0) }) else { return String(pair) }
            return String(pair[...equals]) + Redactor.mask
        }.joined(separator: "&")
    }
}
