import CLinuxIO
#if canImport(Glibc)
    import Glibc
#endif

/// A listening TCP socket: close-on-exec, non-blocking, SO_REUSEADDR, port 0 allowed.
final class ListeningSocket: Sendable {
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
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = try SystemCall.run("socket") { socket(info.pointee.ai_family, type, 0) }
        do {
            var one: Int32 = 1
            try SystemCall.run("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            try SystemCall.run("bind") { bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            try SystemCall.run("listen") { listen(fd, backlog) }
        } catch {
            SystemCall.close(fd)
            throw error
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try? SystemCall.run("getsockname") {
            withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        }
        self.fd = fd
        self.port = Int(Self.numeric(bound, length).port) ?? 0
    }

    /// Accepts a waiting connection (close-on-exec, non-blocking); nil when none is waiting.
    func acceptNow() throws(SocketError) -> (fd: Int32, address: String)? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let client: Int32?
        do {
            client = try SystemCall.unlessWouldBlock("accept4") {
                withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { clinuxio_accept4(fd, $0, &length, flags) }
                }
            }
        } catch  where [ECONNABORTED, EMFILE, ENFILE, EPROTO].contains(error.errno) {
            // The peer gave up, or out of descriptors: try again at the next event.
            return nil
        }
        guard let client else { return nil }
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

    func close() { SystemCall.close(fd) }
}

/// One connection's descriptor: reads of what has arrived, and writes that give up at a deadline.
struct ConnectionSocket: Sendable {
    let fd: Int32

    enum ReadResult { case data(Int), closed, timeout }

    /// Reads into `buffer` (appending), waiting at most until `deadline` (monotonic seconds).
    func read(into buffer: inout [UInt8], deadline: Double, chunk: Int = 16 * 1024) throws(SocketError) -> ReadResult {
        let remaining = deadline - monotonicSeconds()
        guard remaining > 0 else { return .timeout }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = try SystemCall.run("poll") { poll(&pfd, 1, Int32(min(remaining, 3600) * 1000) + 1) }
        guard ready > 0 else { return .timeout }
        let before = buffer.count
        switch readAvailable(into: &buffer, chunk: chunk) {
        case .data(let n): return .data(n)
        case .closed: return .closed
        case .timeout: return .data(buffer.count - before)  // woken, but nothing there after all
        }
    }

    /// One read of what has arrived, without waiting: `.timeout` when nothing has, `.closed` at end
    /// of file or a failed connection (ECONNRESET and the like).
    func readAvailable(into buffer: inout [UInt8], chunk: Int, scratch: UnsafeMutableRawBufferPointer? = nil) -> ReadResult {
        if let scratch, scratch.count >= chunk {
            return readAvailable(into: &buffer, through: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<chunk]))
        }
        return withUnsafeTemporaryAllocation(byteCount: chunk, alignment: 1) { readAvailable(into: &buffer, through: $0) }
    }

    /// One recv(2) into `scratch`, what arrived appended to `buffer`.
    private func readAvailable(into buffer: inout [UInt8], through scratch: UnsafeMutableRawBufferPointer) -> ReadResult {
        do {
            let received = try SystemCall.unlessWouldBlock("recv") { recv(fd, scratch.baseAddress, scratch.count, 0) }
            guard let received else { return .timeout }
            if received > 0 { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<received])) }
            return received > 0 ? .data(received) : .closed
        } catch {
            return .closed
        }
    }

    /// Writes what the socket takes now without waiting: the count written (less than
    /// `bytes.count` when the send buffer is full). MSG_NOSIGNAL: a closed peer is an error, never
    /// SIGPIPE.
    func writeAvailable(_ bytes: ArraySlice<UInt8>) throws(SocketError) -> Int {
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(SocketError) -> Int in
                var offset = 0
                while offset < raw.count {
                    let pointer = raw.baseAddress! + offset, count = raw.count - offset
                    let sent = try SystemCall.unlessWouldBlock("send") { send(fd, pointer, count, Int32(MSG_NOSIGNAL)) }
                    guard let sent else { break }
                    offset += sent
                }
                return offset
            }
        }
        return try outcome.get()
    }

    /// Writes all of `bytes`, waiting for the socket to take them until `deadline` (monotonic
    /// milliseconds); past it the write fails with ETIMEDOUT.
    func write(_ bytes: ArraySlice<UInt8>, until deadline: UInt64) throws(SocketError) {
        var rest = bytes
        while true {
            rest = rest.dropFirst(try writeAvailable(rest))
            if rest.isEmpty { return }
            let now = monotonicMilliseconds()
            guard now < deadline else { throw SocketError(call: "send", errno: ETIMEDOUT) }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            try SystemCall.run("poll") { poll(&pfd, 1, Int32(min(deadline - now, 3_600_000))) }
        }
    }

    func write(_ bytes: [UInt8], until deadline: UInt64) throws(SocketError) { try write(bytes[...], until: deadline) }

    /// Writes all of `bytes` within `timeoutSeconds`.
    func write(_ bytes: [UInt8], timeoutSeconds: Double) throws(SocketError) {
        try write(bytes[...], until: monotonicMilliseconds() + milliseconds(timeoutSeconds))
    }

    /// TCP_NODELAY: an answer goes out as soon as it is written, not after the peer's next ACK.
    func setNoDelay() {
        var one: Int32 = 1
        _ = try? SystemCall.run("setsockopt(TCP_NODELAY)") {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Half-closes: no more writes; reads go on.
    func shutdownWrites() { _ = try? SystemCall.run("shutdown") { shutdown(fd, Int32(SHUT_WR)) } }

    func close() { SystemCall.close(fd) }
}
