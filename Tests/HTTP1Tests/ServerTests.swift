import ByteScan
import Foundation
import Locking
import TestSupport
import Testing
@testable import HTTP1
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server over real sockets on 127.0.0.1, port 0.
final class TestServer {
    let server: HTTPServer
    let port: Int

    init(
        limits: HTTPLimits = HTTPLimits(), eventThreads: Int? = nil, blockingThreads: Int? = nil,
        inline: (@Sendable (HTTPRequest) -> Bool)? = nil, answerBeforeBody: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil,
        hot: HTTPHotHandler? = nil, handler: HTTPHandler? = nil
    ) throws {
        var configuration = HTTPServer.Configuration(limits: limits)
        configuration.answerBeforeBody = answerBeforeBody
        if let eventThreads { configuration.eventThreads = eventThreads }
        if let blockingThreads { configuration.blockingThreads = blockingThreads }
        let handler: HTTPHandler =
            handler ?? { request in
                if request.target == "/slow" { Thread.sleep(forTimeInterval: 0.5) }
                return HTTPResponse(
                    status: 200, contentType: "text/plain", body: Array("\(request.method) \(request.target) \(request.body.count)".utf8))
            }
        var answerInline: HTTPInlineHandler?
        if let inline { answerInline = { @Sendable request in inline(request) ? handler(request) : nil } }
        server = HTTPServer(configuration: configuration, hot: hot, answerInline: answerInline, handler: handler)
        port = try server.start()
    }

    deinit { server.stop(drainSeconds: 1) }
}

@Suite(.serialized) struct ServerTests {
    @Test func urlSessionKeepAlive() async throws {
        let t = try TestServer()
        for i in 0..<3 {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(t.port)/hello?i=\(i)")!)
            request.httpMethod = "POST"
            request.httpBody = Data(repeating: 65, count: 2000)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "POST /hello?i=\(i) 2000")
        }
    }

    @Test func aClientThatDoesNotReadNeverStallsTheEventLoop() throws {
        // One event thread answering inline: a blocking write there would stall every client.
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)
        let t = try TestServer(
            eventThreads: 1, inline: { _ in true },
            handler: { request in
                HTTPResponse(status: 200, contentType: "text/plain", body: request.target == "/big" ? big : Array("small".utf8))
            })
        let hog = try RawClient(port: t.port)
        hog.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 64))  // 16 MiB it never reads
        Thread.sleep(forTimeInterval: 0.3)
        let other = try RawClient(port: t.port)
        other.send("GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = other.readAll(seconds: 5)
        #expect(statusLine(answer) == "HTTP/1.1 200 OK")
        #expect(body(answer) == "small")
    }

    /// Clients that pipeline requests for large answers and never read, on a small receive buffer.
    static func hogs(_ count: Int, port: Int, requests: Int = 64) throws -> [RawClient] {
        try (0..<count).map { _ in
            let hog = try RawClient(port: port, receiveBuffer: 4096)
            hog.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: requests))
            return hog
        }
    }

    static let big = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)

    @Test(arguments: [false, true])
    func clientsThatDoNotReadNeverHoldTheBlockingPool(bigAnswersInline: Bool) throws {
        // Three non-reading clients on a pool of two: a pool thread waiting on a client's socket
        // (or finishing an inline answer's write) would leave none for the next request.
        let t = try TestServer(
            blockingThreads: 2, inline: { bigAnswersInline && $0.target == "/big" },
            handler: { request in
                HTTPResponse(status: 200, contentType: "text/plain", body: request.target == "/big" ? Self.big : Array("small".utf8))
            })
        let hogs = try Self.hogs(3, port: t.port)
        Thread.sleep(forTimeInterval: 0.5)
        let sent = monotonicSeconds()
        let other = try RawClient(port: t.port)
        other.send("GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = other.readAll(seconds: 10)
        let waited = monotonicSeconds() - sent
        #expect(body(answer) == "small")
        #expect(waited < 2, "answered after \(waited) s")
        #expect(hogs.count == 3)
    }

    @Test func aStopWithAClientThatDoesNotReadEndsWithinTheDrainWindow() throws {
        let t = try TestServer(
            blockingThreads: 2,
            handler: { request in
                HTTPResponse(status: 200, contentType: "text/plain", body: request.target == "/big" ? Self.big : Array("small".utf8))
            })
        let hogs = try Self.hogs(3, port: t.port)
        Thread.sleep(forTimeInterval: 0.5)
        let started = monotonicSeconds()
        t.server.stop(drainSeconds: 1)
        let took = monotonicSeconds() - started
        #expect(took < 2.5, "stopped after \(took) s with a 1 s drain window")
        #expect(hogs.allSatisfy { $0.isClosedByPeer(seconds: 5) }, "the stuck answers were given up")
    }

    @Test func inlineAndPooledRequestsOnOneConnectionStayInOrder() throws {
        let t = try TestServer(eventThreads: 1, inline: { $0.target.hasPrefix("/fast") })
        let client = try RawClient(port: t.port)
        client.send(
            "GET /fast1 HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        let responses = client.readResponses(3)
        #expect(responses.map(body) == ["GET /fast1 0", "GET /slow 0", "GET /fast2 0"])
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /d HTTP/1.1\r\nHost: x\r\n\r\nHEAD /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        var rest = Array(client.readAll().utf8)
        var responses: [String] = []
        while responses.count < 3, let (response, used) = RawClient.split(rest) {
            responses.append(response)
            rest.removeFirst(used)
        }
        #expect(responses.map(body) == ["GET /a 0", "POST /b 3", "GET /d 0"])
        let head = String(decoding: rest, as: UTF8.self)
        #expect(head.hasSuffix("Content-Length: 9\r\nConnection: close\r\n\r\n"), "HEAD gets the GET length, no body, and the close")
    }

    /// RFC 9112 §2.2: empty lines (CRLF) before a request line are ignored, several of them, between
    /// pipelined requests too; a line that is not empty is still a request line (and refused here).
    @Test func emptyLinesBeforeARequestLineAreSkipped() throws {
        let t = try TestServer(eventThreads: 1)
        let client = try RawClient(port: t.port)
        client.send("\r\n\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        client.send("\r\n")
        client.send("\r\nGET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(client.readResponses(3).map(body) == ["GET /a 0", "GET /b 0", "GET /c 0"])
        let refused = try RawClient(port: t.port)
        refused.send("\r\n \r\nGET /d HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(refused.readAll().hasPrefix("HTTP/1.1 400 "))
    }

    @Test func expectContinue() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(client.readResponses(1).first.map(statusLine) == "HTTP/1.1 100 Continue")
        client.send("hello")
        #expect(client.readResponses(1).first.map(body) == "PUT /x 5")
        let big = try RawClient(port: t.port)
        big.send("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\nExpect: 100-continue\r\n\r\n")
        let refusal = big.readAll()
        #expect(statusLine(refusal) == "HTTP/1.1 413 Content Too Large", "too large is refused before any body is sent")
        // A refusal before any handler carries a request id like every answer (found by hostile QA: it had none).
        #expect(refusal.range(of: #"\r\nX-Request-Id: [0-9a-f]{16}\r\n"#, options: .regularExpression) != nil, "\(refusal)")
    }

    /// A server whose hook answers /nope from the head alone, as ClipAPI does for an unknown path.
    static func earlyAnswering(limits: HTTPLimits = HTTPLimits()) throws -> TestServer {
        try TestServer(
            limits: limits,
            answerBeforeBody: { head in
                head.path == "/nope" ? HTTPResponse(status: 404, contentType: "text/plain", body: Array("no \(head.method)".utf8)) : nil
            })
    }

    /// The attack: a head, one byte of a 1000-byte body, then nothing. The answer does not depend
    /// on the body, so it goes out at once with a close instead of holding the slot for the body.
    @Test func anAnswerThatCannotDependOnTheBodyIsSentBeforeIt() throws {
        let t = try Self.earlyAnswering()
        let client = try RawClient(port: t.port)
        let sent = monotonicSeconds()
        client.send("POST /nope HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n{")
        let answer = client.readResponses(1, seconds: 5).first ?? ""
        #expect(statusLine(answer) == "HTTP/1.1 404 Not Found" && body(answer) == "no POST")
        #expect(answer.contains("Connection: close"))
        #expect(monotonicSeconds() - sent < 2, "answered without waiting for the body")
        // The client still sending its body gets no reset (lingering close), then the close.
        #expect(client.send([UInt8](repeating: 65, count: 999)))
        #expect(client.isClosedByPeer(seconds: 5))
        // A route that needs its body still gets it, on the same server.
        let upload = try RawClient(port: t.port)
        upload.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhe")
        Thread.sleep(forTimeInterval: 0.1)
        upload.send("llo")
        #expect(upload.readResponses(1).first.map(body) == "POST /x 5")
    }

    /// Expect: 100-continue asks whether to send the body: the early answer is the reply, not 100.
    @Test func expectContinueGetsTheEarlyAnswerInsteadOf100() throws {
        let t = try Self.earlyAnswering()
        let client = try RawClient(port: t.port)
        client.send("PUT /nope HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let answer = client.readAll(seconds: 5)
        #expect(statusLine(answer) == "HTTP/1.1 404 Not Found" && !answer.contains("100 Continue"))
    }

    /// A kept-alive connection whose second request is answered early: the first is answered as
    /// usual, the second with a close, and nothing pipelined after it is served.
    @Test func anEarlyAnswerOnAKeptAliveConnectionEndsIt() throws {
        let t = try Self.earlyAnswering()
        let client = try RawClient(port: t.port)
        client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok")
        #expect(client.readResponses(1).first.map(body) == "POST /x 2")
        client.send("POST /nope HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
        let answer = client.readAll(seconds: 5)
        #expect(statusLine(answer) == "HTTP/1.1 404 Not Found")
        #expect(!answer.contains("/smuggled"), "bytes of an unread body are never parsed as a request")
    }

    /// The live test of the body rate (ConnectionStateMachineTests cover it on a manual clock).
    @Test func aStalledBodyGets408AfterTheGrace() throws {
        var limits = HTTPLimits()
        limits.bodyGraceSeconds = 0.3
        let t = try TestServer(limits: limits)
        let client = try RawClient(port: t.port)
        let sent = monotonicSeconds()
        client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n{")
        let answer = client.readAll(seconds: 10)
        let waited = monotonicSeconds() - sent
        #expect(statusLine(answer) == "HTTP/1.1 408 Request Timeout")
        #expect(body(answer).contains("the request body arrived slower than 1024 bytes a second"))
        #expect(waited >= 0.29 && waited < 5, "answered after the grace, not the 30 s body deadline: after \(waited) s")
    }

    static let hostile: [String: (request: String, expected: String)] = [
        "CL+TE smuggling": (
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", "HTTP/1.1 400 Bad Request"
        ),
        "two Content-Lengths": (
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "HTTP/1.1 400 Bad Request"
        ),
        "negative Content-Length": ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -3\r\n\r\nabc", "HTTP/1.1 400 Bad Request"),
        "chunked body": (
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "HTTP/1.1 501 Not Implemented"
        ),
        "long request line": ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 414 URI Too Long"),
        "huge header": (
            "GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "a", count: 40000))\r\n\r\n",
            "HTTP/1.1 431 Request Header Fields Too Large"
        ),
        "too many headers": (
            "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<101).map { "X-\($0): y\r\n" }.joined() + "\r\n",
            "HTTP/1.1 431 Request Header Fields Too Large"
        ),
        "HTTP/3.0": ("GET / HTTP/3.0\r\nHost: x\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"),
        "obs-fold": ("GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        "too large body": ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388609\r\n\r\n", "HTTP/1.1 413 Content Too Large"),
        "invalid UTF-8 in path": ("GET /\u{FF} HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        "Host with a bad port": ("GET / HTTP/1.1\r\nHost: shop.example:abc\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        "Host with raw non-ASCII": ("GET / HTTP/1.1\r\nHost: caf\u{E9}.example\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        "HTTP/1.1 without Host": ("GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        "absolute-form with userinfo": ("GET http://u@x/ HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
    ]

    @Test(arguments: Array(hostile.keys).sorted())
    func framingErrorsAreAnsweredThenTheConnectionCloses(_ name: String) throws {
        let (request, expected) = Self.hostile[name]!
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send(request + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = client.readAll()
        #expect(statusLine(answer) == expected)
        #expect(answer.contains("Connection: close") && answer.contains("application/problem+json"))
        #expect(!answer.contains("/smuggled"), "nothing after a framing error is served")
        // The server still serves the next well-formed request.
        let next = try RawClient(port: t.port)
        next.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(next.readResponses(1).first.map(body) == "GET /next 0")
    }

    /// RFC 9112 §3.2: HTTP/1.0 may omit Host.
    @Test func http10WithoutHostIsAnswered() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send("GET /old HTTP/1.0\r\n\r\n")
        let answer = client.readAll()
        #expect(statusLine(answer) == "HTTP/1.1 200 OK" && body(answer) == "GET /old 0")
    }

    /// RFC 9112 §9.3 and appendix C.2.2: an HTTP/1.0 client that asks to keep the connection is told it is kept (it
    /// would otherwise read until the server closes); one that does not ask gets the connection closed.
    @Test func http10KeepAliveIsAnnouncedAndHonoured() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        let answers = client.readResponses(2)
        #expect(answers.map(body) == ["GET /a 0", "GET /b 0"])
        #expect(answers.allSatisfy { $0.contains("\r\nConnection: keep-alive\r\n") && !$0.contains("close") })
        let plain = try RawClient(port: t.port)
        plain.send("GET /c HTTP/1.0\r\n\r\n")
        let answer = plain.readAll()
        #expect(answer.contains("\r\nConnection: close\r\n") && !answer.contains("keep-alive"))
        #expect(plain.isClosedByPeer())
    }

    /// RFC 9110 §6.6.1: every 2xx, 3xx and 4xx answer of an origin server with a clock carries `Date`, now.
    @Test func everyAnswerCarriesTheDate() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\nGET /y HTTP/1.1\r\nHost: x\r\n\r\n")
        let bad = try RawClient(port: t.port)
        bad.send("GET /z HTTP/1.1\r\n\r\n")  // no Host: 400
        for answer in client.readResponses(2) + [bad.readAll()] {
            let dates = answer.split(separator: "\r\n").filter { $0.hasPrefix("Date: ") }
            #expect(dates.count == 1, "one Date field in \(answer)")
            let seconds = dates.first.flatMap { HTTPDate.parse(String($0.dropFirst(6))) }
            #expect(seconds.map { abs(Double($0) - Date().timeIntervalSince1970) < 5 } == true, "\(dates)")
        }
    }

    /// The one live test of the deadline path (ConnectionStateMachineTests cover every deadline
    /// on a manual clock): a head that stops halfway is answered 408 by the timer, and no sooner
    /// than its deadline. The idle timeout is far off, so nothing else can end the connection.
    @Test func aStalledHeadGets408AtItsDeadline() throws {
        var limits = HTTPLimits()
        limits.headDeadlineSeconds = 0.3
        limits.idleTimeoutSeconds = 60
        let t = try TestServer(limits: limits)
        let client = try RawClient(port: t.port)
        let sent = monotonicSeconds()
        client.send("GET / HTTP/1.1\r\nHost: x\r\n")  // no empty line: the head never completes
        let answer = client.readAll(seconds: 10)
        let waited = monotonicSeconds() - sent
        #expect(statusLine(answer) == "HTTP/1.1 408 Request Timeout")
        #expect(body(answer).contains("the request head did not arrive within 300 ms"))
        #expect(answer.contains("Connection: close"))
        #expect(waited >= 0.29 && waited < 10, "answered at the deadline: after \(waited) s")
    }

    @Test func connectionsBeyondTheCapAreRefusedCleanly() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 2
        let t = try TestServer(limits: limits)
        // Both slots hold a request under way (an idle one would be closed to make room).
        let a = try RawClient(port: t.port), b = try RawClient(port: t.port)
        a.send("GET /a HTTP/1.1\r\nHost: x\r\n")
        b.send("GET /b HTTP/1.1\r\nHost: x\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        let c = try RawClient(port: t.port)
        let refused = c.readAll(seconds: 2)
        #expect(statusLine(refused) == "HTTP/1.1 503 Service Unavailable" && refused.contains("Retry-After: 1"))
        // A client still sending its request when refused (an upload, say) gets to send it and
        // read the 503, not a reset: the server half-closes and drains what arrives (RFC 9112 §9.6).
        let eager = try RawClient(port: t.port)
        #expect(eager.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 262144\r\n\r\n"))
        Thread.sleep(forTimeInterval: 0.2)  // the refusal is out before the body
        let bodySent = eager.send([UInt8](repeating: 65, count: 262_144))
        #expect(bodySent, "the body was refused with a reset")
        #expect(statusLine(eager.readAll(seconds: 3)) == "HTTP/1.1 503 Service Unavailable")
        a.send("\r\n")
        #expect(a.readResponses(1).first.map(body) == "GET /a 0")
    }

    /// The attack from the QA pass at the cap: sockets answered early and lingering (their client
    /// neither reads nor closes) make room before a kept-alive client, whose answer is not out yet.
    @Test func lingeringConnectionsMakeRoomBeforeIdleOnes() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 2
        let t = try Self.earlyAnswering(limits: limits)
        let kept = try RawClient(port: t.port)
        kept.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(kept.readResponses(1).first.map(body) == "GET /a 0")
        Thread.sleep(forTimeInterval: 0.05)
        let hostile = try RawClient(port: t.port)
        hostile.send("POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
        Thread.sleep(forTimeInterval: 0.1)  // answered and lingering, never read
        let newcomer = try RawClient(port: t.port)
        newcomer.send("GET /new HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(newcomer.readResponses(1).first.map(body) == "GET /new 0")
        kept.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(kept.readResponses(1).first.map(body) == "GET /again 0", "the idle client kept its connection")
    }

    /// At the cap, a connection idle for a second or more (the one idle longest) is closed so that
    /// a new client is served instead of refused; one idle for less (a burst of new connections,
    /// a keep-alive client between two requests) or with a body arriving never is.
    @Test func idleConnectionsAreClosedToMakeRoomAtTheCap() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 3
        let t = try TestServer(limits: limits)
        let busy = try RawClient(port: t.port)
        busy.send("PUT /busy HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{")  // a body under way
        let a = try RawClient(port: t.port)
        a.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(a.readResponses(1).first.map(body) == "GET /a 0")
        Thread.sleep(forTimeInterval: 1.1)
        let b = try RawClient(port: t.port)
        b.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(b.readResponses(1).first.map(body) == "GET /b 0")
        Thread.sleep(forTimeInterval: 0.05)  // the clock is in milliseconds: b idles longer than c
        // At the cap with a idle over a second: a newcomer is served and a is closed.
        let c = try RawClient(port: t.port)
        c.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponses(1).first.map(body) == "GET /c 0")
        #expect(a.isClosedByPeer(seconds: 2), "the connection idle longest made room")
        // Another newcomer at once: b and c have been idle for less than a second.
        let d = try RawClient(port: t.port)
        #expect(statusLine(d.readAll(seconds: 2)) == "HTTP/1.1 503 Service Unavailable")
        Thread.sleep(forTimeInterval: 1.1)
        let e = try RawClient(port: t.port)
        e.send("GET /e HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(e.readResponses(1).first.map(body) == "GET /e 0")
        #expect(b.isClosedByPeer(seconds: 2), "b was idle longer than c")
        c.send("GET /c2 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponses(1).first.map(body) == "GET /c2 0")
        // The request under way kept its slot throughout.
        busy.send("}")
        #expect(busy.readResponses(1).first.map(body) == "PUT /busy 2")
    }

    /// At the cap, among connections waiting a second or more for a request, the one that has sent
    /// the least for the longest makes room: a silent one before a head dripped, a head dripped
    /// before one that came faster (and then completes and is answered).
    @Test func theSlowestHeadMakesRoomAfterTheSilentOnes() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 3
        let t = try TestServer(limits: limits)
        let faster = try RawClient(port: t.port)
        faster.send("GET /faster HTTP/1.1\r\nHost: x\r\n")
        let dripper = try RawClient(port: t.port)
        dripper.send("GET /")
        let silent = try RawClient(port: t.port)
        Thread.sleep(forTimeInterval: 1.1)
        let first = try RawClient(port: t.port)
        first.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(first.readResponses(1).first.map(body) == "GET /first 0")
        #expect(silent.isClosedByPeer(seconds: 2), "the silent connection made room first")
        let second = try RawClient(port: t.port)
        second.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(second.readResponses(1).first.map(body) == "GET /second 0")
        #expect(dripper.isClosedByPeer(seconds: 2), "then the head that sent least per second")
        faster.send("\r\n")
        #expect(faster.readResponses(1).first.map(body) == "GET /faster 0", "the faster head kept its place")
    }

    @Test func aRequestStillQueuedAtTheDrainDeadlineIsNotStarted() throws {
        let started = Locked<[String]>([])
        let t = try TestServer(
            blockingThreads: 1,
            handler: { request in
                started.withLock { $0.append(request.target) }
                if request.target == "/slow" { Thread.sleep(forTimeInterval: 1) }
                return HTTPResponse(status: 200, contentType: "text/plain", body: Array(request.target.utf8))
            })
        let running = try RawClient(port: t.port), queued = try RawClient(port: t.port)
        running.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        // The one pool thread is busy with /slow before /queued arrives (bounded wait, no guess).
        let deadline = Date().addingTimeInterval(5)
        while started.withLock({ $0.isEmpty }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(started.withLock { $0 } == ["/slow"])
        queued.send("PUT /queued HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")  // behind /slow on the one pool thread
        let server = t.server
        // Stop only once /queued waits for the pool (before, it is an idle connection the stop closes).
        while server.requestsWaitingForThePool == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(server.requestsWaitingForThePool == 1)
        let stopped = Thread { server.stop(drainSeconds: 0.3) }
        stopped.start()
        #expect(body(running.readAll(seconds: 3)) == "/slow", "a handler that started is answered")
        let refused = queued.readAll(seconds: 3)
        #expect(statusLine(refused) == "HTTP/1.1 503 Service Unavailable" && refused.contains("Retry-After: 1"))
        #expect(started.withLock { $0 } == ["/slow"], "the queued request's handler never ran")
    }

    @Test func gracefulStopFinishesInFlightRequests() throws {
        let t = try TestServer()
        let client = try RawClient(port: t.port)
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.1)
        let server = t.server
        let stopped = Thread { server.stop(drainSeconds: 5) }
        stopped.start()
        let answer = client.readAll(seconds: 3)
        #expect(body(answer) == "GET /slow 0")
        #expect(answer.contains("Connection: close"))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(throws: (any Error).self) { try RawClient(port: t.port) }
    }

    // MARK: The hot handler (answers from the request's bytes)

    /// Answers GET and HEAD of paths starting /hot with "hot METHOD PATH QUERY HOST" from the request's bytes.
    static let hotHandler: HTTPHotHandler = { request, buffers in
        guard request.path.starts(with: "/hot".utf8), request.isGET || request.isHEAD else { return false }
        buffers.body.removeAll(keepingCapacity: true)
        for part in [request.method, request.path, request.query ?? UnsafeBufferPointer(start: nil, count: 0), request.host!] {
            buffers.body.append(contentsOf: part)
            buffers.body.append(0x20)
        }
        buffers.body.append(contentsOf: request.field("x-tag") ?? UnsafeBufferPointer(start: nil, count: 0))
        let contentLength = buffers.body.count
        buffers.out.append(atMost: 64 + ResponseWriter.endOfHeadRoom) { head in
            ResponseWriter.writeStatusLine(200, to: &head)
            ResponseWriter.writeTrustedField("Content-Type", "text/plain", to: &head)
            ResponseWriter.writeEndOfHead(contentLength: contentLength, keepAlive: true, to: &head)
        }
        if !request.isHEAD { buffers.out.append(contentsOf: buffers.body) }
        return true
    }

    @Test func theHotHandlerAnswersFromBytesAndDeclinesTheRest() throws {
        let t = try TestServer(hot: Self.hotHandler)
        let client = try RawClient(port: t.port)
        // Pipelined: hot answers are batched, and an ordinary one between them keeps its place.
        client.send(
            "GET /hot/a?x=1 HTTP/1.1\r\nHost: h.example:8\r\nX-Tag:  t1 \r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET http://abs.example/hot?q HTTP/1.1\r\nHost: ignored\r\n\r\n"
                + "POST /hot HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
                + "\r\nHEAD /hot/h HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /hot/last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        var rest = Array(client.readAll().utf8)
        var responses: [String] = []
        while responses.count < 4, let (response, used) = RawClient.split(rest) {
            responses.append(response)
            rest.removeFirst(used)
        }
        #expect(
            responses.map(body) == ["GET /hot/a x=1 h.example:8 t1", "GET /b 0", "GET /hot q abs.example ", "POST /hot 2"],
            "a body or absolute-form: the hot handler sees the authority; a request with a body goes the ordinary way")
        // The Date field (checked by everyAnswerCarriesTheDate) is left out of the comparison.
        let head = String(decoding: rest, as: UTF8.self).replacing(/Date: [^\r]*\r\n/, with: "")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 15\r\n\r\nHTTP/1.1 200"), "HEAD: no body")
        #expect(head.hasSuffix("Connection: close\r\n\r\nGET /hot/last 0"), "a request that closes goes the ordinary way")
    }

    @Test func hotAnswersToAClientThatDoesNotReadWaitForTheSocket() throws {
        // Large hot answers pipelined by a client that does not read: they wait in epoll (a batch at most
        // `EventLoop.batchBytes` over what the socket took), and the event loop goes on serving others.
        let big = [UInt8](repeating: UInt8(ascii: "y"), count: 256 * 1024)
        let hot: HTTPHotHandler = { request, buffers in
            guard request.path.elementsEqual("/big".utf8) else { return false }
            buffers.out.append(atMost: 32 + ResponseWriter.endOfHeadRoom) { head in
                ResponseWriter.writeStatusLine(200, to: &head)
                ResponseWriter.writeEndOfHead(contentLength: big.count, keepAlive: true, to: &head)
            }
            buffers.out.append(contentsOf: big)
            return true
        }
        let t = try TestServer(eventThreads: 1, hot: hot)
        let hog = try RawClient(port: t.port, receiveBuffer: 4096)
        hog.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 16))
        Thread.sleep(forTimeInterval: 0.3)
        let other = try RawClient(port: t.port)
        other.send("GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(body(other.readAll(seconds: 5)) == "GET /small 0")
        #expect(hog.readResponses(16, seconds: 20).count == 16, "every answer arrives once the client reads")
    }
}
