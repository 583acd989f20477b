import CMosquitto
import Glibc

/// Process-wide setup of libmosquitto, done once before the first session connects.
///
/// `mosquitto_lib_init` must run once per process; `SIGPIPE` must be ignored because OpenSSL
/// writes to sockets with plain `write`, so a broker closing the connection would otherwise kill
/// the process. `MQTTSession.start()` calls this itself.
public enum MQTTLibrary {
    private static let initialized: Bool = {
        _ = signal(SIGPIPE, SIG_IGN)
        return mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue)
    }()

    /// Initialises libmosquitto and ignores `SIGPIPE`; idempotent and thread-safe.
    ///
    /// Returns false when `mosquitto_lib_init` failed.
    @discardableResult
    public static func initialize() -> Bool {
        initialized
    }

    /// The linked libmosquitto version (`2.0.11`).
    public static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
