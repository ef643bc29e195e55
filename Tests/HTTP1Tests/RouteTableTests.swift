import Testing
#if canImport(Glibc)
    import Glibc
#endif
@testable import HTTP1

struct RouteTableTests {
    static func ok(_ text: String) -> Router.Handler {
        { _, _ in HTTPResponse(status: 200, contentType: "text/plain", body: Array(text.utf8)) }
    }

    func table() -> RouteTable {
        var router = Router()
        router.add("GET", "/healthz", fromMemory: .always, Self.ok("health"))
        router.add("GET", "/v1/resolve", fromMemory: .unlessQueryNames("explain"), Self.ok("resolve"))
        router.add("GET", "/v1/items/{id}", Self.ok("item"))
        router.add("DELETE", "/v1/items/{id}", Self.ok("delete"))
        return router.freeze()
    }

    func memory(_ method: String, _ target: String) -> Bool { table().answersFromMemory(HTTPRequest(method: method, target: target)) }

    @Test func eachRouteSaysWhetherItAnswersFromMemory() {
        #expect(memory("GET", "/healthz"))
        #expect(memory("HEAD", "/healthz"), "HEAD is served by the GET route, and so from memory too")
        #expect(memory("GET", "/v1/resolve?url=x&explained=1"))
        #expect(!memory("GET", "/v1/resolve?url=x&explain=true"))
        #expect(!memory("GET", "/v1/resolve?explain&url=x"))
        #expect(!memory("GET", "/v1/items/7"), "not from memory unless registered so")
        #expect(!memory("POST", "/healthz"), "405: no route, so the blocking pool answers it")
        #expect(!memory("GET", "/nowhere"))
    }

    /// A literal segment wins over a parameter for the same path, in the match and in `Allow` (each method once).
    @Test func literalSegmentsWinOverParameters() {
        var router = Router()
        router.add("GET", "/v1/items/{id}", Self.ok("item"))
        router.add("PATCH", "/v1/items/{id}", Self.ok("patch"))
        router.add("DELETE", "/v1/items/{id}", Self.ok("delete"))
        router.add("GET", "/v1/items/export", Self.ok("export"))
        router.add("POST", "/v1/items/import", Self.ok("import"))
        let t = router.freeze()
        func allow(_ method: String, _ path: Substring) -> [String]? {
            guard case .methodNotAllowed(let allow) = t.match(method: method, path: path) else { return nil }
            return allow
        }
        #expect(allow("POST", "/v1/items/export") == ["GET", "HEAD"])
        #expect(allow("DELETE", "/v1/items/export") == ["GET", "HEAD"])
        #expect(allow("PATCH", "/v1/items/export") == ["GET", "HEAD"])
        #expect(allow("PUT", "/v1/items/import") == ["POST"])
        #expect(allow("GET", "/v1/items/import") == ["POST"])
        #expect(allow("HEAD", "/v1/items/import") == ["POST"])
        #expect(allow("POST", "/v1/items/7") == ["DELETE", "GET", "HEAD", "PATCH"])
        if case .found(let route, _) = t.match(method: "HEAD", path: "/v1/items/export") {
            #expect(route.template == "/v1/items/export")
        } else {
            Issue.record("HEAD /v1/items/export must be served by its GET route")
        }
        if case .found(let route, let parameters) = t.match(method: "DELETE", path: "/v1/items/exports") {
            #expect(route.template == "/v1/items/{id}" && parameters["id"] == "exports")
        } else {
            Issue.record("another id still reaches the parameter route")
        }
    }

    @Test func aFrozenTableDoesNotChangeWhenItsBuilderDoes() {
        var router = Router()
        router.add("GET", "/a", Self.ok("a"))
        let frozen = router.freeze()
        router.add("GET", "/b", Self.ok("b"))
        guard case .notFound = frozen.match(method: "GET", path: "/b") else {
            Issue.record("a route added after freeze() reached the frozen table")
            return
        }
        #expect(frozen.routes.map(\.template) == ["/a"])
        #expect(router.freeze().routes.map(\.template) == ["/a", "/b"])
    }

    @Test func matchingDecodesParametersAndAnswers405WithAllow() {
        let t = table()
        guard case .found(let route, let parameters) = t.match(method: "GET", path: "/v1/items/a%2Fb%20c") else {
            Issue.record("no match")
            return
        }
        #expect(route.template == "/v1/items/{id}" && parameters["id"] == "a/b c")
        guard case .methodNotAllowed(let allow) = t.match(method: "PUT", path: "/v1/items/7") else {
            Issue.record("expected 405")
            return
        }
        #expect(allow == ["DELETE", "GET", "HEAD"])
        guard case .badPath = t.match(method: "GET", path: "/v1/items/%E2%28") else {
            Issue.record("invalid UTF-8 must be a bad path")
            return
        }
        guard case .notFound = t.match(method: "GET", path: "/v1/items/") else {
            Issue.record("an empty parameter matches nothing")
            return
        }
    }
}

/// One decoder for path segments and query strings.
struct PercentDecodingTests {
    @Test func pathSegmentsAndQueryItemsDecodeAlikeExceptPlus() {
        #expect(PercentDecoding.decode("caf%C3%A9+x") == "café+x")
        #expect(PercentDecoding.decode("caf%C3%A9+x", plusIsSpace: true) == "café x")
        #expect(QueryString.parse("q=caf%C3%A9+x&e")?.map { "\($0.name)=\($0.value)" } == ["q=café x", "e="])
    }

    @Test(arguments: ["%", "%4", "%G1", "%00", "a\u{0}b", "%FF", "%C3"])
    func malformedEscapesInvalidUTF8AndNULAreRefused(_ text: String) {
        #expect(PercentDecoding.decode(Substring(text)) == nil)
        #expect(QueryString.parse(Substring("a=" + text)) == nil)
    }

    @Test func queryNamesAreFoundAsSent() {
        #expect(QueryString.names("explain", in: "explain"))
        #expect(QueryString.names("explain", in: "a=1&explain=0"))
        #expect(!QueryString.names("explain", in: "explained=1&x=explain"))
        #expect(!QueryString.names("explain", in: nil))
    }
}

/// The one errno helper.
struct SystemCallTests {
    @Test func anInterruptedCallIsRetried() throws {
        var calls = 0
        let result = try SystemCall.run("test") { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 3)
    }

    @Test func aFailureCarriesTheCallAndErrno() {
        #expect(throws: SocketError(call: "test", errno: EBADF)) {
            try SystemCall.run("test") { () -> Int32 in
                errno = EBADF
                return -1
            }
        }
    }

    @Test func wouldBlockIsNothingToDoNow() throws {
        let value = try SystemCall.unlessWouldBlock("test") { () -> Int in
            errno = EAGAIN
            return -1
        }
        #expect(value == nil)
        #expect(throws: SocketError.self) {
            try SystemCall.unlessWouldBlock("test") { () -> Int in
                errno = ECONNRESET
                return -1
            }
        }
    }
}
