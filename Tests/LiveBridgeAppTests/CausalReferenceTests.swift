import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// The bench's reference for what a sender without the future can do on a print.
@Suite("Bench: causal reference")
struct CausalReferenceTests {
    static let base = ReplayCommand.base

    /// A print: preparation, then whole percent every 2 s from a speed that is `first` × the
    /// slicer's until `switchAt` of the print and `second` × after; the slicer's minutes assume 1×.
    static func print(minutes: Double, first: Double, second: Double, switchAt: Double) -> [ActivityUpdate] {
        let slicer = minutes * 60
        var updates: [ActivityUpdate] = []
        func emit(_ t: Double, _ state: String, _ fraction: Double, left: Double?) {
            updates.append(
                ActivityUpdate(
                    slug: "job", name: "X1", phase: .active, content: GenericContent(state: state),
                    progress: (fraction * 100).rounded(.down) / 100, eta: left.map { .remaining($0) },
                    observedAt: base + t, progressResolution: 0.01, etaResolution: 60))
        }
        var t = 0.0
        while t < 120 {
            emit(t, "Preparing", 0, left: nil)
            t += 2
        }
        var done = 0.0
        while done < slicer {
            emit(t, "Printing", done / slicer, left: ((slicer - done) / 60).rounded(.down) * 60)
            done += 2 * (done / slicer < switchAt ? first : second)
            t += 2
        }
        updates.append(
            ActivityUpdate(
                slug: "job", name: "X1", phase: .ended(.success), content: GenericContent(state: "Complete"),
                progress: 1, observedAt: base + t))
        return updates
    }

    @Test("a print at its slicer's pace needs no correction; one 20 % slow all along, one")
    func holds() {
        let epsilon = EconomySettings().maxDisplayError
        #expect(
            CausalReference.holdsWithOneCorrection(
                Self.print(minutes: 60, first: 1, second: 1, switchAt: 1), epsilon: epsilon))
        #expect(
            CausalReference.holdsWithOneCorrection(
                Self.print(minutes: 60, first: 0.8, second: 0.8, switchAt: 1), epsilon: epsilon))
    }

    @Test("a print whose pace changes after the correction needs a second one")
    func fails() {
        let epsilon = EconomySettings().maxDisplayError
        #expect(
            !CausalReference.holdsWithOneCorrection(
                Self.print(minutes: 60, first: 0.8, second: 1.4, switchAt: 0.5), epsilon: epsilon))
    }
}
