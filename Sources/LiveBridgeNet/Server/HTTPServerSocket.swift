import CLiveBridgeShims
import Glibc

/// Blocking POSIX socket helpers used by `HTTPServer`'s own threads (never the task pool).
enum HTTPServerSocket {
    /// A listening socket bound to `host:port` and the port actually bound.
    static func listen(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (Int32, UInt16) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if literal.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, literal, &address.sin6_addr) == 1 else { throw invalidHost(host) }
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else { throw invalidHost(host) }
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("create a socket", host, port, errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                throw HTTPServerError(
                    .addressInUse,
                    message: "could not listen on \(host):\(port): the address is already in use — stop the "
                        + "other process or choose another port")
            }
            throw failure("bind", host, port, code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw failure("listen", host, port, code)
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw failure("read the bound port of", host, port, code)
        }
        return (fd, describe(actual).port)
    }

    private static func invalidHost(_ host: String) -> HTTPServerError {
        HTTPServerError(
            .invalidAddress,
            message: "listen host \"\(host)\" is not an IP address — use 127.0.0.1, 0.0.0.0, ::1 or localhost")
    }

    private static func failure(_ action: String, _ host: String, _ port: UInt16, _ code: Int32) -> HTTPServerError {
        HTTPServerError(
            .listenFailed,
            message: "could not \(action) socket for \(host):\(port): \(String(cString: strerror(code))) — check "
                + "the address and the process's permissions")
    }

    /// The address text and port of a socket address.
    static func describe(_ storage: sockaddr_storage) -> (address: String, port: UInt16) {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                    return (cText(text), UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return ("[\(cText(text))]", UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
        default:
            return ("unknown", 0)
        }
    }

    private static func cText(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sets `SO_RCVTIMEO` and `SO_SNDTIMEO`.
    static func setTimeouts(_ fd: Int32, seconds: Double) {
        let clamped = max(0.001, seconds)
        var value = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - clamped.rounded(.down)) * 1_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    /// Writes every byte (`MSG_NOSIGNAL`: a vanished peer is an error, not a signal); false on
    /// failure or send timeout.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent > 0 {
                    offset += sent
                } else if sent < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// Whether `fd` became readable within `timeout`.
    enum Readiness { case readable, timedOut, failed }

    /// Waits until `fd` is readable (or hung up) or `timeout` passes.
    static func waitReadable(_ fd: Int32, timeout: Duration) -> Readiness {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = max(
            1,
            Int32(
                clamping: timeout.components.seconds * 1000
                    + timeout.components.attoseconds / 1_000_000_000_000_000))
        let result = poll(&entry, 1, milliseconds)
        if result > 0 { return .readable }
        if result == 0 { return .timedOut }
        return errno == EINTR ? .timedOut : .failed
    }

    /// Reads and discards whatever has already arrived, without blocking.
    static func discardPending(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<64 {
            let count = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count <= 0 { return }
        }
    }

    /// Half-closes the sending side and reads until the peer closes or `limit` passes, so
    /// unread request bytes do not turn the close into a reset that destroys our answer.
    static func linger(_ fd: Int32, limit: Duration) {
        _ = shutdown(fd, Int32(SHUT_WR))
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        while drained < 4 << 20 {
            let remaining = deadline - clock.now
            guard remaining > .zero, waitReadable(fd, timeout: remaining) == .readable else { return }
            let count = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            drained += count
        }
    }

    /// POLLRDHUP: the peer closed its writing side.
    static let peerHangUpEvents = Int16(lb_http_pollrdhup()) | Int16(POLLHUP) | Int16(POLLERR)
}
