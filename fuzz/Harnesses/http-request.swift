// Harness `http-request`: the HTTP/1.x request parser behind webhooks and the activities API
// (`HTTPRequestParser` in LiveBridgeNet).
//
// The input is the raw byte stream a client sent (seeds are readable requests). Invariants:
//   - parsing never crashes and always ends in `.needMore` or a final rejection with a 4xx/5xx
//     status, within a bounded number of `next()` calls;
//   - every request it returns is one the server may hand to a handler: supported method,
//     HTTP/1.0 or 1.1, a path, a body within the limit;
//   - the outcome does not depend on how TCP cut the stream: feeding the same bytes in chunks
//     (sizes drawn from the input) gives the same requests and the same rejection.

import LiveBridgeNet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let bytes = input.bytes
    let standard = HTTPRequestParser.Limits()
    let whole = outcomes(of: bytes, limits: standard, chunkSizes: [bytes.count])
    check(whole, limits: standard)
    fuzzTrace("\(whole)")

    // Chunk sizes from the bytes themselves, so mutations explore different cuts.
    var sizes: [Int] = []
    var seed = bytes.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
    for _ in 0..<8 {
        seed = seed &* 1_103_515_245 &+ 12345
        sizes.append(1 + Int(seed >> 16) % 17)
    }
    let chunked = outcomes(of: bytes, limits: standard, chunkSizes: sizes)
    fuzzCheck(whole == chunked, "chunked parse differs: whole \(whole) vs chunks \(sizes): \(chunked)")

    // Tight limits reach the 431 and 413 paths with short inputs.
    let tight = HTTPRequestParser.Limits(maxHeaderBytes: 64, maxBodyBytes: 16)
    check(outcomes(of: bytes, limits: tight, chunkSizes: [bytes.count]), limits: tight)
    return 0
}

/// Every request and the final rejection (if any) when `bytes` arrive in chunks of `chunkSizes`
/// (cycled), calling `next()` after each chunk until the parser wants more.
private func outcomes(
    of bytes: [UInt8], limits: HTTPRequestParser.Limits, chunkSizes: [Int]
) -> [HTTPRequestParser.Outcome] {
    var parser = HTTPRequestParser(limits: limits)
    var results: [HTTPRequestParser.Outcome] = []
    var offset = 0
    var chunk = 0
    while offset < bytes.count {
        let size = max(1, chunkSizes[chunk % chunkSizes.count])
        chunk += 1
        let end = min(bytes.count, offset + size)
        parser.append(bytes[offset..<end])
        offset = end
        var calls = 0
        while true {
            calls += 1
            fuzzCheck(calls <= bytes.count + 2, "next() keeps returning requests without consuming bytes")
            let outcome = parser.next()
            switch outcome {
            case .needMore:
                break
            case .request:
                results.append(outcome)
                continue
            case .rejected:
                results.append(outcome)
                fuzzCheck(parser.next() == outcome, "a rejection must be final")
                return results
            }
            break
        }
    }
    return results
}

private func check(_ outcomes: [HTTPRequestParser.Outcome], limits: HTTPRequestParser.Limits) {
    for outcome in outcomes {
        switch outcome {
        case .needMore:
            fuzzFailure("needMore is never recorded")
        case .request(let request):
            fuzzCheck(
                HTTPRequestParser.supportedMethods.contains(request.method), "unsupported method \(request.method)")
            fuzzCheck(["HTTP/1.0", "HTTP/1.1"].contains(request.version), "version \(request.version)")
            fuzzCheck(request.path.hasPrefix("/") || request.path == "*", "path \(request.path)")
            fuzzCheck(request.body.count <= limits.maxBodyBytes, "body of \(request.body.count) bytes")
            if request.version == "HTTP/1.1" {
                fuzzCheck(request.headers["Host"].count == 1, "HTTP/1.1 request without exactly one Host")
            }
            fuzzCheck(!request.headers.contains(name: "Transfer-Encoding"), "Transfer-Encoding accepted")
        case .rejected(let rejection):
            fuzzCheck((400...599).contains(rejection.status), "rejection status \(rejection.status)")
            fuzzCheck(!rejection.reason.isEmpty, "rejection without a reason")
        }
    }
}
