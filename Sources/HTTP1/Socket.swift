#if canImport(Glibc)
import Glibc
#endif

/// An error of one system call, with its errno.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Runs a system call, retrying on EINTR (swift-style §8.4); a -1 result becomes a SocketError.
@discardableResult
func syscall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws(SocketError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SocketError(call: name, errno: code)
    }
}

/// A listening TCP socket on an IPv4 address: close-on-exec, SO_REUSEADDR, port 0 allowed.
final class ListeningSocket: @unchecked Sendable {
    let fd: Int32
    let port: Int

    /// Binds `host` (an IPv4 or IPv6 literal, or a name such as localhost: its first address
    /// from getaddrinfo) and `port` (0: any free port).
    init(host: String, port: Int, backlog: Int32 = 1024) throws(SocketError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw SocketError(call: "getaddrinfo(\(host))", errno: EINVAL)
        }
        defer { freeaddrinfo(found) }
        let fd = try syscall("socket") { socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        do {
            try syscall("bind") { bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            try syscall("listen") { listen(fd, backlog) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.fd = fd
        self.port = Int(Self.numeric(bound, length).port) ?? 0
    }

    func setNonBlocking() {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Accepts a waiting connection of a non-blocking listener; nil when none is waiting.
    func acceptNow() throws(SocketError) -> (fd: Int32, address: String)? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
        }
        if client == -1 {
            // None waiting, the peer gave up, or out of descriptors: try again at the next event.
            if [EAGAIN, EWOULDBLOCK, ECONNABORTED, EINTR, EMFILE, ENFILE, EPROTO].contains(errno) { return nil }
            throw SocketError(call: "accept", errno: errno)
        }
        // Close-on-exec (accept4 is not visible to Swift here; this server never forks meanwhile).
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        let (host, port) = Self.numeric(address, length)
        return (client, address.ss_family == sa_family_t(AF_INET6) ? "[\(host)]:\(port)" : "\(host):\(port)")
    }

    /// The numeric host and port of an address (getnameinfo, NI_NUMERICHOST | NI_NUMERICSERV).
    static func numeric(_ address: sockaddr_storage, _ length: socklen_t) -> (host: String, port: String) {
        var address = address
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        let text = { (c: [CChar]) in String(decoding: c.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (text(host), text(service))
    }

    func close() { _ = Glibc.close(fd) }
}

/// One accepted connection's descriptor with deadline-aware reads and complete writes.
struct ConnectionSocket {
    let fd: Int32

    enum ReadResult { case data(Int), closed, timeout }

    /// Reads into `buffer` (appending), waiting at most until `deadline` (monotonic seconds).
    func read(into buffer: inout [UInt8], deadline: Double, chunk: Int = 16 * 1024) throws(SocketError) -> ReadResult {
        let remaining = deadline - monotonicSeconds()
        guard remaining > 0 else { return .timeout }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = try syscall("poll") { poll(&pfd, 1, Int32(min(remaining, 3600) * 1000) + 1) }
        guard ready > 0 else { return .timeout }
        let start = buffer.count
        buffer.reserveCapacity(start + chunk)
        var temporary = [UInt8](repeating: 0, count: chunk)
        let count = temporary.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, chunk, 0) }
        if count == -1 {
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return .data(0) }
            if code == ECONNRESET { return .closed }
            throw SocketError(call: "recv", errno: code)
        }
        if count == 0 { return .closed }
        buffer.append(contentsOf: temporary[0..<count])
        return .data(count)
    }

    /// One non-blocking read of what has arrived: `.timeout` when nothing has.
    func readAvailable(into buffer: inout [UInt8], chunk: Int) -> ReadResult {
        var code: Int32 = 0
        let received = withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 1) { scratch in
            let n = recv(fd, scratch.baseAddress, chunk, 0)
            code = errno
            if n > 0 { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n])) }
            return n
        }
        if received > 0 { return .data(received) }
        if received == 0 { return .closed }
        if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return .timeout }
        return .closed  // ECONNRESET and other errors end the connection
    }

    /// Writes what the socket takes now without waiting: the count written (less than
    /// `bytes.count` when the send buffer is full), or nil when the connection failed.
    func writeAvailable(_ bytes: [UInt8]) -> Int? {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return offset }
            return nil
        }
        return offset
    }

    /// Writes all of `bytes`; MSG_NOSIGNAL so a closed peer is an error, not SIGPIPE.
    func write(_ bytes: [UInt8], timeoutSeconds: Double) throws(SocketError) {
        var offset = 0
        let deadline = monotonicSeconds() + timeoutSeconds
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent >= 0 {
                offset += sent
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                let remaining = deadline - monotonicSeconds()
                guard remaining > 0 else { throw SocketError(call: "send", errno: ETIMEDOUT) }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, Int32(remaining * 1000) + 1)
                continue
            }
            throw SocketError(call: "send", errno: code)
        }
    }

    /// Makes writes non-blocking, so that a client that stops reading cannot hold a thread
    /// beyond the write timeout.
    func setNonBlockingWrites() {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    func close() { _ = Glibc.close(fd) }
}

/// CLOCK_MONOTONIC in seconds: deadlines never jump with the wall clock.
@inline(__always) public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
