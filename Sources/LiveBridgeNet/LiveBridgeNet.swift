import CCurl
import Glibc

/// Process-wide setup of the C libraries behind LiveBridgeNet's HTTP client and server.
///
/// libcurl must be initialised once before any thread uses it, and a threaded program that
/// sets `CURLOPT_NOSIGNAL` and writes to sockets must ignore `SIGPIPE` or a peer closing early
/// kills the process. `HTTPClient` and `HTTPServer` call this themselves; the program may call
/// it first thing in `main` too.
public enum NetworkLibraries {
    private static let initialized: Bool = {
        _ = signal(SIGPIPE, SIG_IGN)
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Initialises libcurl and ignores `SIGPIPE`; safe to call any number of times from any thread.
    ///
    /// Returns false when `curl_global_init` failed (out of memory at start-up).
    @discardableResult
    public static func initialize() -> Bool {
        initialized
    }
}
