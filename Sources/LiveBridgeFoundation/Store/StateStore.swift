import FoundationEssentials
import Glibc
import Synchronization

/// A small persisted key/value store in the data directory: tracker state for resume, budget
/// counters, pinned certificate fingerprints, service-side activity ids.
///
/// Keys are file names (`trackers.json`, `pins/bambu-01s00c.sha256`). Writes are atomic (temp
/// file + rename), so a crash leaves either the old or the new value, never half of one. Appends
/// (the tracker journal) are durable when they return; a crash during one can leave only an
/// incomplete last record, which the reader recognises and ignores.
public protocol StateStore: Sendable {
    /// The stored bytes, or nil when the key was never written.
    func read(_ key: String) throws(StateStoreError) -> [UInt8]?
    /// Replaces the value atomically.
    func write(_ key: String, _ bytes: [UInt8]) throws(StateStoreError)
    /// Removes the key (no error when missing).
    func remove(_ key: String) throws(StateStoreError)
    /// Adds `bytes` at the end of the value (creating it), durably: on return they survive a crash.
    func append(_ key: String, _ bytes: [UInt8]) throws(StateStoreError)
}

extension StateStore {
    /// Read, extend, write: correct for any store, at the cost of the whole value per call
    /// (stores for tests; `FileStateStore` and `MemoryStateStore` append in place).
    public func append(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) {
        try write(key, (try read(key) ?? []) + bytes)
    }

    /// Reads and parses a JSON document; nil when the key is missing.
    public func readJSON(_ key: String) throws(StateStoreError) -> JSONValue? {
        guard let bytes = try read(key) else { return nil }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw StateStoreError(
                key: key, message: "stored file is not valid JSON (\(error.message)); it will be rewritten")
        }
    }

    /// Writes a JSON document.
    public func writeJSON(_ key: String, _ value: JSONValue) throws(StateStoreError) {
        try write(key, JSONWriter.bytes(value))
    }
}

/// A store operation failed: the data directory is missing, read-only or full.
public struct StateStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "state \"\(key)\": \(message)" }
}

/// Files in a directory, written atomically.
public struct FileStateStore: StateStore {
    /// The data directory.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    private func path(_ key: String) -> String {
        directory.hasSuffix("/") ? directory + key : directory + "/" + key
    }

    public func read(_ key: String) throws(StateStoreError) -> [UInt8]? {
        let file = path(key)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw StateStoreError(key: key, message: "cannot read \(file) (check its permissions)")
        }
        return Array(data)
    }

    public func write(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) {
        let file = path(key)
        let folder = try folder(of: file, key: key)
        let temporary = folder + "/." + String(file.split(separator: "/").last ?? "") + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateStoreError(key: key, message: "cannot write in \(folder): \(String(cString: strerror(errno)))")
        }
        let failure = Self.writeDurably(descriptor, bytes)
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw StateStoreError(key: key, message: "cannot write \(file): \(String(cString: strerror(failure)))")
        }
        guard rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StateStoreError(key: key, message: "cannot replace \(file): \(reason)")
        }
        // The rename itself is durable once the folder is synced.
        Self.syncDirectory(folder)
    }

    public func append(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) {
        let file = path(key)
        let folder = try folder(of: file, key: key)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateStoreError(key: key, message: "cannot append to \(file): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        let before = fstat(descriptor, &status) == 0 ? status.st_size : -1
        if let failure = Self.writeDurably(descriptor, bytes) {
            // Leave no half record behind for the next append to run into.
            if before >= 0 { _ = ftruncate(descriptor, before) }
            throw StateStoreError(key: key, message: "cannot append to \(file): \(String(cString: strerror(failure)))")
        }
        if before == 0 { Self.syncDirectory(folder) }
    }

    /// The folder `file` goes in, created when missing.
    private func folder(of file: String, key: String) throws(StateStoreError) -> String {
        let folder = Self.parent(of: file)
        if let reason = Self.makeDirectories(folder) {
            throw StateStoreError(key: key, message: "cannot create \(folder): \(reason)")
        }
        return folder
    }

    /// Writes all of `bytes` and syncs them to the disk; the `errno` of a failure, else nil.
    private static func writeDurably(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        return bytes.withUnsafeBytes { buffer -> Int32? in
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return fdatasync(descriptor) == 0 ? nil : errno
        }
    }

    public func remove(_ key: String) throws(StateStoreError) {
        let file = path(key)
        if unlink(file) != 0 && errno != ENOENT {
            throw StateStoreError(key: key, message: "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// `mkdir -p`: nil when `path` is a directory afterwards, else why not. New directories get
    /// `permissions` less the umask (the store's own: owner only).
    public static func makeDirectories(_ path: String, permissions: UInt32 = 0o700) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode_t(permissions)) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
            prefix += "/"
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return String(cString: strerror(errno)) }
        return status.st_mode & S_IFMT == S_IFDIR ? nil : "not a directory"
    }

    /// Makes the folder's entries (a rename, a new file) durable; best effort.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// `/a/b/c` → `/a/b`; `c` → `.`; `/c` → `/`.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A store in memory: tests, `livebridge demo`, and the fallback when the data directory fails.
public final class MemoryStateStore: StateStore {
    private let values = Mutex<[String: [UInt8]]>([:])

    public init() {}

    public func read(_ key: String) throws(StateStoreError) -> [UInt8]? { values.withLock { $0[key] } }

    public func write(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) { values.withLock { $0[key] = bytes } }

    public func remove(_ key: String) throws(StateStoreError) { _ = values.withLock { $0.removeValue(forKey: key) } }

    public func append(_ key: String, _ bytes: [UInt8]) throws(StateStoreError) {
        values.withLock { $0[key, default: []].append(contentsOf: bytes) }
    }

    /// Every key currently stored.
    public var keys: [String] { values.withLock { Array($0.keys).sorted() } }
}
