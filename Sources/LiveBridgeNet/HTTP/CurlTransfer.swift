import CCurl
import CLiveBridgeShims
import LiveBridgeFoundation
import Synchronization

/// One request's libcurl state: the easy handle, its header list, error buffer and the response
/// being assembled.
///
/// Created by the caller, then touched only by the client's I/O thread from the moment it is
/// queued (the queue's mutex orders the hand-over), except `cancelRequested`, which is atomic.
final class CurlTransfer: @unchecked Sendable {
    typealias Outcome = Result<HTTPResponse, HTTPClientError>

    /// Largest total size of response header lines accepted (guards memory against a hostile
    /// server; libcurl already caps a single line at 100 KiB).
    static let maxHeaderBytes = 256 * 1024

    let request: HTTPRequest
    let cancelRequested = Atomic<Bool>(false)
    var continuation: CheckedContinuation<Outcome, Never>?

    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    private var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var headerBytes = 0
    private var bodyLimitExceeded = false
    private var headerLimitExceeded = false

    init(request: HTTPRequest) {
        self.request = request
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Resumes the waiting caller exactly once.
    func finish(_ outcome: Outcome) {
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    // MARK: - Validation (caller's thread)

    /// A reason the request cannot be sent, found without touching the network.
    static func validate(_ request: HTTPRequest) -> HTTPClientError? {
        let url = request.url
        let lower = url.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return .about(
                request, .invalidURL, "the URL is not an absolute http:// or https:// URL",
                hint: "use a URL like http://host:port/path")
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .about(
                request, .invalidURL, "the URL contains spaces, control or non-ASCII characters",
                hint: "percent-escape the URL before sending it")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenByte) else {
            return .about(request, .invalidRequest, "the method is not a valid token", hint: "use GET, POST, …")
        }
        for field in request.headers.fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                return .about(
                    request, .invalidRequest, "a header name is empty or contains invalid characters",
                    hint: "header names are ASCII tokens like X-Api-Key")
            }
            guard field.value.utf8.allSatisfy({ $0 != 0x0D && $0 != 0x0A && $0 != 0 }) else {
                return .about(
                    request, .invalidRequest, "header \(field.name) contains a line break",
                    hint: "remove CR/LF from header values")
            }
        }
        guard request.timeout > 0, request.connectTimeout > 0, request.maxResponseBytes >= 0 else {
            return .about(
                request, .invalidRequest, "timeouts must be positive and the response cap not negative",
                hint: "fix the request limits")
        }
        return nil
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: - Easy handle (I/O thread)

    /// Creates and configures the easy handle; returns an error when libcurl refuses an option.
    func prepare() -> HTTPClientError? {
        guard let easy = curl_easy_init() else {
            return .about(request, .network, "libcurl could not create a handle", hint: "the process is out of memory")
        }
        self.easy = easy
        var failure = CURLE_OK
        func apply(_ code: CURLcode) {
            if failure == CURLE_OK && code != CURLE_OK { failure = code }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()

        apply(lb_curl_setopt_string(easy, CURLOPT_URL, request.url))
        apply(lb_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        apply(lb_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        apply(lb_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        apply(lb_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)))
        apply(lb_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)))
        apply(lb_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        apply(lb_curl_setopt_string(easy, CURLOPT_USERAGENT, "LiveBridge"))
        apply(lb_curl_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)))

        apply(lb_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        apply(
            lb_curl_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
            })
        apply(lb_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        apply(
            lb_curl_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
            })

        applyTLS(easy, apply)
        applyMethodAndBody(easy, apply)
        applyHeaders(easy, apply)

        guard failure == CURLE_OK else {
            return .about(
                request, .invalidRequest, "libcurl rejected an option", hint: "this is a bug in LiveBridge",
                detail: String(cString: curl_easy_strerror(failure)), curlCode: Int(failure.rawValue))
        }
        return nil
    }

    private func applyTLS(_ easy: UnsafeMutableRawPointer, _ apply: (CURLcode) -> Void) {
        let tls = request.tls
        apply(lb_curl_setopt_long(easy, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2))
        let verify = tls.verifiesChain
        apply(lb_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0))
        apply(lb_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0))
        if let caFile = tls.caFile {
            apply(lb_curl_setopt_string(easy, CURLOPT_CAINFO, caFile))
        }
        if let pin = tls.pinnedPublicKey {
            apply(lb_curl_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pin))
        }
    }

    private func applyMethodAndBody(_ easy: UnsafeMutableRawPointer, _ apply: (CURLcode) -> Void) {
        let method = request.method
        switch method {
        case "GET" where request.body == nil:
            apply(lb_curl_setopt_long(easy, CURLOPT_HTTPGET, 1))
            return
        case "HEAD":
            apply(lb_curl_setopt_long(easy, CURLOPT_NOBODY, 1))
            return
        case "POST":
            break
        default:
            apply(lb_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method))
        }
        let sendsBody = request.body != nil || ["POST", "PUT", "PATCH"].contains(method)
        guard sendsBody else { return }
        let body = request.body ?? []
        // The size first, so COPYPOSTFIELDS copies exactly these bytes (binary safe); an empty
        // body is passed as "" because a NULL would make libcurl read the body from stdin.
        apply(lb_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        if body.isEmpty {
            apply(lb_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""))
        } else {
            body.withUnsafeBytes { bytes in
                apply(
                    lb_curl_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
            }
        }
    }

    private func applyHeaders(_ easy: UnsafeMutableRawPointer, _ apply: (CURLcode) -> Void) {
        var lines: [String] = []
        for field in request.headers.fields {
            // "Name;" is libcurl's way to send a header with an empty value.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        let sendsBody = request.body != nil || ["POST", "PUT", "PATCH"].contains(request.method)
        if sendsBody && !request.headers.contains(name: "Content-Type") {
            lines.append("Content-Type:")  // drop libcurl's default form content type
        }
        if !request.headers.contains(name: "Expect") {
            lines.append("Expect:")  // no 100-continue round trip
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                apply(CURLE_OUT_OF_MEMORY)
                break
            }
            list = appended
        }
        headerList = list
        apply(lb_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list))
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        let value = (seconds * 1000).rounded(.up)
        guard value.isFinite else { return Int(Int32.max) }
        return max(1, min(Int(Int32.max), Int(value)))
    }

    /// Frees the easy handle and the header list; the handle must already be out of the multi.
    func cleanup() {
        if let easy {
            curl_easy_cleanup(easy)
            self.easy = nil
        }
        if let headerList {
            curl_slist_free_all(headerList)
            self.headerList = nil
        }
    }

    // MARK: - Callbacks (I/O thread, inside curl_multi_perform)

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.maxResponseBytes else {
            bodyLimitExceeded = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else {
            headerLimitExceeded = true
            return false
        }
        var line = Array(bytes)
        while let last = line.last, last == 0x0A || last == 0x0D { line.removeLast() }
        guard let first = line.first else { return true }  // blank line: end of a header block
        if line.starts(with: Array("HTTP/".utf8)) {
            // A new status line (after 1xx or on a new response): start over.
            headers = HTTPHeaders()
            let parts = line.split(separator: 0x20, maxSplits: 2)
            if parts.count >= 2, let code = Int(String(decoding: parts[1], as: UTF8.self)) {
                status = code
            }
            return true
        }
        if first == 0x20 || first == 0x09 {
            // Obsolete line folding: append to the previous field's value.
            headers.extendLastValue(with: String(decoding: line, as: UTF8.self).trimmingHTTPWhitespace())
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingHTTPWhitespace()
        headers.add(name: name, value: value)
        return true
    }

    // MARK: - Completion (I/O thread)

    /// The caller's result for libcurl's final `code`; call before `cleanup()`.
    func outcome(for code: CURLcode) -> Outcome {
        guard let easy else {
            return .failure(
                .about(request, .network, "the transfer lost its handle", hint: "this is a bug in LiveBridge"))
        }
        if code == CURLE_OK {
            var responseCode = 0
            if lb_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode) == CURLE_OK, responseCode > 0 {
                status = responseCode
            }
            return .success(HTTPResponse(status: status, headers: headers, body: body))
        }
        return .failure(error(for: code))
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        let detailText = String(cString: errorBuffer)
        let detail = detailText.isEmpty ? String(cString: curl_easy_strerror(code)) : detailText
        let curlCode = Int(code.rawValue)
        func make(_ kind: HTTPClientError.Code, _ what: String, _ hint: String) -> HTTPClientError {
            .about(request, kind, what, hint: hint, detail: detail, curlCode: curlCode)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return make(.dns, "the host name did not resolve", "check the host name and that DNS works on this machine")
        case CURLE_COULDNT_CONNECT:
            return make(
                .connectionRefused, "the connection was refused or the host is unreachable",
                "check that the service is running and listens on this host and port")
        case CURLE_OPERATION_TIMEDOUT:
            return make(
                .timeout, "no complete response within the time limit",
                "check that the service is up and responsive, or raise the timeout")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return make(
                .pinMismatch, "the server's public key does not match the pinned key",
                "if the server's certificate was replaced, update the pinned public key")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return make(
                .tls, "the TLS connection could not be verified or established",
                "trust the server's CA with a CA file, or pin the server's public key")
        case CURLE_WRITE_ERROR where bodyLimitExceeded, CURLE_FILESIZE_EXCEEDED:
            return make(
                .tooLarge, "the response body is larger than \(request.maxResponseBytes) bytes",
                "raise maxResponseBytes if such a response is expected")
        case CURLE_WRITE_ERROR where headerLimitExceeded:
            return make(
                .tooLarge, "the response headers are larger than \(Self.maxHeaderBytes) bytes",
                "check that the URL points at the intended service")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return make(.invalidURL, "the URL is malformed or not http(s)", "use a URL like http://host:port/path")
        default:
            return make(
                .network, "the transfer failed", "check the service and the network; the request may be retried")
        }
    }
}
