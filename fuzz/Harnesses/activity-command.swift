// Harness `activity-command`: a JSON command turned into an activity update
// (`ActivityCommand.update(from:slug:now:)`), what Home Assistant custom events and
// `POST /api/activities/<slug>` bodies go through, and then on to the wire the way the engine
// takes it: an `ActivityTracker` per display model, then the PushWard requests and the
// state-object state for every frame. The input is the JSON body.
//
// Invariants: any body gives an update or a typed `ContentValidationError` listing at least one
// problem; an update has a valid slug, progress within 0…1, and content whose JSON form reads back
// to the same content; the tracker and the sinks' renderers turn whatever was accepted into
// frames and requests without trapping.

import LiveBridgeCore
import LiveBridgeSinks

private let start: Double = 1_781_517_600

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let json = try? JSONParser.parse(input.bytes) else { return 0 }
    for pathSlug in [nil, "oven"] as [String?] {
        let update: ActivityUpdate
        do {
            update = try ActivityCommand.update(from: json, slug: pathSlug, now: start)
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
        if pathSlug == nil { deliver(update) }
    }
    return 0
}

/// Runs the update through a tracker per display model (start, a later repeat or the end,
/// ticks through the two-phase end) and renders every frame for both push services.
private func deliver(_ update: ActivityUpdate) {
    for model in [DisplayModel.interpolating, .static] {
        var tracker = ActivityTracker(slug: update.slug, name: update.name, model: model, settings: EconomySettings())
        // An end only means something to a running activity: start it first.
        var updates = [update, update]
        if update.phase.isEnded { updates[0].phase = .active }
        var frames: [ActivityFrame] = []
        for (step, var next) in updates.enumerated() {
            let time = start + 90 * Double(step)
            next.observedAt = time
            frames += tracker.handle(next, at: time)
        }
        for offset in [600.0, 7200, 86_400] {
            frames += tracker.tick(at: start + offset)
        }
        for frame in frames {
            tracker.acknowledge(frame, appliedAt: frame.time)
            fuzzCheck(frame.slug == update.slug, "frame for \(frame.slug)")
            _ = PushWardRequests.requests(for: frame)
            _ = StateObjectMapping.state(
                for: frame, at: frame.time, outcome: frame.outcome, options: StateObjectRenderOptions())
        }
        fuzzTrace("\(model): \(frames.map { "\($0.kind) \($0.patch)" })")
    }
}
