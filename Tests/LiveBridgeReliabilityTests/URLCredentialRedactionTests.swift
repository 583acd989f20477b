import LiveBridgeCore
import Testing

/// Credentials written into URLs (a reverse proxy's basic auth) are secrets nobody registered:
/// the redactor masks them wherever a URL is quoted.
@Suite("Secrets: credentials in URLs")
struct URLCredentialRedactionTests {
    @Test(
        "user info of every URL is masked; other text is left alone",
        arguments: [
            (
                "GET https://proxy:s3cret@ha.example:8123/api failed",
                "GET https://[redacted]@ha.example:8123/api failed"
            ),
            ("ws://token@127.0.0.1:80/api/websocket", "ws://[redacted]@127.0.0.1:80/api/websocket"),
            ("\"ftp://u:p@h/x\" is not an http(s) URL", "\"ftp://[redacted]@h/x\" is not an http(s) URL"),
            ("a http://a:b@one/ and http://c:d@two?x=1", "a http://[redacted]@one/ and http://[redacted]@two?x=1"),
            ("mail me at someone@example.com", "mail me at someone@example.com"),
            ("http://host/path@not-user-info", "http://host/path@not-user-info"),
            ("https://[redacted]@host/", "https://[redacted]@host/"),
        ])
    func userInfo(text: String, expected: String) {
        let redactor = Redactor()
        #expect(redactor.redact(text) == expected)
        #expect(redactor.redact(redactor.redact(text)) == expected, "idempotent")
    }
}
