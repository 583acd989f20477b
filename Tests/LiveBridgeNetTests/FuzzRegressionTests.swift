import Foundation
import LiveBridgeNet
import Testing

/// Inputs the libFuzzer harnesses (`fuzz/`) found breaking a Net parser, replayed exactly as found.
@Suite("Fuzz regressions (Net)")
struct NetFuzzRegressionTests {
    /// The bytes of a crash artifact, stored as base64 so binary inputs survive in source.
    static func artifact(_ base64: String) throws -> [UInt8] {
        try [UInt8](#require(Data(base64Encoded: base64)))
    }

    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    @Test("websocket-handshake crash-b2e8f124: a reason phrase with CR/LF in it reaches the error message printable")
    func reasonPhraseWithLineBreaks() throws {
        // "HTTP/1.1 401 UnauthorizedCo\rn\netnt-Typ…" — bare CR and LF inside the status line.
        let input = try Self.artifact(
            "SFRUUC8xLjEgNDAxIFVuYXV0aG9yaXplZENvDW4KZXRudC1UeXB0ZW50LVR5cGU6IHRleHQvcGxhbW4NCg0KNDAxOnJpemVkABtbMzFt")
        let (head, count) = try #require(try WebSocketHTTPHead.parse(input, limit: 2048))
        let error = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(
                head, bodyPrefix: Array(input[count...]), key: "dGhlIHNhbXBsZSBub25jZQ==")
        }
        let message = try #require(error).description
        #expect(!Self.hasControlCharacters(message), "\(message)")
        #expect(message.contains("HTTP 401 UnauthorizedCo n etnt-Typ"))
    }

    @Test("websocket-handshake crash-02fc3b48: a Content-Type with a NUL in it reaches the error message printable")
    func contentTypeWithControlCharacter() throws {
        // "HTTP/1.1 200 OK\r\nContent-Type:f\u{0}40\r\n\r\n<h=mlHHTi\r\u{B}"
        let input = try Self.artifact("SFRUUC8xLjEgMjAwIE9LDQpDb250ZW50LVR5cGU6ZgA0MA0KDQo8aD1tbEhIVGkNCw==")
        let (head, count) = try #require(try WebSocketHTTPHead.parse(input, limit: 2048))
        let error = #expect(throws: WebSocketHandshakeError.self) {
            try WebSocketHandshake.validateResponse(
                head, bodyPrefix: Array(input[count...]), key: "dGhlIHNhbXBsZSBub25jZQ==")
        }
        let message = try #require(error).description
        #expect(!Self.hasControlCharacters(message), "\(message)")
        #expect(message.contains("not a WebSocket endpoint"))
    }
}
