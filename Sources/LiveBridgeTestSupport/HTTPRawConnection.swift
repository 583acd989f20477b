import Foundation
import Synchronization

/// A raw TCP client for server tests: sends exactly the bytes a test wants (malformed, partial,
/// stalled) and reads what comes back. Every call is bounded by a socket timeout.
public final class HTTPRawConnection: Sendable {
    private let descriptor: Mutex<Int32>

    private init(fd: Int32) {
        descriptor = Mutex(fd)
    }

    /// Connects to `127.0.0.1:port`; `timeout` bounds every later send and receive.
    public static func connect(port: UInt16, timeout: Double = 5) async throws -> HTTPRawConnection {
        try await HTTPBlockingWork.run {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw HTTPTestSocketError("socket") }
            var value = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                let error = HTTPTestSocketError("connect to 127.0.0.1:\(port)")
                _ = Foundation.close(fd)
                throw error
            }
            return HTTPRawConnection(fd: fd)
        }
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Sends every byte.
    public func send(_ bytes: [UInt8]) async throws {
        let fd = descriptor.withLock { $0 }
        try await HTTPBlockingWork.run {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes {
                    Foundation.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { throw HTTPTestSocketError("send") }
                offset += sent
            }
        }
    }

    /// Reads until the server closes the connection (or the socket timeout passes, which
    /// throws). A reset after some bytes arrived returns those bytes.
    public func readToEnd() async throws -> [UInt8] {
        let fd = descriptor.withLock { $0 }
        return try await HTTPBlockingWork.run {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = recv(fd, &chunk, chunk.count, 0)
                if count > 0 {
                    received += chunk[0..<count]
                } else if count == 0 {
                    return received
                } else if errno == EINTR {
                    continue
                } else if errno == ECONNRESET && !received.isEmpty {
                    return received
                } else {
                    throw HTTPTestSocketError("recv after \(received.count) bytes")
                }
            }
        }
    }

    /// Reads to the end and parses the response.
    public func readResponse() async throws -> HTTPRawResponse {
        try HTTPRawResponse(bytes: try await readToEnd())
    }

    /// Closes our sending side (the server sees end of input).
    public func shutdownWrite() {
        descriptor.withLock { _ = shutdown($0, Int32(SHUT_WR)) }
    }

    /// Closes the socket.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 {
                _ = Foundation.close(fd)
                fd = -1
            }
        }
    }
}

/// A response as read off a raw socket.
public struct HTTPRawResponse: Sendable {
    /// The status code from the status line.
    public var status: Int
    /// The status line, e.g. `HTTP/1.1 408 Request Timeout`.
    public var statusLine: String
    /// Header lines as `(name, value)`.
    public var headers: [(String, String)]
    /// Bytes after the blank line.
    public var body: [UInt8]

    /// Parses `bytes`; throws when they are not an HTTP response.
    public init(bytes: [UInt8]) throws {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else {
            throw HTTPTestSocketError("no complete response in \(bytes.count) bytes", withErrno: false)
        }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        statusLine = lines[0]
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw HTTPTestSocketError("bad status line \(statusLine)", withErrno: false)
        }
        self.status = status
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = Array(bytes[end.upperBound...])
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
