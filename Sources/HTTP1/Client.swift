#if canImport(Glibc)
    import Glibc
#endif

/// A minimal blocking HTTP/1.1 client over plain TCP (one request per connection), for tests
/// and local tools. Responses must carry Content-Length or end at connection close.
public enum HTTPClient {
    public struct Response: Sendable {
        public let status: Int
        public let headers: HTTPHeaders
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public static func send(
        host: String = "127.0.0.1", port: Int, method: String, target: String, headers: [(String, String)] = [],
        body: [UInt8] = [], timeoutSeconds: Double = 10
    ) throws(SocketError) -> Response {
        let fd = try SystemCall.run("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { SystemCall.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw SocketError(call: "inet_pton(\(host))", errno: EINVAL) }
        try SystemCall.run("connect") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        var names = Set<String>()
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
            names.insert(name.lowercased())
        }
        if !names.contains("host") { head += "Host: \(host):\(port)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        let connection = ConnectionSocket(fd: fd)
        try connection.write(Array(head.utf8) + body, timeoutSeconds: timeoutSeconds)
        var buffer: [UInt8] = []
        let deadline = monotonicSeconds() + timeoutSeconds
        while true {
            switch try connection.read(into: &buffer, deadline: deadline) {
            case .data: continue
            case .closed: break
            case .timeout: throw SocketError(call: "recv", errno: ETIMEDOUT)
            }
            break
        }
        return try parse(buffer, method: method)
    }

    static func parse(_ bytes: [UInt8], method: String) throws(SocketError) -> Response {
        guard let headLength = headEnd(bytes) else { throw SocketError(call: "parse response", errno: EPROTO) }
        let end = headLength - 4
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw SocketError(call: "parse response", errno: EPROTO) }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingOWS())
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["Content-Length"].flatMap(Int.init), length <= body.count { body = Array(body[0..<length]) }
        if method == "HEAD" { body = [] }
        return Response(status: status, headers: headers, body: body)
    }
}
