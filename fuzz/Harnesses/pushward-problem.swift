// Harness `pushward-problem`: the RFC 9457 problem decoder for PushWard's error answers
// (`PushWardProblem` in LiveBridgeSinks). The input is the response body; the status is drawn
// from its length so every common error status is reached.
//
// Invariants: any body gives a problem (never a crash); a non-JSON body still says what came back;
// numbers become finite durations and times; the summary is built without crashing.

import LiveBridgeSinks

private let statuses = [400, 401, 403, 404, 409, 410, 413, 422, 429, 500, 502, 503]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPushWardProblem(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let status = statuses[input.bytes.count % statuses.count]
    let problem = PushWardProblem(status: status, body: input.bytes, contentType: "application/problem+json")
    fuzzCheck(problem.status == status, "status changed")
    if problem.code == nil && problem.title == nil && problem.errors.isEmpty {
        // Either a JSON object without those members, or a body that is not one; the latter must
        // say what it was.
        if !input.bytes.contains(UInt8(ascii: "{")) {
            fuzzCheck(problem.detail != nil, "a non-JSON body without a detail")
        }
    }
    if let retryAfter = problem.retryAfter { fuzzCheck(retryAfter.isFinite, "retryAfter \(retryAfter)") }
    if let resetAt = problem.resetAt { fuzzCheck(resetAt.isFinite, "resetAt \(resetAt)") }
    _ = problem.summary
    return 0
}
