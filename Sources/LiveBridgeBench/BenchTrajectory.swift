import Foundation
import LiveBridgeApp
import LiveBridgeCore
import LiveBridgeKit

/// The kind of home-lab job a trajectory is; the month simulation draws jobs by kind.
typealias BenchJobKind = TrajectoryFamily.Kind

/// A failure that stops a benchmark section: what happened and what to do.
struct BenchError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}

/// Where a benchmark job's observations come from.
///
/// Every source yields the `[ActivityUpdate]` the tracker would receive, `observedAt` counted
/// from `base`: a recording under `bench/recordings/` through a `ReplayFormat` (an adapter's own
/// mapping, or the `updates` format), or a trajectory generated in code.
protocol TrajectorySource: Sendable {
    /// Where the observations come from, for the report ("recorded", "synthetic", "adapter").
    var origin: String { get }
    /// The observations, in time order, with `observedAt` set.
    func updates(base: Double, directory: String) throws(BenchError) -> [ActivityUpdate]
}

/// A raw recording run through an adapter's own replay mapping (its `ReplayFormat.parse`), so the
/// bench measures the adapter's mapping and the tracker together.
struct AdapterRecording: TrajectorySource {
    var file: String
    var format: ReplayFormat
    var origin: String { format.name == ReplayFormats.updates.name ? "recorded" : "adapter:\(format.name)" }

    init(_ file: String, format: ReplayFormat) {
        self.file = file
        self.format = format
    }

    func updates(base: Double, directory: String) throws(BenchError) -> [ActivityUpdate] {
        let path = directory.hasSuffix("/") ? directory + file : directory + "/" + file
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError(
                "cannot read recording \(path); run the bench from the repository root or pass --recordings DIR")
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        do {
            let updates = try format.parse(lines, base)
            guard !updates.isEmpty else { throw BenchError("\(path): no observations") }
            return updates
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("\(path): \(error)")
        }
    }
}

/// Observations generated in code from a fixed seed (`SyntheticJobs`).
struct SyntheticTrajectory: TrajectorySource {
    var generate: @Sendable (_ base: Double) -> [ActivityUpdate]
    var origin: String { "synthetic" }

    init(_ generate: @escaping @Sendable (_ base: Double) -> [ActivityUpdate]) {
        self.generate = generate
    }

    func updates(base: Double, directory: String) throws(BenchError) -> [ActivityUpdate] {
        generate(base)
    }
}

/// One job of the benchmark: a name, its kind and where its observations come from.
struct BenchTrajectory: Sendable {
    var name: String
    var kind: BenchJobKind
    var summary: String
    var source: any TrajectorySource
    /// Drawn for the month simulation (a typical month's jobs); false for the stress variants.
    var typical: Bool

    init(
        _ name: String, _ kind: BenchJobKind, _ summary: String, _ source: any TrajectorySource, typical: Bool = true
    ) {
        self.name = name
        self.kind = kind
        self.summary = summary
        self.source = source
        self.typical = typical
    }

    /// Loads the observations with the slug set to `slug` (default: the trajectory's name).
    func load(directory: String, base: Double = ReplayCommand.base) throws(BenchError) -> LoadedTrajectory {
        let updates = try source.updates(base: base, directory: directory)
        return LoadedTrajectory(
            name: name, kind: kind, summary: summary, origin: source.origin,
            updates: updates.map { $0.rebased(by: 0, slug: name) }, typical: typical)
    }
}

/// A trajectory's observations in memory.
struct LoadedTrajectory: Sendable {
    var name: String
    var kind: BenchJobKind
    var summary: String
    var origin: String
    var updates: [ActivityUpdate]
    var typical = true

    /// First and last observation times.
    var start: Double { updates.first?.observedAt ?? 0 }
    var end: Double { updates.last?.observedAt ?? 0 }
    var duration: Double { end - start }

    /// The same job starting at `start` under another slug (the month simulation's copies).
    func placed(at newStart: Double, slug: String) -> [ActivityUpdate] {
        updates.map { $0.rebased(by: newStart - start, slug: slug) }
    }
}

extension ActivityUpdate {
    /// The update moved in time by `offset` seconds (a fixed finish time moves with it).
    func rebased(by offset: Double, slug newSlug: String) -> ActivityUpdate {
        var copy = self
        copy.slug = newSlug
        copy.observedAt = observedAt.map { $0 + offset }
        if case .finishesAt(let date) = eta { copy.eta = .finishesAt(date + offset) }
        return copy
    }
}
