// Harness `activity-command`: a JSON command turned into an activity update
// (`ActivityCommand.update(from:slug:now:)`), what Home Assistant custom events and
// `POST /api/activities/<slug>` bodies go through. The input is the JSON body.
//
// Invariants: any body gives an update or a typed `ContentValidationError` listing at least one
// problem; an update has a valid slug, progress within 0…1, and content whose JSON form reads back
// to the same content.

import LiveBridgeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let json = try? JSONParser.parse(input.bytes) else { return 0 }
    for pathSlug in [nil, "oven"] as [String?] {
        let update: ActivityUpdate
        do {
            update = try ActivityCommand.update(from: json, slug: pathSlug, now: 1_781_517_600)
        } catch {
            fuzzTrace("slug \(pathSlug ?? "-"): \(error.problems)")
            fuzzCheck(!error.problems.isEmpty, "a validation error without problems")
            continue
        }
        fuzzTrace("slug \(pathSlug ?? "-"): \(update.slug) \(update.phase) progress \(update.progress as Any)")
        fuzzCheck(ContentRules.isValidSlug(update.slug), "invalid slug \(update.slug) accepted")
        if let pathSlug { fuzzCheck(update.slug == pathSlug, "the URL's slug must win") }
        if let progress = update.progress { fuzzCheck((0...1).contains(progress), "progress \(progress)") }
        let document = update.content.json
        do {
            let reread = try GenericContent(json: document)
            fuzzCheck(reread == update.content, "content changed through JSON: \(document)")
        } catch {
            fuzzFailure("content JSON does not read back: \(error) in \(document)")
        }
    }
    return 0
}
