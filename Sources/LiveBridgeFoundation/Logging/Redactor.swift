import Synchronization

/// Removes secrets from text before it reaches a log line, an error message or `/health`.
///
/// Two layers: every configured secret (API keys, tokens, access codes) is registered here and
/// replaced wherever it appears, and well-known carriers (`apikey=…`, `Bearer …`, `token=…`) are
/// masked even when the value was never registered.
public final class Redactor: Sendable {
    /// The process-wide registry that `Logger` and error descriptions consult.
    public static let shared = Redactor()

    /// What replaces a secret.
    public static let mask = "[redacted]"

    private let secrets = Mutex<[String]>([])

    public init() {}

    /// Registers a secret; values shorter than 4 characters are ignored (they would mask
    /// ordinary words), as are empty strings.
    public func register(_ secret: String) {
        guard secret.count >= 4 else { return }
        secrets.withLock { list in
            if !list.contains(secret) {
                list.append(secret)
                list.sort { $0.count > $1.count }
            }
        }
    }

    /// The text with every registered secret and every known secret carrier masked.
    public func redact(_ text: String) -> String {
        var result = text
        let registered = secrets.withLock { $0 }
        for secret in registered where result.contains(secret) {
            result = result.replacingAll(secret, with: Self.mask)
        }
        return Self.maskCarriers(Self.maskUserInfo(result))
    }

    /// Masks the user info of every URL (`https://user:password@host` → `https://[redacted]@host`):
    /// a password or token written into a URL is a secret nobody registered.
    static func maskUserInfo(_ text: String) -> String {
        guard text.contains("://"), text.contains("@") else { return text }
        var output = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            output += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let authority = rest.prefix { !"/?#\"' <>\n\r\t".contains($0) }
            guard let at = authority.lastIndex(of: "@") else { continue }
            let userInfo = rest[..<at]
            output += userInfo == Self.mask ? String(userInfo) : Self.mask
            rest = rest[at...]
        }
        output += rest
        return output
    }

    private static let carriers: [String] = [
        "apikey=", "api_key=", "apiKey=", "token=", "access_token=", "password=", "accessCode=",
        "Bearer ", "bearer ", "x-api-key: ", "X-Api-Key: ", "authorization: ", "Authorization: ",
    ]

    /// Masks the value after each carrier up to the next separator.
    static func maskCarriers(_ text: String) -> String {
        guard carriers.contains(where: { text.contains($0) }) else { return text }
        var output = ""
        var rest = Substring(text)
        outer: while !rest.isEmpty {
            for carrier in carriers where rest.hasPrefix(carrier) {
                output += carrier
                rest = rest.dropFirst(carrier.count)
                if rest.hasPrefix(Self.mask) {
                    // Already masked (text redacted twice): keep it as it is.
                    output += Self.mask
                    rest = rest.dropFirst(Self.mask.count)
                    continue outer
                }
                let value = rest.prefix { !" &\"',;)}]\n\r\t".contains($0) }
                if value.isEmpty || value == Self.mask {
                    continue outer
                }
                if carrier.hasSuffix(": "), value.lowercased() == "bearer" {
                    // "Authorization: Bearer x" — let the Bearer carrier mask the token.
                    continue outer
                }
                output += Self.mask
                rest = rest.dropFirst(value.count)
                continue outer
            }
            output.append(rest.first!)
            rest = rest.dropFirst()
        }
        return output
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var output = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            output += rest[..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        output += rest
        return output
    }
}

extension Substring {
    package func range(of target: String) -> Range<Substring.Index>? {
        guard let first = target.first else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index] == first, self[index...].hasPrefix(target) {
                return index..<self.index(index, offsetBy: target.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
