import Foundation
import Synchronization

/// A raw TCP listener on 127.0.0.1 for client tests that need behaviour a correct server
/// never shows: answering without `Content-Length`, accepting and never answering, or not
/// listening at all (a bound, non-listening port refuses connections without a race).
public final class HTTPRawListener: Sendable {
    /// The bound port.
    public let port: UInt16
    private let descriptor: Mutex<Int32>
    private let accepted = Mutex<[Int32]>([])

    /// Binds 127.0.0.1 on a free port; `listening: false` leaves it bound but refusing.
    public init(listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestSocketError("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0, !listening || listen(fd, 16) == 0 else {
            let error = HTTPTestSocketError("bind/listen")
            _ = Foundation.close(fd)
            throw error
        }
        port = UInt16(bigEndian: address.sin_port)
        descriptor = Mutex(fd)
    }

    /// Accepts one connection, reads the request head, writes `reply` (if any) and, when
    /// `closeAfterReply`, closes; otherwise keeps the connection open until `close()`.
    /// Returns the request head it read.
    public func serveOnce(reply: [UInt8]?, closeAfterReply: Bool = true, timeout: Double = 10) async throws -> String {
        let listener = descriptor.withLock { $0 }
        return try await HTTPBlockingWork.run { [self] in
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(timeout * 1000)) == 1 else {
                throw HTTPTestSocketError("no client within \(timeout) s", withErrno: false)
            }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { throw HTTPTestSocketError("accept") }
            accepted.withLock { $0.append(fd) }
            var value = timeval(tv_sec: Int(timeout), tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
            var head: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while head.firstRange(of: [13, 10, 13, 10]) == nil {
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0 else { break }
                head += chunk[0..<count]
            }
            if let reply {
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, reply.count, Int32(MSG_NOSIGNAL)) }
            }
            if closeAfterReply {
                accepted.withLock { list in
                    list.removeAll { $0 == fd }
                    _ = Foundation.close(fd)
                }
            }
            return String(decoding: head, as: UTF8.self)
        }
    }

    /// Closes the listener and every connection still open.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 {
                _ = Foundation.close(fd)
                fd = -1
            }
        }
        accepted.withLock { list in
            for fd in list { _ = Foundation.close(fd) }
            list.removeAll()
        }
    }
}
