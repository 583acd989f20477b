public import LiveBridgeCore
public import LiveBridgeNet

/// One configured SABnzbd source (`type: "sabnzbd"`).
public struct SABnzbdConfiguration: Sendable {
    /// The source's name (`home`): webhook path `/webhook/home`, default slug `sabnzbd-home`.
    public var name: String
    /// Where it sits in the config file (`sources[0]`), for "check …" hints.
    public var path: String
    /// SABnzbd's base URL as configured (with or without `/api`).
    public var url: String
    /// SABnzbd's API key (registered for redaction by the config reader).
    public var apiKey: String
    /// Shared secret a webhook must carry in `X-LiveBridge-Secret` (nil = none required).
    public var webhookSecret: String?
    /// Seconds between the cheap `limit=1` polls while nothing runs.
    public var idleInterval: Double
    /// Seconds between full polls while a session runs.
    public var activeInterval: Double
    /// Seconds allowed per request.
    public var timeout: Double
    /// Longest wait between polls while SABnzbd keeps refusing the key (or the address).
    public var maximumBackoff: Double
    /// How an https SABnzbd's certificate is checked.
    public var tls: TLSOptions
    /// Slug, name, end and stall rules of the activity.
    public var session: SABnzbdMapperSettings

    /// Creates a value with the given members.
    public init(
        name: String, path: String = "sources[0]", url: String, apiKey: String, webhookSecret: String? = nil,
        idleInterval: Double = 15, activeInterval: Double = 3, timeout: Double = 10, maximumBackoff: Double = 300,
        tls: TLSOptions = TLSOptions(), session: SABnzbdMapperSettings? = nil
    ) {
        self.name = name
        self.path = path
        self.url = url
        self.apiKey = apiKey
        self.webhookSecret = webhookSecret
        self.idleInterval = idleInterval
        self.activeInterval = activeInterval
        self.timeout = timeout
        self.maximumBackoff = maximumBackoff
        self.tls = tls
        self.session = session ?? SABnzbdMapperSettings(slug: "sabnzbd-\(name)", name: "SABnzbd (\(name))")
    }

    /// The keys this source reads, for documentation and did-you-mean.
    public static let keys = [
        "url", "apiKey", "webhookSecret", "idleInterval", "activeInterval", "slug", "displayName", "priority",
        "tapURL", "timeout", "endAfterIdlePolls", "stallAfter", "startGrace",
    ]

    /// Reads a source entry's SABnzbd keys (not `name`/`type`, not the TLS keys); records every
    /// problem on the reader and returns nil when the entry cannot run. The caller calls
    /// `reader.finish()`.
    public static func read(_ reader: ConfigReader, name: String, tls: TLSOptions = TLSOptions())
        -> SABnzbdConfiguration?
    {
        let url = reader.requiredString("url", hint: "SABnzbd's address, e.g. \"http://192.168.1.10:8080\"")
        let apiKey = reader.secret(
            "apiKey", required: true, hint: "SABnzbd → Config → General → API Key, e.g. \"${SABNZBD_API_KEY}\"")
        let webhookSecret = reader.secret("webhookSecret", required: false)
        let idle = reader.duration("idleInterval", default: 15, range: 1...3600)
        let active = reader.duration("activeInterval", default: 3, range: 0.2...600)
        let timeout = reader.duration("timeout", default: 10, range: 1...120)
        let slug = reader.string("slug", default: "sabnzbd-\(name)")
        let displayName = reader.string("displayName", default: "SABnzbd (\(name))")
        let priority = reader.int("priority", default: nil, range: 0...10)
        let tapURL = reader.string("tapURL")
        let endAfter = reader.int("endAfterIdlePolls", default: 2, range: 0...100) ?? 2
        let stallAfter = reader.duration("stallAfter", default: 60, range: 5...86400)
        let startGrace = reader.duration("startGrace", default: 5, range: 0...300)
        let lower = url.lowercased()
        if !url.isEmpty, !(lower.hasPrefix("http://") || lower.hasPrefix("https://")) {
            reader.problem(
                "url", "\"\(HTTPURLRedactor.redact(url))\" is not an http(s) URL; e.g. \"http://192.168.1.10:8080\"")
        } else if url.contains("?") || url.contains("#") {
            reader.problem(
                "url", "leave the query out (the API key goes in apiKey): \"\(HTTPURLRedactor.redact(url))\"")
        }
        if !ContentRules.isValidSlug(slug) {
            reader.problem("slug", "\"\(slug)\" must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$")
        }
        if displayName.isEmpty || displayName.count > 256 {
            reader.problem("displayName", "must be 1 to 256 characters")
        }
        if active > idle {
            reader.problem(
                "activeInterval", "\(active) s is longer than idleInterval (\(idle) s); it should be shorter")
        }
        if let tapURL, !(tapURL.lowercased().hasPrefix("http://") || tapURL.lowercased().hasPrefix("https://")) {
            reader.problem("tapURL", "\"\(tapURL)\" is not an http(s) URL")
        }
        guard let apiKey, !url.isEmpty else { return nil }
        return SABnzbdConfiguration(
            name: name, path: reader.path, url: url, apiKey: apiKey, webhookSecret: webhookSecret, idleInterval: idle,
            activeInterval: active, timeout: timeout, tls: tls,
            session: SABnzbdMapperSettings(
                slug: slug, name: displayName, endAfterIdlePolls: endAfter, stallAfter: stallAfter,
                startGrace: startGrace, priority: priority, tapURL: tapURL))
    }

    /// The client endpoint for this source.
    public var endpoint: SABnzbdClient.Endpoint {
        SABnzbdClient.Endpoint(
            sourceName: name, apiURL: SABnzbdClient.apiURL(from: url), apiKey: apiKey, timeout: timeout, tls: tls,
            configPath: path)
    }
}
