import Testing
@testable import HTTP1

struct RequestHeadParserTests {
    func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) throws(RequestError) -> RequestHeadParser.Outcome {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { raw in Result { () throws(RequestError) in try RequestHeadParser.parse(raw, limits: limits) } }
            .get()
    }

    func head(_ text: String) throws -> RequestHead {
        guard case .complete(let head, let length) = try parse(text) else { throw RequestError(0, "incomplete") }
        #expect(length == text.utf8.count - (text.hasSuffix("BODY") ? 4 : 0))
        return head
    }

    @Test func parsesAStrictRequest() throws {
        let h = try head(
            "POST /v1/x?a=1 HTTP/1.1\r\nHost: a.example\r\nContent-Type:application/json\r\nContent-Length: 4\r\nX-Empty:\r\n\r\nBODY")
        #expect(h.method == "POST" && h.target == "/v1/x?a=1" && h.version == .http11)
        #expect(h.headers["content-type"] == "application/json", "whitespace after ':' is optional (RFC 9110 OWS)")
        #expect(h.headers["X-Empty"] == "")
        #expect(h.contentLength == 4 && h.keepAlive && !h.expectsContinue)
    }

    @Test func keepAliveRules() throws {
        #expect(try !head("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").keepAlive)
        #expect(try !head("GET / HTTP/1.0\r\n\r\n").keepAlive)
        #expect(try head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive)
    }

    @Test func absoluteFormKeepsPathAndQuery() throws {
        #expect(try head("GET http://a.example/x?y=1 HTTP/1.1\r\nHost: a.example\r\n\r\n").target == "/x?y=1")
        #expect(try head("GET https://a.example HTTP/1.1\r\nHost: a.example\r\n\r\n").target == "/")
    }

    /// RFC 9112 §3.2.2: an absolute-form target's authority replaces Host.
    @Test func absoluteFormAuthorityWinsOverHost() throws {
        let h = try head("GET https://shop.example/.well-known/apple-app-site-association HTTP/1.1\r\nHost: other.example\r\n\r\n")
        #expect(h.target == "/.well-known/apple-app-site-association")
        #expect(h.headers.all("Host") == ["shop.example"])
        #expect(try head("GET HTTP://Shop.example:8443?q=1 HTTP/1.1\r\nHost: x\r\n\r\n").headers["Host"] == "Shop.example:8443")
        #expect(try head("GET HTTP://Shop.example:8443?q=1 HTTP/1.1\r\nHost: x\r\n\r\n").target == "/?q=1")
        #expect(try head("GET http://[::1]:8080/x HTTP/1.0\r\n\r\n").headers["Host"] == "[::1]:8080")
    }

    /// RFC 9112 §3.2: HTTP/1.0 may omit Host; HTTP/1.1 may not; a Host must be uri-host [":" port].
    @Test func hostRules() throws {
        #expect(try head("GET / HTTP/1.0\r\n\r\n").headers["Host"] == nil)
        for good in [
            "shop.example", "shop.example:443", "shop.example:", "127.0.0.1:8080", "[::1]:8080", "[2001:db8::1]", "xn--caf-dma.example",
            "a%41.example", "",
        ] {
            #expect(try head("GET / HTTP/1.1\r\nHost: \(good)\r\n\r\n").headers["Host"] == good, "\(good)")
        }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: shop.example:abc\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: shop.example:99999\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: shop.example:1:2\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: caf\u{e9}.example\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: user@shop.example\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: shop.example/x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: :80\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: %zz\r\n\r\n",
        "GET / HTTP/1.0\r\nHost: a:b\r\n\r\n",
        "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET http://user@shop.example/x HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET http://shop.example:x/ HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET ftp://shop.example/ HTTP/1.1\r\nHost: a\r\n\r\n",
    ])
    func badHostsAndTargetsAre400(_ request: String) throws {
        do {
            _ = try parse(request)
            Issue.record("accepted: \(request.debugDescription)")
        } catch {
            #expect(error.status == 400, "\(request.debugDescription)")
        }
    }

    /// RFC 9112 §3.2.4: asterisk-form only for OPTIONS (method names are case-sensitive).
    @Test func asteriskFormOnlyForOptions() throws {
        #expect(try head("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").target == "*")
        for method in ["GET", "M-SEARCH", "PRI", "options", "DELETE"] {
            #expect(throws: RequestError(400, "the request target * is only for OPTIONS")) {
                try parse("\(method) * HTTP/1.1\r\nHost: a\r\n\r\n")
            }
        }
    }

    @Test func incompleteUntilTheBlankLine() throws {
        guard case .incomplete = try parse("GET / HTTP/1.1\r\nHost: a\r\n") else { Issue.record("expected incomplete"); return }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1,1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 9000000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: a\n\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET noslash HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", 417),
        ("GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    ])
    func refuses(_ text: String, _ status: Int) {
        #expect(throws: RequestError.self) { try parse(text) }
        do { _ = try parse(text) } catch { #expect(error.status == status, "\(text.debugDescription): \(error.message)") }
    }

    @Test func limitsAreEnforcedWhileBytesArrive() {
        var limits = HTTPLimits()
        limits.maxRequestLineBytes = 64
        limits.maxHeaderBytes = 256
        limits.maxHeaderCount = 3
        #expect { try parse("GET /" + String(repeating: "a", count: 100), limits: limits) } throws: { ($0 as? RequestError)?.status == 414 }
        #expect { try parse("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 300), limits: limits) } throws: {
            ($0 as? RequestError)?.status == 431
        }
        #expect { try parse("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) } throws: {
            ($0 as? RequestError)?.status == 431
        }
    }

    @Test func responsesNeverCarryInjectedHeaders() {
        var response = HTTPResponse(status: 200, text: "ok")
        response.headers.add("X-Bad", "a\r\nSet-Cookie: evil=1")
        response.headers.add("Bad Name", "x")
        response.headers.add("Content-Length", "999")
        let text = String(decoding: ResponseWriter.serialize(response, includeBody: true, keepAlive: true), as: UTF8.self)
        #expect(!text.contains("Set-Cookie") && !text.contains("Bad Name") && !text.contains("999"))
        #expect(text.contains("Content-Length: 2\r\n"))
        let head = String(decoding: ResponseWriter.serialize(response, includeBody: false, keepAlive: false), as: UTF8.self)
        #expect(head.hasSuffix("Content-Length: 2\r\nConnection: close\r\n\r\n"))
        let notModified = String(
            decoding: ResponseWriter.serialize(HTTPResponse(status: 304), includeBody: true, keepAlive: true), as: UTF8.self)
        #expect(!notModified.contains("Content-Length"))
    }

    @Test func routerAnswers404And405WithAllow() {
        var builder = Router()
        builder.add("GET", "/v1/items/{id}") { _, _ in HTTPResponse(status: 200) }
        builder.add("DELETE", "/v1/items/{id}") { _, _ in HTTPResponse(status: 204) }
        let router = builder.freeze()
        guard case .found(let route, let parameters) = router.match(method: "GET", path: "/v1/items/a%20b") else {
            Issue.record("no match"); return
        }
        #expect(route.template == "/v1/items/{id}" && parameters["id"] == "a b")
        guard case .found = router.match(method: "HEAD", path: "/v1/items/1") else { Issue.record("HEAD is served by GET"); return }
        guard case .methodNotAllowed(let allow) = router.match(method: "POST", path: "/v1/items/1") else {
            Issue.record("expected 405"); return
        }
        #expect(allow == ["DELETE", "GET", "HEAD"])
        guard case .notFound = router.match(method: "GET", path: "/v1/items") else { Issue.record("expected 404"); return }
        guard case .notFound = router.match(method: "GET", path: "/v1/items/") else { Issue.record("empty parameter is 404"); return }
        guard case .badPath = router.match(method: "GET", path: "/v1/items/%zz") else { Issue.record("expected bad path"); return }
        guard case .badPath = router.match(method: "GET", path: "/v1/items/%00") else { Issue.record("NUL refused"); return }
    }

    @Test func queryStrings() {
        #expect(
            QueryString.parse("url=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&explain=true&q=a+b")?.map { "\($0.name)=\($0.value)" } == [
                "url=https://a.example/x?y=1", "explain=true", "q=a b",
            ])
        #expect(QueryString.parse("a=%zz") == nil)
        #expect(QueryString.parse("a=%00") == nil)
        #expect(QueryString.parse("a=%C3") == nil, "invalid UTF-8")
        #expect(QueryString.parse("a=%2B+b")?.first?.value == "+ b")
        // In a path segment "+" is itself, not a space.
        #expect(PercentDecoding.decode("a+b%20c") == "a+b c")
        // What ClipCore's `PercentEncoding.encode` writes reads back as it was.
        #expect(QueryString.parse("x=https%3A%2F%2Fa.example%2F%3Fq%3D1%26r%3D%2B")?.first?.value == "https://a.example/?q=1&r=+")
    }
}
