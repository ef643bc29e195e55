import ClipAPI
import ClipStore
import Foundation
import HTTP1
import Locking
import StrictJSON
import TestSupport
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// The hot routes (resolve and the served AASA answered from the request's bytes) against the
/// ordinary way: two servers on the same registry, one with the hot handler and one without, must
/// give the same bytes (but the request id) for every request, the common ones and the odd ones
/// the hot handler leaves to the ordinary way, and count them alike in the metrics.
@Suite(.serialized) struct HotRoutesTests {
    static func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    static let requests: [(head: String, headers: [(String, String)])] = [
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))", []),
        ("HEAD /v1/resolve?url=\(q("https://a.example/store/1"))", []),
        ("GET /v1/resolve?url=https://a.example/store", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))&language=fr", []),
        ("GET /v1/resolve?language=FR&url=\(q("https://a.example/store/1"))&&", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))", [("Accept-Language", "fr-CA, en;q=0.5")]),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))&language=xx", []),
        ("GET /v1/resolve?u%72l=\(q("https://a.example/store/2"))", []),
        ("GET /v1/resolve?url=nothing&url=\(q("https://a.example/store/3"))", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/3"))&url=", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))&explain", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))&explain=false", []),
        ("GET /v1/resolve?url=\(q("https://nowhere.example/x"))", []),
        // No match, written from bytes: an unknown host, a known host's uncovered path, the host's case, HEAD,
        // bytes the problem's JSON escapes, a query, a default port, and a host with a default experience.
        ("HEAD /v1/resolve?url=\(q("https://nowhere.example/x"))", []),
        ("GET /v1/resolve?url=\(q("https://a.example/elsewhere/1?x=1"))", []),
        ("GET /v1/resolve?url=\(q("https://A.EXAMPLE/elsewhere"))", []),
        ("GET /v1/resolve?url=\(q("HTTPS://Nowhere.Example:443/a\"b\\c/'<>"))", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1x"))&language=fr", [("Accept-Language", "de")]),
        ("GET /v1/resolve?url=\(q("https://d.example/anything"))", []),
        ("GET /v1/resolve?url=\(q("https://d.example"))", []),
        ("GET /v1/resolve?url=\(q("https://A.example:443/store/1"))", []),
        ("GET /v1/resolve?url=%FF", []),
        ("GET /v1/resolve?url=%2", []),
        ("GET /v1/resolve?url=a%00b", []),
        ("GET /v1/resolve?url=https://a.example/st+ore", []),
        ("GET /v1/resolve?url=\(q("https://a.example/caf\u{e9}"))", []),
        ("GET /v1/resolve", []),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))", [("X-Request-Id", "mine-1")]),
        ("GET /v1/resolve?url=\(q("https://a.example/store/1"))", [("If-None-Match", "\"nope\"")]),
        ("GET /v1/resolve/?url=\(q("https://a.example/store/1"))", []),
        ("GET http://a.example/v1/resolve?url=\(q("https://a.example/store/1"))", []),
        ("POST /v1/resolve?url=\(q("https://a.example/store/1"))", []),
        ("GET /.well-known/apple-app-site-association", [("Host", "a.example")]),
        ("HEAD /.well-known/apple-app-site-association", [("Host", "a.example")]),
        ("GET /apple-app-site-association", [("Host", "A.Example:8080")]),
        ("GET /.well-known/apple-app-site-association", [("Host", "unknown.example")]),
        ("GET /.well-known/apple-app-site-association", [("Host", "")]),
        // The AASA's 404s, written from bytes: a host with nothing configured, one that is not a host name.
        ("HEAD /.well-known/apple-app-site-association", [("Host", "unknown.example:443")]),
        ("GET /apple-app-site-association", [("Host", "UNKNOWN.example")]),
        ("GET /.well-known/apple-app-site-association", [("Host", "-bad-.example")]),
        ("GET /.well-known/apple-app-site-association", [("Host", "127.0.0.1")]),
        ("GET /.well-known/apple-app-site-association", [("Host", "xn--caf-dma.example")]),
        ("GET http://b.example:80/.well-known/apple-app-site-association", [("Host", "a.example")]),
        ("GET /.well-known/apple-app-site-association?x=1", [("Host", "b.example")]),
    ]

    /// With and without request log lines (`serve` and `serve --quiet`): the hot routes' lines are the
    /// ordinary way's but for the time, the duration and the request id (the answer's own), in the same order.
    @Test(arguments: [false, true]) func hotAnswersAreTheOrdinaryAnswers(logs: Bool) throws {
        let fixture = try APIFixture(.inProcess)
        _ = try fixture.call(
            "POST", "/v1/experiences", token: fixture.admin,
            json: #"{"url":"https://a.example/café","clip":"ABCDE12345.com.a.app.Clip","title":"Café","subtitle":"Team A"}"#)
        // d.example offers a default experience: the ordinary way renders it.
        #expect(try fixture.call("PUT", "/v1/clips/com.a.app.Clip/domains/d.example", token: fixture.admin).status == 201)
        #expect(
            try fixture.call(
                "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: fixture.admin,
                json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#
            ).status == 201)
        let hot = try Served(path: fixture.path, hot: true, logs: logs)
        let ordinary = try Served(path: fixture.path, hot: false, logs: logs)
        defer {
            hot.server.stop(drainSeconds: 1)
            ordinary.server.stop(drainSeconds: 1)
        }
        for (head, headers) in Self.requests {
            let a = try Self.exchange(port: hot.port, head, headers)
            let b = try Self.exchange(port: ordinary.port, head, headers)
            #expect(a.withoutRequestID == b.withoutRequestID, "\(head) \(headers)")
            #expect(a.requestID.count == 16 || a.requestID == "mine-1", "\(head): \(a.requestID)")
            guard logs else { continue }
            // The request's line, then the closing /healthz's: written straight, after the buffered one.
            hot.api.flushLog()
            let (hotLines, ordinaryLines) = (hot.takeLines(), ordinary.takeLines())
            #expect(hotLines.map(Self.withoutTimes) == ordinaryLines.map(Self.withoutTimes), "\(head) \(headers)")
            #expect(hotLines.count == 2 && hotLines[0].contains(#""requestId":"\#(a.requestID)""#), "\(head): \(hotLines)")
            for line in hotLines {
                #expect(line.wholeMatch(of: Self.linePattern) != nil, "\(line)")
            }
        }
        // Counted alike: requests by route, method and status, and each route's latencies (the hot routes' counts are kept
        // by number, `Metrics.record(fixedRoute:…)`, and shown as the others are).
        let counts = { (port: Int) in
            try Self.exchange(port: port, "GET /metrics", []).text.split(separator: "\n").filter {
                ($0.hasPrefix("clipregistry_http_requests_total") || $0.hasPrefix("clipregistry_http_request_duration_seconds_count"))
                    && !$0.contains("/metrics")
            }
        }
        let hotCounts = try counts(hot.port)
        #expect(hotCounts.contains { $0.contains("/v1/resolve") && $0.contains("status=\"404\"") })
        #expect(hotCounts.contains { $0.hasPrefix("clipregistry_http_request_duration_seconds_count{route=\"/v1/resolve\"}") })
        #expect(try hotCounts == counts(ordinary.port))
    }

    /// The time, the duration, the request id and the client's port of a log line, masked.
    static func withoutTimes(_ line: String) -> String {
        line.replacing(#/"time":"[^"]*"/#, with: #""time":T"#).replacing(#/"durationMs":[0-9.]+/#, with: #""durationMs":D"#)
            .replacing(#/"requestId":"[^"]*"/#, with: #""requestId":R"#).replacing(#/"remote":"127\.0\.0\.1:[0-9]+"/#, with: #""remote":P"#)
    }
    static var linePattern: Regex<(Substring, Substring?)> {
        #/\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info","msg":"request","requestId":"[0-9a-z-]+","method":"[A-Z]+","route":"[^"]+","status":\d{3},"durationMs":\d+(\.\d\d?)?,"remote":"127\.0\.0\.1:\d+"\}/#
    }

    /// A `clipctl serve` server (`logs`) or a `serve --quiet` one, its log lines collected.
    struct Served {
        let server: HTTPServer
        let port: Int
        let api: ClipAPI
        final class Lines: Sendable { let lines = Locked<[String]>([]) }
        let lines = Lines()
        func takeLines() -> [String] {
            lines.lines.withLock { lines in
                defer { lines = [] }; return lines
            }
        }
        init(path: String, hot: Bool, logs: Bool = false, now: @escaping @Sendable () -> Date = Date.init) throws {
            let lines = lines
            let api = ClipAPI(
                pool: try RegistryPool(path: path, now: now), logsRequests: logs, log: { line in lines.lines.withLock { $0.append(line) } })
            self.api = api
            let hotHandler: HTTPHotHandler = { request, buffers in api.answerHot(request, &buffers) }
            server = HTTPServer(
                configuration: HTTPServer.Configuration(), hot: hot ? hotHandler : nil,
                answerInline: { api.answerFromMemory($0) }, handler: { api.handle($0) })
            port = try server.start()
        }
    }

    struct Answer {
        let head: String
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var lines: [Substring] { head.split(separator: "\r\n") }
        var requestID: String { lines.first { $0.hasPrefix("X-Request-Id: ") }.map { String($0.dropFirst(14)) } ?? "" }
        /// The answer but its request id and its Date (two answers a second apart differ in it).
        var withoutRequestID: String {
            lines.filter { !$0.hasPrefix("X-Request-Id: ") && !$0.hasPrefix("Date: ") }.joined(separator: "\n") + "\n" + text
        }
    }

    /// The request on a kept-alive connection (the hot handler only answers those), then a closing
    /// `/healthz`; the first answer as read.
    static func exchange(port: Int, _ head: String, _ headers: [(String, String)]) throws -> Answer {
        var text = "\(head) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0 == "Host" }) { text += "Host: 127.0.0.1\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let client = try RawClient(port: port)
        try #require(client.send(text))
        // Everything up to the close that the last request asked for.
        let received = Array(client.readAll().utf8)
        let separator = Array("\r\n\r\n".utf8)
        let end = try #require((0...(received.count - 4)).first { Array(received[$0..<($0 + 4)]) == separator })
        let headText = String(decoding: received[0..<end], as: UTF8.self)
        let length =
            headText.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length: ") }.flatMap { Int($0.dropFirst(16)) } ?? 0
        let hasBody = !head.hasPrefix("HEAD ") && !headText.hasPrefix("HTTP/1.1 304")
        return Answer(head: headText, body: hasBody ? Array(received[(end + 4)..<(end + 4 + length)]) : [])
    }
}
