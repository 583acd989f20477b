import LiveBridgeCore
import LiveBridgeNet
import LiveBridgeSABnzbd
import Testing

/// URLs, answer classification and the config entry.
@Suite("SABnzbd client and configuration", .serialized)
struct ClientAndConfigTests {
    @Test(
        "the API URL is found with or without /api, with a url_base and trailing slashes",
        arguments: [
            ("http://host:8080", "http://host:8080/api"), ("http://host:8080/", "http://host:8080/api"),
            ("http://host:8080/api", "http://host:8080/api"), ("http://host:8080/api/", "http://host:8080/api"),
            ("https://nas/sabnzbd", "https://nas/sabnzbd/api"), (" http://h:1/sabnzbd/api ", "http://h:1/sabnzbd/api"),
        ])
    func apiURL(base: String, expected: String) {
        #expect(SABnzbdClient.apiURL(from: base) == expected)
    }

    @Test("the key travels only as the escaped apikey query parameter, and output=json is always asked for")
    func url() {
        let client = SABnzbdClient(
            endpoint: .init(sourceName: "home", apiURL: "http://h:8080/api", apiKey: "a b&c=d"),
            transport: HTTPClient.shared)
        #expect(
            client.url(mode: "queue", [("start", "0"), ("limit", "1")])
                == "http://h:8080/api?mode=queue&output=json&start=0&limit=1&apikey=a%20b%26c%3Dd")
    }

    struct Answer: Sendable, CustomTestStringConvertible {
        var status: Int
        var contentType: String
        var body: String
        var code: SABnzbdError.Code
        var says: String
        var testDescription: String { "\(status) \(body.prefix(30))" }
    }

    static let answers = [
        Answer(
            status: 403, contentType: "text/html", body: "API Key Incorrect", code: .authentication,
            says: "check sources[2].apiKey"),
        Answer(
            status: 403, contentType: "text/html", body: "API Key Required", code: .authentication,
            says: "\"API Key Required\""),
        Answer(status: 403, contentType: "text/html", body: "", code: .authentication, says: "API Key Required"),
        Answer(
            status: 403, contentType: "text/html",
            body: "External internet access denied - https://sabnzbd.org/access-denied",
            code: .accessDenied, says: "SABnzbd refuses this client"),
        Answer(
            status: 401, contentType: "text/html", body: "Unauthorized", code: .authentication, says: "sources[2].url"),
        Answer(
            status: 404, contentType: "text/html", body: "Not Found", code: .notFound,
            says: "no SABnzbd API at this address"),
        Answer(status: 503, contentType: "text/html", body: "<html>", code: .server, says: "HTTP 503"),
        Answer(status: 200, contentType: "text/html", body: "  <!DOCTYPE html>", code: .notJSON, says: "HTML page"),
        Answer(
            status: 200, contentType: "text/plain", body: "API Key Incorrect", code: .authentication, says: "apiKey"),
        Answer(status: 200, contentType: "text/plain", body: "ok", code: .notJSON, says: "\"ok\" instead of JSON"),
        Answer(
            status: 200, contentType: "application/json", body: #"{"status": false, "error": "API Key Incorrect"}"#,
            code: .authentication, says: "apiKey"),
        Answer(
            status: 200, contentType: "application/json", body: #"{"status": false, "error": "not implemented"}"#,
            code: .badAnswer, says: "SABnzbd says \"not implemented\""),
        Answer(
            status: 200, contentType: "application/json", body: #"{"foo": 1}"#, code: .badAnswer,
            says: "no \"queue\" member"),
    ]

    @Test("every wrong answer becomes a typed error saying what to check, never with the key", arguments: answers)
    func classification(_ answer: Answer) async throws {
        let clock = SystemClock()
        let fake = try FakeSABnzbd(emptyWith: clock, start: clock.now)
        defer { fake.shutdown() }
        fake.answerEverything(with: .answer(status: answer.status, contentType: answer.contentType, body: answer.body))
        let key = "CANARYclientkey0123456789abcdef"
        let client = SABnzbdClient(
            endpoint: .init(
                sourceName: "home", apiURL: fake.baseURL + "/api", apiKey: key, timeout: 20, configPath: "sources[2]"),
            transport: HTTPClient.shared)
        do {
            _ = try await client.queue(limit: 1)
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == answer.code, "\(error.message)")
            #expect(error.message.hasPrefix("sabnzbd \"home\": "))
            #expect(error.message.contains(answer.says), "\(error.message)")
            #expect(!error.message.contains(key))
        }
    }

    func reader(_ members: [String: JSONValue]) -> ConfigReader {
        ConfigReader(path: "sources[0]", members: members, problems: ConfigProblems())
    }

    @Test("config defaults: 15 s idle, 3 s active, slug sabnzbd-<name>, the key registered for redaction")
    func configDefaults() throws {
        let key = "CANARYconfigkey0123456789abcdef"
        let entry = reader(["url": "http://sab:8080", "apiKey": .string(key)])
        let configuration = try #require(SABnzbdConfiguration.read(entry, name: "home"))
        entry.finish()
        #expect(entry.problems.all.isEmpty)
        #expect(configuration.idleInterval == 15 && configuration.activeInterval == 3 && configuration.timeout == 10)
        #expect(configuration.session.slug == "sabnzbd-home" && configuration.session.name == "SABnzbd (home)")
        #expect(configuration.session.endAfterIdlePolls == 2 && configuration.session.stallAfter == 60)
        #expect(configuration.webhookSecret == nil && configuration.endpoint.apiURL == "http://sab:8080/api")
        #expect(configuration.endpoint.configPath == "sources[0]")
        #expect(!Redactor.shared.redact("key \(key)").contains(key))
    }

    @Test("every key read; durations as text; a demanding setup")
    func configFull() throws {
        let entry = reader([
            "url": "https://nas.local/sabnzbd/api", "apiKey": "k0123456789", "webhookSecret": "s3cret-hook",
            "idleInterval": "30s", "activeInterval": "2s", "slug": "downloads", "displayName": "Downloads",
            "priority": 5, "tapURL": "https://nas.local/sabnzbd", "timeout": "20s", "endAfterIdlePolls": 4,
            "stallAfter": "2m", "startGrace": 0,
        ])
        let configuration = try #require(SABnzbdConfiguration.read(entry, name: "nas"))
        entry.finish()
        #expect(entry.problems.all.isEmpty, "\(entry.problems.all)")
        #expect(configuration.idleInterval == 30 && configuration.activeInterval == 2 && configuration.timeout == 20)
        #expect(configuration.webhookSecret == "s3cret-hook")
        #expect(configuration.session.slug == "downloads" && configuration.session.name == "Downloads")
        #expect(configuration.session.priority == 5 && configuration.session.tapURL == "https://nas.local/sabnzbd")
        #expect(configuration.session.endAfterIdlePolls == 4 && configuration.session.stallAfter == 120)
        #expect(configuration.session.startGrace == 0)
        #expect(configuration.endpoint.apiURL == "https://nas.local/sabnzbd/api")
    }

    @Test("problems name the key and what to do")
    func configProblems() {
        let entry = reader([
            "url": "sab:8080", "idleInterval": "2s", "activeInterval": "5s", "slug": "bad slug", "apiKy": "x",
        ])
        #expect(SABnzbdConfiguration.read(entry, name: "home") == nil)
        entry.finish()
        let text = entry.problems.all.map(\.description)
        #expect(text.contains { $0.hasPrefix("sources[0].apiKey: required") })
        #expect(text.contains { $0.hasPrefix("sources[0].url: \"sab:8080\" is not an http(s) URL") })
        #expect(text.contains { $0.hasPrefix("sources[0].activeInterval:") && $0.contains("longer than idleInterval") })
        #expect(text.contains { $0.hasPrefix("sources[0].slug:") })
        #expect(text.contains { $0 == "sources[0].apiKy: unknown key; did you mean \"apiKey\"?" })
        let query = reader(["url": "http://sab:8080/api?apikey=abc", "apiKey": "k0123456789"])
        _ = SABnzbdConfiguration.read(query, name: "home")
        #expect(
            query.problems.all.contains { $0.message.contains("leave the query out") && !$0.message.contains("abc") })
    }
}
