#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 exchange with one given address, for callers that must choose the address
/// themselves (a webhook sender checks every address a name resolves to, then connects to the
/// one it checked, so that a second resolution cannot swap it).
extension HTTPClient {
    /// The addresses `host` resolves to (getaddrinfo(3)): 4 bytes for IPv4, 16 for IPv6, in the resolver's order.
    public static func resolve(host: String) throws(SocketError) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0, let first = list else {
            throw SocketError(call: "getaddrinfo(\(host)): \(String(cString: gai_strerror(code)))", errno: EHOSTUNREACH)
        }
        defer { freeaddrinfo(first) }
        var out: [[UInt8]] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if n.pointee.ai_family == AF_INET, let a = n.pointee.ai_addr {
                let v4 = a.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                let bytes = withUnsafeBytes(of: v4) { Array($0) }
                if !out.contains(bytes) { out.append(bytes) }
            } else if n.pointee.ai_family == AF_INET6, let a = n.pointee.ai_addr {
                let v6 = a.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let bytes = withUnsafeBytes(of: v6) { Array($0) }
                if !out.contains(bytes) { out.append(bytes) }
            }
            node = n.pointee.ai_next
        }
        return out
    }

    /// Sends `request` (head and body, as bytes) to `address` (4 or 16 bytes) and `port`, and reads
    /// the answer's status line and header fields: at most `maxResponseBytes`, the body ignored.
    /// Connecting, sending and reading each end at the one deadline `timeoutSeconds` from now.
    public static func exchange(
        address: [UInt8], port: Int, request: [UInt8], timeoutSeconds: Double, maxResponseBytes: Int = 8_192
    ) throws(SocketError) -> Response {
        let deadline = monotonicSeconds() + timeoutSeconds
        let family = address.count == 4 ? AF_INET : AF_INET6
        let fd = try SystemCall.run("socket") {
            socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        defer { SystemCall.close(fd) }
        var storage = sockaddr_storage()
        let length: socklen_t
        if family == AF_INET {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &a.sin_addr) { $0.copyBytes(from: address) }
            withUnsafeMutableBytes(of: &storage) { s in withUnsafeBytes(of: a) { s.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &a.sin6_addr) { $0.copyBytes(from: address) }
            withUnsafeMutableBytes(of: &storage) { s in withUnsafeBytes(of: a) { s.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        // A non-blocking connect completes when the socket becomes writable (connect(2), EINPROGRESS).
        let started = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
        if started != 0 {
            guard errno == EINPROGRESS || errno == EINTR else { throw SocketError(call: "connect", errno: errno) }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let remaining = deadline - monotonicSeconds()
            let ready = remaining > 0 ? try SystemCall.run("poll") { poll(&pfd, 1, Int32(remaining * 1000) + 1) } : 0
            guard ready > 0 else { throw SocketError(call: "connect", errno: ETIMEDOUT) }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            try SystemCall.run("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) }
            guard failure == 0 else { throw SocketError(call: "connect", errno: failure) }
        }
        let connection = ConnectionSocket(fd: fd)
        try connection.write(request, timeoutSeconds: max(deadline - monotonicSeconds(), 0.001))
        var buffer: [UInt8] = []
        reading: while buffer.count < maxResponseBytes {
            switch try connection.read(into: &buffer, deadline: deadline, chunk: 4_096) {
            case .data:
                while let end = headEnd(buffer) {
                    // RFC 9110 §15.2: interim (1xx) answers may come before the final one, and a client that did not
                    // ask to switch protocols reads past them (101 is not skipped: it is an answer here).
                    guard let status = try? parse(Array(buffer[..<end]), method: "HEAD").status, (100...199).contains(status),
                        status != 101
                    else { break reading }
                    buffer.removeFirst(end)
                }
            case .closed: break reading
            case .timeout: throw SocketError(call: "recv", errno: ETIMEDOUT)
            }
        }
        return try parse(Array(buffer.prefix(maxResponseBytes)), method: "HEAD")
    }

    /// Where the first header section in `bytes` ends, past its blank line; nil when it has not ended yet.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
            .map { $0 + 4 }
    }
}
