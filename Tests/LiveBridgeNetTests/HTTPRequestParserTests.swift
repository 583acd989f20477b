import LiveBridgeNet
import Testing

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    static let rejections: [(String, Int)] = [
        ("GARBAGE\r\n\r\n", 400),
        ("GET /\r\nHost: x\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET relative HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /%4 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /%00 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /%ff HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET /?q=%G1 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n: empty-name\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{01}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: x\n\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/x.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTPS/1.1\r\nHost: x\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\n", 400),
        ("BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("get / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("POST / HTTP/1.1\r\nHost: x\r\n\r\n", 411),
        ("PUT /x HTTP/1.1\r\nHost: x\r\n\r\n", 411),
        ("PATCH /x HTTP/1.1\r\nHost: x\r\n\r\n", 411),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\ntransfer-encoding: gzip\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505),
        ("GET / HTTP/0.9\r\nHost: x\r\n\r\n", 505),
    ]

    @Test("rejects invalid requests with the right status", arguments: rejections)
    func rejection(input: String, status: Int) {
        guard case .rejected(let rejection) = HTTPRequestParser.parse(Array(input.utf8)) else {
            Issue.record("expected \(status) for \(input.debugDescription)")
            return
        }
        #expect(rejection.status == status, "\(input.debugDescription): \(rejection.reason)")
    }

    @Test("unknown version is judged before unknown method (505 over 405)")
    func versionBeforeMethod() {
        let outcome = HTTPRequestParser.parse(Array("BREW / HTTP/3.0\r\nHost: x\r\n\r\n".utf8))
        #expect(outcome.rejectionStatus == 505)
    }

    @Test("head larger than the limit is 431, even before the blank line arrives")
    func oversizeHead() {
        let big = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 17 * 1024) + "\r\n\r\n"
        #expect(HTTPRequestParser.parse(Array(big.utf8)).rejectionStatus == 431)
        let unterminated = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 17 * 1024)
        #expect(HTTPRequestParser.parse(Array(unterminated.utf8)).rejectionStatus == 431)
        func head(totalBytes: Int) -> [UInt8] {
            Array(
                ("GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: totalBytes - 32) + "\r\n\r\n").utf8)
        }
        #expect(head(totalBytes: 16 * 1024).count == 16 * 1024)
        #expect(HTTPRequestParser.parse(head(totalBytes: 16 * 1024)).request != nil)
        #expect(HTTPRequestParser.parse(head(totalBytes: 16 * 1024 + 1)).rejectionStatus == 431)
    }

    @Test("limits are configurable")
    func configurableLimits() {
        let limits = HTTPRequestParser.Limits(maxHeaderBytes: 64, maxBodyBytes: 10)
        let body11 = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
        #expect(HTTPRequestParser.parse(Array(body11.utf8), limits: limits).rejectionStatus == 413)
        let body10 = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
        #expect(HTTPRequestParser.parse(Array(body10.utf8), limits: limits).request?.text == "0123456789")
        let longHead = "GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 60) + "\r\n\r\n"
        #expect(HTTPRequestParser.parse(Array(longHead.utf8), limits: limits).rejectionStatus == 431)
    }

    @Test("a request fed one byte at a time needs more until its last byte")
    func byteByByte() {
        let text = "POST /hook?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        var parser = HTTPRequestParser()
        let bytes = Array(text.utf8)
        for byte in bytes.dropLast() {
            parser.append([byte])
            #expect(parser.next() == .needMore)
        }
        parser.append([bytes.last!])
        let request = parser.next().request
        #expect(request?.method == "POST")
        #expect(request?.path == "/hook")
        #expect(request?.text == "hello")
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("pipelined requests come out one by one, a partial third waits for more")
    func pipelined() {
        let first = "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
        let second = "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
        let third = "DELETE /three HTTP/1.1\r\nHo"
        var parser = HTTPRequestParser()
        parser.append(Array((first + second + third).utf8))
        #expect(parser.next().request?.path == "/one")
        let two = parser.next().request
        #expect(two?.path == "/two")
        #expect(two?.text == "abc")
        #expect(parser.next() == .needMore)
        parser.append(Array("st: x\r\n\r\n".utf8))
        #expect(parser.next().request?.method == "DELETE")
        #expect(parser.next() == .needMore)
    }

    @Test("the body may arrive in pieces after the head")
    func bodyInPieces() {
        var parser = HTTPRequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nab".utf8))
        #expect(parser.next() == .needMore)
        parser.append(Array("cd".utf8))
        #expect(parser.next() == .needMore)
        parser.append(Array("efGET".utf8))
        #expect(parser.next().request?.text == "abcdef")
        #expect(parser.bufferedByteCount == 3)
    }

    @Test("a rejection is final")
    func rejectionIsFinal() {
        var parser = HTTPRequestParser()
        parser.append(Array("BREW / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(parser.next().rejectionStatus == 405)
        parser.append(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(parser.next().rejectionStatus == 405)
    }

    static let decoding: [(String, String, [String: String])] = [
        ("/plain", "/plain", [:]),
        ("/a%20b/c%2Fd", "/a b/c/d", [:]),
        ("/caf%C3%A9", "/café", [:]),
        ("/a+b", "/a+b", [:]),
        (
            "/q?x=1&y=two+words&z=%3D%26&empty=&flag", "/q",
            ["x": "1", "y": "two words", "z": "=&", "empty": "", "flag": ""]
        ),
        ("/dup?k=first&k=second", "/dup", ["k": "first"]),
        ("/frag?a=1#section", "/frag", ["a": "1"]),
        ("/?n%61me=v%61lue", "/", ["name": "value"]),
        ("http://example.com/abs?x=1", "/abs", ["x": "1"]),
        ("http://example.com", "/", [:]),
    ]

    @Test("path and query are percent-decoded", arguments: decoding)
    func percentDecoding(target: String, path: String, query: [String: String]) throws {
        let request = try #require(
            HTTPRequestParser.parse(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).request)
        #expect(request.target == target)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test("header names are looked up case-insensitively and keep wire order")
    func headerCase() throws {
        let text = "POST / HTTP/1.1\r\nhOsT: example\r\ncontent-LENGTH: 2\r\nX-Multi: a\r\nx-multi: b\r\n\r\nok"
        let request = try #require(HTTPRequestParser.parse(Array(text.utf8)).request)
        #expect(request.headers.first(name: "Host") == "example")
        #expect(request.headers.first(name: "CONTENT-LENGTH") == "2")
        #expect(request.headers["X-MULTI"] == ["a", "b"])
        #expect(request.headers.fields.map(\.name) == ["hOsT", "content-LENGTH", "X-Multi", "x-multi"])
        #expect(request.text == "ok")
    }

    @Test("header values lose surrounding whitespace but keep inner whitespace")
    func headerWhitespace() throws {
        let text = "GET / HTTP/1.1\r\nHost:x\r\nX-A: \t inner  space \t\r\nX-Empty:\r\n\r\n"
        let request = try #require(HTTPRequestParser.parse(Array(text.utf8)).request)
        #expect(request.headers.first(name: "x-a") == "inner  space")
        #expect(request.headers.first(name: "x-empty") == "")
        #expect(request.headers.first(name: "host") == "x")
    }

    @Test("accepted shapes: HTTP/1.0 without Host, OPTIONS *, leading blank line, body on GET")
    func acceptedShapes() {
        #expect(HTTPRequestParser.parse(Array("GET / HTTP/1.0\r\n\r\n".utf8)).request?.version == "HTTP/1.0")
        #expect(HTTPRequestParser.parse(Array("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).request?.path == "*")
        #expect(HTTPRequestParser.parse(Array("\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).request?.path == "/x")
        let getWithBody = "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
        #expect(HTTPRequestParser.parse(Array(getWithBody.utf8)).request?.text == "hi")
        let sameLengths = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi"
        #expect(HTTPRequestParser.parse(Array(sameLengths.utf8)).request?.text == "hi")
        let zero = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        #expect(HTTPRequestParser.parse(Array(zero.utf8)).request?.body == [])
        for method in HTTPRequestParser.supportedMethods {
            let text = "\(method) / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
            #expect(HTTPRequestParser.parse(Array(text.utf8)).request?.method == method)
        }
    }

    @Test("random mutations of valid requests never crash and are deterministic")
    func mutationFuzz() {
        var generator = SplitMix64(seed: 0x5EED)
        let seeds = [
            "POST /hook?token=abc&x=%20 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nX-A: b\r\n\r\nbody",
            "GET /a%2Fb HTTP/1.0\r\n\r\n",
            "OPTIONS * HTTP/1.1\r\nHost: y\r\n\r\n",
        ].map { Array($0.utf8) }
        let alphabet: [UInt8] = Array(" \r\n:%/?=&+0123456789aZ\t\u{0}\u{7f}".utf8) + [0xC3, 0xFF]
        for _ in 0..<3000 {
            var bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                default: if bytes.count > 1 { bytes.remove(at: position) }
                }
            }
            let whole = HTTPRequestParser.parse(bytes)
            var split = HTTPRequestParser()
            let cut = Int(generator.next() % UInt64(bytes.count + 1))
            split.append(bytes[..<cut])
            var outcome = split.next()
            if outcome == .needMore {
                split.append(bytes[cut...])
                outcome = split.next()
            }
            #expect(outcome == whole, "split at \(cut) changed the outcome for \(bytes)")
            if case .rejected(let rejection) = whole {
                #expect([400, 405, 411, 413, 431, 501, 505].contains(rejection.status))
            }
        }
    }
}

/// A tiny deterministic generator for reproducible fuzzing.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension HTTPRequestParser.Outcome {
    var request: HTTPServerRequest? {
        if case .request(let request) = self { return request }
        return nil
    }

    var rejectionStatus: Int? {
        if case .rejected(let rejection) = self { return rejection.status }
        return nil
    }
}
