/// A pure, incremental HTTP/1.x request parser: bytes in, a request or a rejection out.
///
/// No I/O and no clock, so it is table-tested and fuzzed on its own; the server only feeds it
/// what `recv` returned. It is strict on purpose (CRLF line endings, no obsolete line folding,
/// `Content-Length` framing only) because everything it accepts reaches webhook handlers.
///
/// Usage: `append` bytes, then call `next()` until it says `.needMore`. A complete request is
/// removed from the buffer, so pipelined requests come out one by one. A rejection is final.
public struct HTTPRequestParser: Sendable {
    /// Size limits; requests beyond them are rejected with 431 or 413.
    public struct Limits: Sendable, Equatable {
        /// Largest request line plus header block, final blank line included.
        public var maxHeaderBytes: Int
        /// Largest body.
        public var maxBodyBytes: Int

        /// Defaults: 16 KiB of head, 1 MiB of body.
        public init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1 << 20) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// What `next()` found in the buffered bytes.
    public enum Outcome: Sendable, Equatable {
        /// The buffered bytes are a valid prefix; feed more.
        case needMore
        /// A complete request; its bytes left the buffer.
        case request(HTTPServerRequest)
        /// The request is invalid; answer `status` and close the connection.
        case rejected(HTTPRequestRejection)
    }

    /// Methods accepted; any other well-formed method is answered with 405.
    public static let supportedMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// Methods whose requests must declare a body length (411 otherwise).
    static let methodsRequiringLength: Set<String> = ["POST", "PUT", "PATCH"]

    /// The limits this parser enforces.
    public let limits: Limits

    private var buffer: [UInt8] = []
    /// Bytes at the start of `buffer` already searched for the end of the head.
    private var scanned = 0
    private var pendingHead: Head?
    private var rejection: HTTPRequestRejection?

    /// A parser with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet returned as part of a request.
    public var bufferedByteCount: Int { buffer.count }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard rejection == nil else { return }
        buffer.append(contentsOf: bytes)
    }

    /// Parses one request from `bytes` in one go (tests, fuzzing).
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes)
        return parser.next()
    }

    /// The next complete request, a rejection, or `.needMore`.
    public mutating func next() -> Outcome {
        if let rejection { return .rejected(rejection) }
        if pendingHead == nil {
            switch scanForHead() {
            case .needMore:
                return .needMore
            case .rejected(let rejected):
                return reject(rejected)
            case .head(let head):
                pendingHead = head
            }
        }
        guard let head = pendingHead else { return .needMore }
        let total = head.length + head.contentLength
        guard buffer.count >= total else { return .needMore }
        let request = HTTPServerRequest(
            method: head.method, target: head.target, path: head.path, query: head.query, version: head.version,
            headers: head.headers, body: Array(buffer[head.length..<total]))
        buffer.removeFirst(total)
        scanned = 0
        pendingHead = nil
        return .request(request)
    }

    private mutating func reject(_ rejected: HTTPRequestRejection) -> Outcome {
        rejection = rejected
        buffer = []
        return .rejected(rejected)
    }

    // MARK: - Head

    private struct Head {
        var method: String
        var target: String
        var path: String
        var query: [String: String]
        var version: String
        var headers: HTTPHeaders
        var contentLength: Int
        /// Bytes of the head including the blank line.
        var length: Int
    }

    private enum Scan {
        case needMore
        case head(Head)
        case rejected(HTTPRequestRejection)
    }

    private mutating func scanForHead() -> Scan {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        var start = 0
        while start + 1 < buffer.count, buffer[start] == 0x0D, buffer[start + 1] == 0x0A { start += 2 }
        if start > 0 {
            buffer.removeFirst(start)
            scanned = 0
        }
        var index = scanned
        while index < buffer.count {
            let byte = buffer[index]
            if byte == 0x0A {
                guard index > 0, buffer[index - 1] == 0x0D else {
                    return .rejected(.init(status: 400, reason: "line ending without carriage return"))
                }
                if index >= 3, buffer[index - 2] == 0x0A, buffer[index - 3] == 0x0D {
                    let length = index + 1
                    guard length <= limits.maxHeaderBytes else { return .rejected(headTooLarge) }
                    return parseHead(buffer[0..<(length - 4)], length: length)
                }
            }
            index += 1
            if index > limits.maxHeaderBytes {
                return .rejected(headTooLarge)
            }
        }
        scanned = index
        return .needMore
    }

    private var headTooLarge: HTTPRequestRejection {
        .init(status: 431, reason: "request line and headers exceed \(limits.maxHeaderBytes) bytes")
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>, length: Int) -> Scan {
        var lines = Self.splitLines(bytes)
        guard !lines.isEmpty else { return .rejected(.init(status: 400, reason: "empty request")) }
        let requestLine = lines.removeFirst()
        if requestLine.contains(0x0D) || bytes.contains(0) {
            return .rejected(.init(status: 400, reason: "stray carriage return or NUL byte"))
        }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            return .rejected(.init(status: 400, reason: "malformed request line"))
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else {
            return .rejected(.init(status: 400, reason: "malformed method"))
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard Self.isVersionSyntax(parts[2]) else {
            return .rejected(.init(status: 400, reason: "malformed HTTP version"))
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .rejected(.init(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are supported"))
        }
        guard Self.supportedMethods.contains(method) else {
            return .rejected(.init(status: 405, reason: "method \(method) is not supported"))
        }
        let target: String
        let path: String
        let query: [String: String]
        switch Self.parseTarget(parts[1], method: method) {
        case .success(let parsed):
            (target, path, query) = parsed
        case .failure(let rejected):
            return .rejected(rejected)
        }

        var headers = HTTPHeaders()
        for line in lines {
            switch Self.parseField(line) {
            case .success(let field):
                headers.add(name: field.name, value: field.value)
            case .failure(let rejected):
                return .rejected(rejected)
            }
        }
        if version == "HTTP/1.1" && headers["Host"].count != 1 {
            return .rejected(.init(status: 400, reason: "an HTTP/1.1 request needs exactly one Host header"))
        }
        if headers.contains(name: "Transfer-Encoding") {
            return .rejected(.init(status: 501, reason: "Transfer-Encoding is not supported; send Content-Length"))
        }
        let contentLength: Int
        switch Self.contentLength(headers, method: method, limit: limits.maxBodyBytes) {
        case .success(let value):
            contentLength = value
        case .failure(let rejected):
            return .rejected(rejected)
        }
        return .head(
            Head(
                method: method, target: target, path: path, query: query, version: version, headers: headers,
                contentLength: contentLength, length: length))
    }

    private static func splitLines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    private static func isVersionSyntax(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = Array(bytes)
        return text.count == 8 && text.starts(with: Array("HTTP/".utf8)) && isDigit(text[5])
            && text[6] == UInt8(ascii: ".") && isDigit(text[7])
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: - Target

    private static func parseTarget(
        _ raw: ArraySlice<UInt8>, method: String
    ) -> Result<(String, String, [String: String]), HTTPRequestRejection> {
        let malformed = HTTPRequestRejection(status: 400, reason: "malformed request target")
        guard raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return .failure(malformed) }
        let target = String(decoding: raw, as: UTF8.self)
        if target == "*" {
            return method == "OPTIONS" ? .success((target, "*", [:])) : .failure(malformed)
        }
        var originForm = Substring(target)
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            // Absolute form: keep what follows the authority.
            let afterScheme = originForm.dropFirst(scheme.count)
            guard let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
                originForm = "/"
                break
            }
            originForm = afterScheme[slash...]
            if originForm.hasPrefix("?") { originForm = "/" + originForm }
        }
        guard originForm.hasPrefix("/") else { return .failure(malformed) }
        let withoutFragment = originForm.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let pieces = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = HTTPPercentDecoding.decode(pieces[0], plusAsSpace: false) else {
            return .failure(.init(status: 400, reason: "invalid percent-encoding in the path"))
        }
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for item in pieces[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = HTTPPercentDecoding.decode(pair[0], plusAsSpace: true),
                    let value = pair.count == 2 ? HTTPPercentDecoding.decode(pair[1], plusAsSpace: true) : ""
                else {
                    return .failure(.init(status: 400, reason: "invalid percent-encoding in the query"))
                }
                if query[name] == nil { query[name] = value }
            }
        }
        return .success((target, path, query))
    }

    // MARK: - Fields

    private static func parseField(_ line: ArraySlice<UInt8>) -> Result<HTTPHeaders.Field, HTTPRequestRejection> {
        guard let first = line.first else {
            return .failure(.init(status: 400, reason: "empty header line"))
        }
        if first == 0x20 || first == 0x09 {
            return .failure(.init(status: 400, reason: "obsolete header line folding is not accepted"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(.init(status: 400, reason: "header line without a colon"))
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            return .failure(.init(status: 400, reason: "malformed header name"))
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(.init(status: 400, reason: "control character in a header value"))
        }
        return .success(
            HTTPHeaders.Field(
                name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
    }

    private static func contentLength(
        _ headers: HTTPHeaders, method: String, limit: Int
    ) -> Result<Int, HTTPRequestRejection> {
        let values = headers["Content-Length"].flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        guard !values.isEmpty else {
            if methodsRequiringLength.contains(method) {
                return .failure(.init(status: 411, reason: "\(method) needs a Content-Length header"))
            }
            return .success(0)
        }
        var length: Int?
        for raw in values {
            let digits = raw.utf8.filter { $0 != 0x20 && $0 != 0x09 }
            guard !digits.isEmpty, digits.allSatisfy(isDigit),
                raw.utf8.count - digits.count == raw.utf8.prefix(while: { $0 == 0x20 || $0 == 0x09 }).count
                    + raw.utf8.reversed().prefix(while: { $0 == 0x20 || $0 == 0x09 }).count
            else {
                return .failure(.init(status: 400, reason: "malformed Content-Length"))
            }
            // More than 15 digits is beyond any limit; saturate instead of overflowing.
            let value = digits.count > 15 ? Int.max : digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            if let length, length != value {
                return .failure(.init(status: 400, reason: "conflicting Content-Length values"))
            }
            length = value
        }
        let result = length ?? 0
        guard result <= limit else {
            return .failure(.init(status: 413, reason: "body exceeds \(limit) bytes"))
        }
        return .success(result)
    }
}
