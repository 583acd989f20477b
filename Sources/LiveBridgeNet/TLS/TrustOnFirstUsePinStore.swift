public import LiveBridgeFoundation
import Synchronization

/// Where a trust-on-first-use certificate pin lives: one small file per device in the state store.
///
/// The first successful connection records the peer's fingerprint; later connections must present
/// the same certificate. The file holds the fingerprint as `AB:CD:…` text so a user can read it,
/// compare it with `openssl` output, or delete it to accept a new certificate (a firmware update
/// can regenerate a printer's certificate). When the store cannot be written the pin is kept in
/// memory, so it still protects this process.
public final class TrustOnFirstUsePinStore: Sendable {
    /// The state store holding the pin.
    public let store: any StateStore
    /// The state-store key (`pins/<identity>.sha256`).
    public let key: String
    private let remembered = Mutex<CertificateFingerprint?>(nil)

    /// A pin slot for one device; `identity` is sanitised into a file name (e.g. the printer serial).
    public init(store: any StateStore, identity: String) {
        self.store = store
        self.key = Self.key(forIdentity: identity)
    }

    /// The state-store key used for `identity`: `pins/<identity with unsafe characters as ->.sha256`.
    public static func key(forIdentity identity: String) -> String {
        var name = ""
        for scalar in identity.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": name.unicodeScalars.append(scalar)
            default: name += "-"
            }
        }
        if name.isEmpty || name.allSatisfy({ $0 == "." }) { name = "unnamed" }
        return "pins/\(name).sha256"
    }

    /// Where the pin is, for messages that tell the user what to delete: the file path for a
    /// `FileStateStore`, otherwise the state key.
    public var location: String {
        if let fileStore = store as? FileStateStore {
            return fileStore.directory.hasSuffix("/") ? fileStore.directory + key : fileStore.directory + "/" + key
        }
        return "state key \(key)"
    }

    /// The pinned fingerprint, or nil when none was recorded yet.
    ///
    /// Throws when the stored value is unreadable or is not a fingerprint: a damaged pin must
    /// refuse the connection, never silently trust whatever certificate comes next.
    public func pinned() throws(TrustOnFirstUsePinError) -> CertificateFingerprint? {
        let bytes: [UInt8]?
        do {
            bytes = try store.read(key)
        } catch {
            if let fallback = remembered.withLock({ $0 }) { return fallback }
            throw TrustOnFirstUsePinError(
                message: "cannot read the pinned certificate fingerprint at \(location): \(error.message)")
        }
        guard let bytes else { return remembered.withLock { $0 } }
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            return try CertificateFingerprint(hex: text)
        } catch {
            throw TrustOnFirstUsePinError(
                message: "\(location) does not hold a SHA-256 fingerprint (\(error.message)); "
                    + "delete it to trust the certificate presented at the next connection")
        }
    }

    /// Records `fingerprint` as the pin (file text `AB:CD:…\n`); remembers it in memory as well.
    public func record(_ fingerprint: CertificateFingerprint) throws(StateStoreError) {
        remembered.withLock { $0 = fingerprint }
        try store.write(key, Array((fingerprint.colonHex + "\n").utf8))
    }

    /// Forgets the pin (file and memory), so the next connection trusts on first use again.
    public func forget() throws(StateStoreError) {
        remembered.withLock { $0 = nil }
        try store.remove(key)
    }
}
