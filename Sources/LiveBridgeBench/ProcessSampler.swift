import Foundation
import Glibc
import LiveBridgeApp

/// Reads a process's CPU time and memory from `/proc/<pid>/stat` and `/proc/<pid>/status`.
struct ProcessSampler: Sendable {
    /// One reading.
    struct Sample: Sendable {
        /// Monotonic time of the reading.
        var at: ContinuousClock.Instant
        /// utime + stime, seconds.
        var cpuSeconds: Double
        /// Resident set size now, KiB (`VmRSS`).
        var rssKiB: Int
        /// Peak resident set size so far, KiB (`VmHWM`).
        var peakKiB: Int
        /// Resident anonymous memory (heap, stacks), KiB (`RssAnon`).
        var anonymousKiB: Int
        /// Resident file-backed memory (mapped executable and libraries), KiB (`RssFile`).
        var fileKiB: Int
    }

    var pid: Int32
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(pid: Int32) {
        self.pid = pid
    }

    /// A reading, or nil when the process is gone.
    func sample() -> Sample? {
        let at = ContinuousClock.now
        guard let stat = Self.read("/proc/\(pid)/stat"), let status = Self.read("/proc/\(pid)/status") else {
            return nil
        }
        // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return Sample(
            at: at, cpuSeconds: (user + system) / ticksPerSecond, rssKiB: Self.kibibytes("VmRSS", in: status) ?? 0,
            peakKiB: Self.kibibytes("VmHWM", in: status) ?? 0, anonymousKiB: Self.kibibytes("RssAnon", in: status) ?? 0,
            fileKiB: Self.kibibytes("RssFile", in: status) ?? 0)
    }

    /// CPU use between two readings, percent of one core.
    static func cpuPercent(from first: Sample, to last: Sample) -> Double {
        let wall = LatencyBench.seconds(last.at - first.at)
        guard wall > 0 else { return 0 }
        return (last.cpuSeconds - first.cpuSeconds) / wall * 100
    }

    /// Resident KiB per mapping name (`/proc/<pid>/smaps`), largest first: each mapped file (the
    /// executable, each shared library, with the pages the process wrote in them), `[heap]`,
    /// `[stack]`, and `[anonymous]` for mappings without a name. Empty when the process is gone.
    func residentFiles() -> [(path: String, kibibytes: Int)] {
        guard let smaps = Self.read("/proc/\(pid)/smaps") else { return [] }
        var totals: [String: Int] = [:]
        var current: String?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A mapping's header: address range, permissions, offset, device, inode, path.
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                current = fields.count >= 6 ? String(fields[5]) : "[anonymous]"
            } else if let path = current, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                totals[path, default: 0] += kib
            }
        }
        return totals.map { (path: $0.key, kibibytes: $0.value) }.sorted { $0.kibibytes > $1.kibibytes }
    }

    /// A whole `/proc` file, read to its end (they report a size of 0, and `smaps` is longer than
    /// one read).
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return StandardStreams.readToEnd(descriptor).map { String(decoding: $0, as: UTF8.self) }
    }

    static func kibibytes(_ field: String, in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }
        }
        return nil
    }
}
