import CCurl
import CLiveBridgeShims
import Glibc
import LiveBridgeFoundation

/// A WebSocket link over libcurl `CONNECT_ONLY`: libcurl does DNS, TCP and TLS (with pinning);
/// the opening handshake and every frame are ours (libcurl 7.88 has no WebSocket support).
///
/// Owned by one connection thread. The libcurl handle is created in `open` and freed in
/// `close`; nothing is torn down in `deinit`.
final class CurlWebSocketTransport: WebSocketTransport {
    private let endpoint: WebSocketEndpoint
    private let configuration: WebSocketConfiguration
    private let logger: Logger

    private var handle: UnsafeMutableRawPointer?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var decoder: WebSocketFrameDecoder
    private var outbound: [[UInt8]] = []
    private var outboundHead = 0
    private var outboundOffset = 0
    private var enqueuedFrameCount = 0
    private(set) var completedFrameCount = 0
    private(set) var pollDescriptor: Int32 = -1
    private var isClosed = false

    /// One `recv` pass reads at most this much before letting the loop do other work.
    private static let receiveBudget = 1 << 20

    init(endpoint: WebSocketEndpoint, configuration: WebSocketConfiguration, logger: Logger) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.logger = logger
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        decoder = WebSocketFrameDecoder(role: .client, maximumPayloadCount: configuration.maximumMessageSize)
    }

    var hasPendingOutput: Bool { outboundHead < outbound.count }

    // MARK: - Opening

    func open(interrupt: Int32, shouldAbort: () -> Bool) throws {
        CurlWebSocketTransport.initializeLibraries()
        guard let handle = curl_easy_init() else {
            throw failure(.connectionFailed, "libcurl could not create a handle (out of memory?)")
        }
        self.handle = handle
        try configure(handle)
        let connectStarted = WebSocketPolling.monotonicNow()
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else { throw connectError(code, handle: handle) }
        logger.debug(
            "websocket transport connected",
            [
                "endpoint": endpoint.description,
                "ms": String(Int((WebSocketPolling.monotonicNow() - connectStarted) * 1000)),
            ])
        if shouldAbort() { throw CancellationError() }
        var socket: curl_socket_t = -1
        guard lb_curl_getinfo_socket(handle, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else {
            throw failure(.connectionFailed, "libcurl connected but reported no socket")
        }
        pollDescriptor = socket
        try performHandshake(handle, interrupt: interrupt, shouldAbort: shouldAbort)
    }

    private func configure(_ handle: UnsafeMutableRawPointer) throws(WebSocketError) {
        var codes: [CURLcode] = [
            lb_curl_setopt_string(handle, CURLOPT_URL, endpoint.curlURL),
            lb_curl_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1),
            lb_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            lb_curl_setopt_long(
                handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(configuration.connectTimeout.webSocketSeconds * 1000))),
            // Never negotiate h2 over TLS: the upgrade is HTTP/1.1.
            lb_curl_setopt_long(handle, CURLOPT_SSL_ENABLE_ALPN, 0),
            // A proxy from the environment would receive our raw upgrade bytes: never use one.
            lb_curl_setopt_string(handle, CURLOPT_PROXY, ""),
            lb_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1),
            lb_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer),
        ]
        if let pin = configuration.pinnedPublicKey {
            // With a pin the pin is the trust decision: a self-signed certificate is fine.
            codes.append(lb_curl_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, pin))
            codes.append(lb_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0))
            codes.append(lb_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
        }
        if let caFile = configuration.caFile {
            codes.append(lb_curl_setopt_string(handle, CURLOPT_CAINFO, caFile))
        }
        if let bad = codes.first(where: { $0 != CURLE_OK }) {
            throw failure(.invalidConfiguration, "libcurl refused an option: \(Self.describe(bad))")
        }
    }

    private func connectError(_ code: CURLcode, handle: UnsafeMutableRawPointer) -> WebSocketError {
        let detail = curlDetail(code)
        let hostPort = "\(endpoint.host) port \(endpoint.port)"
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return failure(
                .dnsFailure, "could not resolve host \"\(endpoint.host)\" (\(detail)); check the host name and DNS")
        case CURLE_COULDNT_CONNECT:
            var osErrno = 0
            _ = lb_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osErrno)
            if osErrno == Int(ECONNREFUSED) {
                return failure(
                    .connectionRefused,
                    "connection refused by \(hostPort); check that the server is running and the port is right")
            }
            return failure(.connectionFailed, "could not connect to \(hostPort) (\(detail)); check the network")
        case CURLE_OPERATION_TIMEDOUT:
            let seconds = Self.format(configuration.connectTimeout.webSocketSeconds)
            let tls = endpoint.isSecure ? " and TLS" : ""
            return failure(
                .timeout,
                "TCP\(tls) setup with \(hostPort) did not finish within \(seconds) s; check that the host is reachable"
                    + (endpoint.isSecure ? " and that the port serves TLS" : ""))
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return failure(
                .pinMismatch,
                "the server's public key does not match the configured pin; if the server's certificate was "
                    + "replaced on purpose, update the pin (sha256//…), otherwise this may not be your server")
        case CURLE_PEER_FAILED_VERIFICATION:
            return failure(
                .tlsFailure,
                "the server's TLS certificate is not trusted (\(detail)); configure a CA file or pin its public key")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED:
            return failure(
                .tlsFailure,
                "TLS with \(hostPort) failed (\(detail)); check that the port serves TLS (wss://) and the CA file")
        default:
            return failure(.connectionFailed, "could not connect to \(hostPort) (\(detail))")
        }
    }

    private func performHandshake(
        _ handle: UnsafeMutableRawPointer, interrupt: Int32, shouldAbort: () -> Bool
    ) throws {
        let deadline = WebSocketPolling.monotonicNow() + configuration.handshakeTimeout.webSocketSeconds
        let key = WebSocketHandshake.makeKey()
        let request = Array(
            WebSocketHandshake.requestText(
                hostHeader: endpoint.hostHeader, target: endpoint.target, key: key, headers: configuration.headers
            ).utf8)
        var sent = 0
        while sent < request.count {
            var count = 0
            let code = request.withUnsafeBytes { bytes in
                curl_easy_send(handle, bytes.baseAddress! + sent, bytes.count - sent, &count)
            }
            if code == CURLE_AGAIN || (code == CURLE_OK && count == 0) {
                try waitDuringHandshake(Int16(POLLOUT), interrupt, deadline, shouldAbort)
                continue
            }
            guard code == CURLE_OK else {
                throw failure(.connectionLost, "sending the WebSocket upgrade failed (\(curlDetail(code)))")
            }
            sent += count
        }
        var response: [UInt8] = []
        while true {
            var count = 0
            let code = curl_easy_recv(handle, readBuffer.baseAddress, readBuffer.count, &count)
            if code == CURLE_AGAIN {
                try waitDuringHandshake(Int16(POLLIN), interrupt, deadline, shouldAbort)
                continue
            }
            guard code == CURLE_OK else {
                if response.isEmpty {
                    throw failure(
                        .handshakeFailed,
                        "the server dropped the connection instead of answering the WebSocket upgrade "
                            + "(\(curlDetail(code))); check the port and ws:// versus wss://")
                }
                throw failure(.connectionLost, "reading the WebSocket upgrade answer failed (\(curlDetail(code)))")
            }
            guard count > 0 else {
                throw failure(
                    .handshakeFailed,
                    response.isEmpty
                        ? "the server closed the connection without answering the WebSocket upgrade; "
                            + "check the port and ws:// versus wss://"
                        : "the server closed the connection in the middle of its upgrade answer")
            }
            response.append(contentsOf: UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            if !endpoint.isSecure, let first = response.first, first == 0x15 || first == 0x16 {
                throw failure(
                    .handshakeFailed, "the server answered with TLS; use wss:// instead of ws:// for this port")
            }
            let parsed: (head: WebSocketHTTPHead, count: Int)?
            do {
                parsed = try WebSocketHTTPHead.parse(response)
            } catch {
                throw handshakeError(error)
            }
            guard let (head, headCount) = parsed else { continue }
            let rest = Array(response[headCount...])
            do {
                try WebSocketHandshake.validateResponse(head, bodyPrefix: rest, key: key)
            } catch {
                throw handshakeError(error)
            }
            // Bytes after the blank line are already frames.
            decoder.append(contentsOf: rest)
            return
        }
    }

    private func waitDuringHandshake(
        _ events: Int16, _ interrupt: Int32, _ deadline: Double, _ shouldAbort: () -> Bool
    ) throws {
        switch WebSocketPolling.wait(for: pollDescriptor, events: events, interrupt: interrupt, deadline: deadline) {
        case .ready:
            return
        case .interrupted:
            if shouldAbort() { throw CancellationError() }
            WebSocketPolling.drain(interrupt)
        case .timedOut:
            let seconds = Self.format(configuration.handshakeTimeout.webSocketSeconds)
            throw failure(
                .timeout,
                "the server accepted the connection but did not complete the WebSocket upgrade within \(seconds) s; "
                    + "check that this port serves WebSocket (and ws:// versus wss://)")
        }
    }

    private func handshakeError(_ error: WebSocketHandshakeError) -> WebSocketError {
        let kind: WebSocketError.Kind =
            switch error.reason {
            case .rejected: .handshakeRejected
            case .notAWebSocketEndpoint: .notAWebSocketEndpoint
            default: .handshakeFailed
            }
        return WebSocketError(kind, endpoint: endpoint.description, detail: error.detail, httpStatus: error.statusCode)
    }

    // MARK: - Frames

    func receive(_ onFrame: (WebSocketFrame) -> Bool) throws(WebSocketTransportFailure) -> WebSocketReceiveStatus {
        guard let handle, !isClosed else { return .endOfStream }
        var budget = Self.receiveBudget
        while true {
            do {
                while let frame = try decoder.nextFrame() {
                    if !onFrame(frame) { return .stopped }
                }
            } catch {
                throw .protocolViolation(error)
            }
            guard budget > 0 else { return .paused }
            var count = 0
            errorBuffer[0] = 0
            let code = curl_easy_recv(handle, readBuffer.baseAddress, readBuffer.count, &count)
            if code == CURLE_AGAIN { return .drained }
            guard code == CURLE_OK else { throw .linkFailed(curlDetail(code)) }
            guard count > 0 else { return .endOfStream }
            decoder.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            budget -= count
        }
    }

    @discardableResult
    func enqueue(_ frame: WebSocketFrame) -> Int {
        outbound.append(WebSocketFrameEncoder.encodeClientFrame(frame))
        enqueuedFrameCount += 1
        return enqueuedFrameCount
    }

    func flush() throws(WebSocketTransportFailure) {
        guard let handle, !isClosed else { return }
        while outboundHead < outbound.count {
            // After CURLE_AGAIN the same bytes are offered again at the same address (the
            // array is not touched until written), as OpenSSL requires for a retried write.
            let chunk = outbound[outboundHead]
            var count = 0
            let offset = outboundOffset
            errorBuffer[0] = 0
            let code = chunk.withUnsafeBytes { bytes in
                curl_easy_send(handle, bytes.baseAddress! + offset, bytes.count - offset, &count)
            }
            if code == CURLE_AGAIN || (code == CURLE_OK && count == 0) { return }
            guard code == CURLE_OK else { throw .linkFailed(curlDetail(code)) }
            outboundOffset += count
            if outboundOffset == chunk.count {
                outbound[outboundHead] = []
                outboundHead += 1
                outboundOffset = 0
                completedFrameCount += 1
            }
        }
        outbound.removeAll(keepingCapacity: true)
        outboundHead = 0
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let handle { curl_easy_cleanup(handle) }
        handle = nil
        pollDescriptor = -1
        outbound = []
        errorBuffer.deallocate()
        readBuffer.deallocate()
    }

    // MARK: - Helpers

    private func failure(_ kind: WebSocketError.Kind, _ detail: String) -> WebSocketError {
        WebSocketError(kind, endpoint: endpoint.description, detail: detail)
    }

    /// libcurl's error buffer when it has text, else the generic text for `code`.
    private func curlDetail(_ code: CURLcode) -> String {
        let buffered = String(cString: errorBuffer)
        return buffered.isEmpty ? Self.describe(code) : buffered
    }

    private static func describe(_ code: CURLcode) -> String {
        "\(String(cString: curl_easy_strerror(code))) (curl \(code.rawValue))"
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// curl_global_init and SIGPIPE ignoring, once per process (this area's own guard).
    static func initializeLibraries() { _ = librariesInitialized }

    private static let librariesInitialized: Bool = {
        // libcurl with NOSIGNAL no longer shields writes to a closed socket from SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()
}
