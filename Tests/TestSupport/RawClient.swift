import Dispatch
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP client for tests: sends exact bytes and reads what comes back, so that malformed
/// and hostile requests can be written byte for byte.
public final class RawClient {
    public let fd: Int32

    /// `receiveBuffer`: SO_RCVBUF before connecting (a small one makes a client that does not
    /// read fill up quickly).
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    @discardableResult public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends every byte (blocking); false when the connection refused them (a reset, a closed peer).
    @discardableResult public func send(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            rest = rest.dropFirst(n)
        }
        return true
    }

    public enum Received { case bytes([UInt8]), closed, nothingYet }

    /// Waits up to 50 ms for bytes: what arrived, the peer's close, or nothing yet.
    public func receive() -> Received {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 50) > 0 else { return .nothingYet }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, 0) }
        return n <= 0 ? .closed : .bytes(Array(chunk[0..<n]))
    }

    /// Reads until the peer closes or `seconds` pass.
    public func readAll(seconds: Double = 5) -> String {
        var buffer: [UInt8] = []
        let deadline = Self.monotonicSeconds() + seconds
        loop: while Self.monotonicSeconds() < deadline {
            switch receive() {
            case .bytes(let b): buffer += b
            case .closed: break loop
            case .nothingYet: continue
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Reads exactly `count` complete responses (each with Content-Length), or what arrived in time.
    public func readResponses(_ count: Int, seconds: Double = 5) -> [String] {
        var buffer: [UInt8] = []
        var responses: [String] = []
        let deadline = Self.monotonicSeconds() + seconds
        loop: while responses.count < count && Self.monotonicSeconds() < deadline {
            if let (response, used) = Self.split(buffer) {
                responses.append(response)
                buffer.removeFirst(used)
                continue
            }
            switch receive() {
            case .bytes(let b): buffer += b
            case .closed: break loop
            case .nothingYet: continue
            }
        }
        if responses.count < count, let (response, _) = Self.split(buffer) { responses.append(response) }
        return responses
    }

    public static func split(_ buffer: [UInt8]) -> (String, Int)? {
        let text = String(decoding: buffer, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<headEnd.lowerBound]
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        if head.hasPrefix("HTTP/1.1 100") { length = 0 }
        let headBytes = text[..<headEnd.upperBound].utf8.count
        guard buffer.count >= headBytes + length else { return nil }
        return (String(decoding: buffer[0..<(headBytes + length)], as: UTF8.self), headBytes + length)
    }

    /// True when the server closed the connection (a read returns end of file in time).
    public func isClosedByPeer(seconds: Double = 3) -> Bool {
        let deadline = Self.monotonicSeconds() + seconds
        while Self.monotonicSeconds() < deadline {
            if case .closed = receive() { return true }
        }
        return false
    }

    static func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
