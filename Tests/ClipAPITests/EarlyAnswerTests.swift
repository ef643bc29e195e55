import ClipAPI
import Foundation
import HTTP1
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// A client that sends a head and part of its body, then stalls (the attack a hostile QA pass
/// ran with hundreds of sockets): an answer that cannot depend on the body must not wait for it.
struct EarlyAnswerTests {
    /// A raw TCP connection to 127.0.0.1 with a receive timeout.
    final class Raw {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            try #require(connected == 0)
        }

        deinit { Glibc.close(fd) }

        func send(_ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }

        /// What arrives until the server closes or `seconds` pass with nothing new.
        func read(seconds: Double) -> String {
            var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                bytes += chunk[..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static let cases: [(head: String, status: String, extra: String)] = [
        ("POST /nope HTTP/1.1\r\nHost: a\r\n", "404 Not Found", "no route for POST /nope"),
        ("DELETE /healthz HTTP/1.1\r\nHost: a\r\n", "405 Method Not Allowed", "Allow: GET, HEAD"),
        ("POST /v1/experiences HTTP/1.1\r\nHost: a\r\n", "401 Unauthorized", "this route needs Authorization: Bearer TOKEN"),
        ("PUT /v1/%zz HTTP/1.1\r\nHost: a\r\n", "400 Bad Request", "malformed percent-encoding"),
    ]

    @Test(arguments: 0..<cases.count)
    func anAnswerThatCannotDependOnTheBodyDoesNotWaitForIt(_ index: Int) throws {
        let (head, status, extra) = Self.cases[index]
        let f = try APIFixture(.live)
        let client = try Raw(port: f.server!.port)
        let sent = monotonicSeconds()
        client.send(head + "Content-Length: 1000\r\n\r\n{")
        let answer = client.read(seconds: 5)
        #expect(answer.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(answer)")
        #expect(answer.contains(extra) && answer.contains("Connection: close") && answer.contains("X-Request-Id: "))
        #expect(monotonicSeconds() - sent < 2, "answered without waiting for the body")
        #expect(f.logLines.all.contains { $0.contains(#""status":\#(status.prefix(3))"#) }, "logged like any request")
    }

    /// Expect: 100-continue: the 401 is the reply, not an invitation to send the body.
    @Test func expectContinueToATokenRouteWithoutATokenGets401Not100() throws {
        let f = try APIFixture(.live)
        let client = try Raw(port: f.server!.port)
        client.send("POST /v1/experiences HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        let answer = client.read(seconds: 5)
        #expect(answer.hasPrefix("HTTP/1.1 401 Unauthorized\r\n") && !answer.contains("100 Continue"))
    }

    /// Whether a token is valid needs the database, and a valid one needs the body: a request
    /// with any bearer token waits for its body and is answered as before (here: unknown token).
    @Test func aRequestWithATokenStillWaitsForItsBody() throws {
        let f = try APIFixture(.live)
        let client = try Raw(port: f.server!.port)
        client.send("POST /v1/experiences HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer nope\r\nContent-Length: 2\r\n\r\n{")
        #expect(client.read(seconds: 0.5).isEmpty, "answered before its body")
        client.send("}")
        let answer = client.read(seconds: 5)
        #expect(answer.hasPrefix("HTTP/1.1 401 Unauthorized\r\n") && answer.contains("unknown, malformed or revoked"))
        // The same mistake with a real token and the whole body is served.
        let created = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/early","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#)
        #expect(created.status == 201)
    }
}
