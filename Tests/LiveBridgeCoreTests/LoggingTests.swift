import LiveBridgeCore
import Testing

@Suite("Logger and redaction")
struct LoggingTests {
    @Test("logfmt lines carry level, label, message and metadata")
    func logfmt() {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "sabnzbd", handler: handler, redactor: Redactor(), now: { 0 })
        logger.child("home").warning("poll failed", ["status": "503", "detail": "two words"])
        #expect(
            handler.lines == [
                #"ts=1970-01-01T00:00:00.000Z level=warning logger=sabnzbd.home msg="poll failed" detail="two words" status=503"#
            ])
    }

    @Test("levels below the logger's level are dropped")
    func levels() {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "x", level: .info, handler: handler, redactor: Redactor())
        logger.debug("hidden")
        logger.info("shown")
        #expect(handler.records.map(\.message) == ["shown"])
    }

    @Test("registered secrets never reach a handler")
    func registeredSecrets() {
        let redactor = Redactor()
        redactor.register("hlk_CANARYcanary0123456789abcdefghij")
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "x", handler: handler, redactor: redactor)
        logger.error(
            "failed with key hlk_CANARYcanary0123456789abcdefghij", ["key": "hlk_CANARYcanary0123456789abcdefghij"])
        #expect(!handler.lines.joined().contains("CANARY"))
    }

    @Test(
        "secret carriers are masked even when the secret was never registered",
        arguments: [
            ("GET http://sab:8080/api?mode=queue&apikey=abcdef123456&output=json", "abcdef123456"),
            ("Authorization: Bearer hlk_zzzzzzzzzzzz", "hlk_zzzzzzzzzzzz"),
            ("x-api-key: sk_live_123456", "sk_live_123456"),
            ("ws connect token=eyJhbGciOi.long.token", "eyJhbGciOi.long.token"),
        ])
    func carriers(text: String, secret: String) {
        let masked = Redactor().redact(text)
        #expect(!masked.contains(secret))
        #expect(masked.contains(Redactor.mask))
    }
}

@Suite("Redaction is idempotent")
struct RedactionIdempotenceTests {
    @Test("redacting twice changes nothing the second time")
    func twice() {
        let redactor = Redactor()
        redactor.register("supersecretvalue")
        let once = redactor.redact("GET /api?apikey=abc123&x=1 Authorization: Bearer tok987 key supersecretvalue")
        #expect(redactor.redact(once) == once)
        #expect(!once.contains("abc123") && !once.contains("tok987") && !once.contains("supersecretvalue"))
    }
}
