import FoundationEssentials
import LiveBridgeCore
public import LiveBridgeNet

/// Talks to one SABnzbd's JSON API: builds the URLs (key only in the `apikey` query parameter),
/// sends the requests and turns every kind of wrong answer into a `SABnzbdError` that says
/// which config key to fix.
public struct SABnzbdClient: Sendable {
    /// Where and how to reach SABnzbd.
    public struct Endpoint: Sendable {
        /// The source's configured name (`home`), for messages.
        public var sourceName: String
        /// The API URL, `…/api` (see `SABnzbdClient.apiURL(from:)`).
        public var apiURL: String
        /// SABnzbd's API key (registered for redaction by the config reader).
        public var apiKey: String
        /// Seconds allowed per request.
        public var timeout: Double
        /// How an https SABnzbd's certificate is checked.
        public var tls: TLSOptions
        /// Where the source sits in the config file (`sources[0]`), for "check …" hints.
        public var configPath: String

        /// Creates a value with the given members.
        public init(
            sourceName: String, apiURL: String, apiKey: String, timeout: Double = 10, tls: TLSOptions = TLSOptions(),
            configPath: String = "sources[0]"
        ) {
            self.sourceName = sourceName
            self.apiURL = apiURL
            self.apiKey = apiKey
            self.timeout = timeout
            self.tls = tls
            self.configPath = configPath
        }
    }

    /// Where this client sends its calls.
    public let endpoint: Endpoint
    let transport: any HTTPTransport

    /// A client for `endpoint` over `transport`.
    public init(endpoint: Endpoint, transport: any HTTPTransport) {
        self.endpoint = endpoint
        self.transport = transport
    }

    /// SABnzbd's API URL for a configured base URL, given with or without `/api`
    /// (`http://host:8080`, `http://host:8080/sabnzbd/`, `http://host:8080/api`).
    public static func apiURL(from base: String) -> String {
        var url = base.trimmingWhitespace()
        while url.hasSuffix("/") { url.removeLast() }
        return url.hasSuffix("/api") ? url : url + "/api"
    }

    // MARK: - Calls

    /// `mode=version` (needs no key).
    public func version() async throws(SABnzbdError) -> String {
        let answer = try await call("version", [])
        guard let version = answer["version"]?.stringValue else {
            throw failure(.badAnswer, nil, "answered mode=version without a version")
        }
        return version
    }

    /// `mode=queue`; `limit: 1` is the cheap idle poll.
    public func queue(limit: Int? = nil) async throws(SABnzbdError) -> SABnzbdQueue {
        let answer = try await call("queue", limit.map { [("start", "0"), ("limit", String($0))] } ?? [])
        do {
            return try SABnzbdQueue(answer: answer)
        } catch {
            throw failure(.badAnswer, nil, "mode=queue: \(error.message)")
        }
    }

    /// `mode=history` with a `limit`; nil when SABnzbd says "unchanged".
    public func history(limit: Int) async throws(SABnzbdError) -> SABnzbdHistory? {
        let answer = try await call("history", [("start", "0"), ("limit", String(limit))])
        do {
            return try SABnzbdHistory.decode(answer: answer)
        } catch {
            throw failure(.badAnswer, nil, "mode=history: \(error.message)")
        }
    }

    /// The URL of one call, key included: never log it unredacted.
    public func url(mode: String, _ parameters: [(String, String)]) -> String {
        var query = [("mode", mode), ("output", "json")] + parameters
        query.append(("apikey", endpoint.apiKey))
        return endpoint.apiURL + "?" + query.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    private func call(_ mode: String, _ parameters: [(String, String)]) async throws(SABnzbdError) -> JSONValue {
        let request = HTTPRequest(
            method: "GET", url: url(mode: mode, parameters), headers: ["Accept": "application/json"],
            connectTimeout: min(endpoint.timeout, 5), timeout: endpoint.timeout, maxResponseBytes: 4 << 20,
            tls: endpoint.tls)
        let response: HTTPResponse
        do {
            response = try await transport.execute(request)
        } catch {
            if error.code == .cancelled { throw failure(.cancelled, nil, "request cancelled") }
            let code: SABnzbdError.Code = error.code == .timeout ? .timeout : .unreachable
            throw failure(code, nil, "\(error.message) (check \(endpoint.configPath).url)")
        }
        return try interpret(response, mode: mode)
    }

    /// Classifies an answer: JSON, or the error it stands for.
    func interpret(_ response: HTTPResponse, mode: String) throws(SABnzbdError) -> JSONValue {
        let text = Self.excerpt(response.text)
        let looksLikeHTML = response.body.first { !Self.isSpace($0) } == UInt8(ascii: "<")
        let keyHint =
            "check \(endpoint.configPath).apiKey (SABnzbd → Config → General → API Key; the NZB key is not enough)"
        switch response.status {
        case 200..<300:
            break
        case 401:
            throw failure(
                .authentication, 401,
                "HTTP 401 — something in front of SABnzbd wants credentials; put them in \(endpoint.configPath).url "
                    + "(http://user:password@host:port) or reach SABnzbd directly")
        case 403 where text.lowercased().contains("api key") || text.isEmpty:
            throw failure(.authentication, 403, "HTTP 403 \"\(text.isEmpty ? "API Key Required" : text)\" — \(keyHint)")
        case 403:
            throw failure(
                .accessDenied, 403,
                "HTTP 403 \"\(text)\" — SABnzbd refuses this client; allow it under SABnzbd's Config → General "
                    + "(external access / host whitelist) or use the address SABnzbd knows in \(endpoint.configPath).url"
            )
        case 404:
            throw failure(
                .notFound, 404,
                "HTTP 404 — no SABnzbd API at this address; \(endpoint.configPath).url should be SABnzbd's base URL "
                    + "such as http://host:8080 (with its url_base, if any)")
        case 500...:
            throw failure(
                .server, response.status, "HTTP \(response.status) from SABnzbd or a proxy in front of it; retrying")
        default:
            throw failure(.badAnswer, response.status, "unexpected HTTP \(response.status) \"\(text)\"")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(response.body)
        } catch {
            if looksLikeHTML {
                throw failure(
                    .notJSON, response.status,
                    "mode=\(mode) answered an HTML page instead of JSON — \(endpoint.configPath).url points at a web "
                        + "page (a login or proxy page?), not SABnzbd's API")
            }
            if text.lowercased().contains("api key") {
                throw failure(.authentication, response.status, "\"\(text)\" — \(keyHint)")
            }
            throw failure(
                .notJSON, response.status,
                "mode=\(mode) answered \(text.isEmpty ? "an empty body" : "\"\(text)\"") instead of JSON (\(error.message))"
            )
        }
        if json["status"]?.boolValue == false, let message = json["error"]?.stringValue {
            if message.lowercased().contains("api key") {
                throw failure(.authentication, response.status, "\"\(message)\" — \(keyHint)")
            }
            throw failure(.badAnswer, response.status, "mode=\(mode): SABnzbd says \"\(message)\"")
        }
        return json
    }

    private func failure(_ code: SABnzbdError.Code, _ status: Int?, _ text: String) -> SABnzbdError {
        SABnzbdError(code, status: status, message: "sabnzbd \"\(endpoint.sourceName)\": \(text)")
    }

    /// The first line of a body, trimmed and cut short, for messages.
    static func excerpt(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingHTTPWhitespace()
        return trimmed.count > 120 ? String(trimmed.prefix(117)) + "…" : trimmed
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Percent-escapes everything but RFC 3986 unreserved characters.
    static func escape(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
