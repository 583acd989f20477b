import LiveBridgeCore
import LiveBridgeNet
import Testing

@Suite("HTTPHeaders and URL redaction")
struct HTTPHeadersTests {
    @Test("lookup ignores case, order and duplicates are kept")
    func lookup() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "X-Multi": "a"]
        headers.add(name: "x-multi", value: "b")
        #expect(headers.first(name: "content-type") == "application/json")
        #expect(headers["X-MULTI"] == ["a", "b"])
        #expect(headers.contains(name: "CONTENT-TYPE"))
        #expect(!headers.contains(name: "Content"))
        #expect(headers.count == 3)
        headers.replaceOrAdd(name: "X-MULTI", value: "c")
        #expect(headers["x-multi"] == ["c"])
        #expect(headers.fields.map(\.name) == ["Content-Type", "X-MULTI"])
        headers.remove(name: "content-type")
        #expect(Array(headers).map(\.name) == ["X-MULTI"])
        headers.replaceOrAdd(name: "New", value: "1")
        #expect(headers.fields.last == HTTPHeaders.Field(name: "New", value: "1"))
    }

    @Test("description masks credential-bearing fields")
    func descriptionMasksCredentials() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer SECRET1", "X-Api-Key": "SECRET2", "Cookie": "s=SECRET3", "Accept": "*/*",
        ]
        let text = headers.description
        #expect(!text.contains("SECRET"))
        #expect(text.contains("Accept: */*"))
    }

    static let urls: [(String, String)] = [
        (
            "http://h:8080/api?mode=queue&apikey=abc123&output=json",
            "http://h:8080/api?mode=queue&apikey=[redacted]&output=json"
        ),
        (
            "https://h/api?API_KEY=x&ma_password=y&session=z&name=ok",
            "https://h/api?API_KEY=[redacted]&ma_password=[redacted]&session=[redacted]&name=ok"
        ),
        ("https://user:pw@h/x", "https://[redacted]@h/x"),
        ("https://token@h/x?y=1", "https://[redacted]@h/x?y=1"),
        ("https://h/x#access_token=abc", "https://h/x"),
        ("http://h/path", "http://h/path"),
        ("http://h/a@b", "http://h/a@b"),
    ]

    @Test("URLs lose credentials but keep the rest", arguments: urls)
    func urlRedaction(url: String, expected: String) {
        #expect(HTTPURLRedactor.redact(url) == expected)
    }

    @Test("registered secrets are masked anywhere in a URL")
    func registeredSecret() {
        let redactor = Redactor()
        redactor.register("CANARYPATHSECRET")
        #expect(
            HTTPURLRedactor.redact("http://h/hook/CANARYPATHSECRET?x=1", redactor: redactor)
                == "http://h/hook/[redacted]?x=1")
    }
}
