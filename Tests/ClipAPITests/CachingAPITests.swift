import ClipAPI
import Foundation
import HTTP1
import Testing

/// What a CDN or browser in front of the API sees: every public GET cacheable with validators,
/// `Vary` on what changes it and `304`s; answers to tokens never stored (RFC 9110 §13, RFC 9111).
@Suite(.serialized) struct CachingAPITests {
    static let publicGets: [(target: String, headers: [(String, String)], vary: String?)] = [
        ("/.well-known/apple-app-site-association", [("Host", "a.example")], nil),
        ("/apple-app-site-association", [("Host", "a.example")], nil),
        ("/v1/resolve?url=\(q("https://a.example/store/1"))", [], "Accept-Language"),
        ("/v1/resolve?url=\(q("https://a.example/store/1"))&explain=true", [], "Accept-Language"),
        ("/v1/banner?url=\(q("https://a.example/store/1"))", [], "Accept"),
        ("/preview?url=\(q("https://a.example/store/1"))", [], "Accept-Language"),
        ("/v1/codes?url=\(q("https://a.example/store/1"))", [], nil),
        ("/v1/domains/a.example/aasa", [], nil),
        ("/v1/aasa/check?url=\(q("https://a.example/store"))&app=ABCDE12345.com.a.app.Clip", [], nil),
    ]

    @Test(arguments: APITransport.allCases) func everyPublicGetIsCacheableAndValidates(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for (target, headers, vary) in Self.publicGets {
            let r = try f.call("GET", target, headers: headers)
            #expect(r.status == 200, "\(target)")
            #expect(r.headers["Cache-Control"] == "public, max-age=60", "\(target)")
            #expect(r.headers["Vary"] == vary, "\(target)")
            let tag = try #require(r.headers["ETag"], "\(target)")
            #expect(tag.hasPrefix("\"") && tag.count > 10, "a strong ETag: \(target)")
            let modified = try #require(r.headers["Last-Modified"].flatMap(HTTPDate.parse), "\(target)")
            #expect(abs(modified - Int64(Date().timeIntervalSince1970)) < 600, "the fixture's writes were just now: \(target)")
            // The same answer, the same tag; with it, 304 without a body.
            let again = try f.call("GET", target, headers: headers)
            #expect(again.headers["ETag"] == tag && again.body == r.body, "\(target)")
            let cached = try f.call("GET", target, headers: headers + [("If-None-Match", "\"nope\", \(tag)")])
            #expect(cached.status == 304 && cached.body.isEmpty && cached.headers["ETag"] == tag, "\(target)")
            #expect(cached.headers["Cache-Control"] == "public, max-age=60" && cached.headers["Vary"] == vary, "\(target)")
            #expect(try f.call("GET", target, headers: headers + [("If-None-Match", "\"nope\"")]).status == 200, "\(target)")
            let head = try f.call("HEAD", target, headers: headers + [("If-None-Match", tag)])
            #expect(head.status == 304, "\(target)")
            // Public answers ignore credentials, so a token changes neither the answer nor its tag.
            let withToken = try f.call("GET", target, token: f.teamA, headers: headers)
            #expect(withToken.body == r.body && withToken.headers["ETag"] == tag, "\(target)")
        }
    }

    @Test(arguments: APITransport.allCases) func theTagAndDateFollowTheData(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let target = "/v1/resolve?url=\(q("https://a.example/store/1"))"
        let before = try f.call("GET", target)
        let aasa = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")])
        // Languages are variants: their tags differ.
        let french = try f.call("GET", target, headers: [("Accept-Language", "fr")])
        #expect(french.headers["ETag"] != before.headers["ETag"] && french.text.contains("Magasin A"))
        Thread.sleep(forTimeInterval: 1.1)
        let patched = try f.call("PATCH", "/v1/experiences/1", token: f.teamA, json: #"{"title":"A new store"}"#)
        #expect(patched.status == 200)
        let after = try f.call("GET", target)
        #expect(after.text.contains("A new store"))
        #expect(after.headers["ETag"] != before.headers["ETag"])
        let old = try #require(before.headers["Last-Modified"].flatMap(HTTPDate.parse))
        let new = try #require(after.headers["Last-Modified"].flatMap(HTTPDate.parse))
        #expect(new > old)
        #expect(try f.call("GET", target, headers: [("If-None-Match", before.headers["ETag"] ?? "")]).status == 200)
        // If-Modified-Since with the old date: changed since, 200; with the new one (a past second), 304.
        #expect(try f.call("GET", target, headers: [("If-Modified-Since", HTTPDate.format(old))]).status == 200)
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try f.call("GET", target, headers: [("If-Modified-Since", HTTPDate.format(new))]).status == 304)
        // The AASA's bytes did not change: the same tag still answers 304.
        let tag = try #require(aasa.headers["ETag"])
        #expect(
            try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example"), ("If-None-Match", tag)]).status
                == 304)
    }

    @Test(arguments: APITransport.allCases) func tokenAnswersAreNeverStored(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for (method, target, token) in [
            ("GET", "/v1/experiences", f.teamA), ("GET", "/v1/experiences/1", f.teamA), ("GET", "/v1/experiences", nil),
            ("GET", "/v1/tokens", f.admin), ("GET", "/v1/experiences/1/code.svg", f.teamA), ("GET", "/v1/experiences/2", f.teamA),
            ("GET", "/v1/changes", f.admin), ("DELETE", "/v1/experiences/2", "clip_1_bad"),
        ] as [(String, String, String?)] {
            let r = try f.call(method, target, token: token)
            #expect(r.headers["Cache-Control"] == "no-store", "\(method) \(target) → \(r.status)")
            #expect(r.headers["Last-Modified"] == nil, "\(target)")
        }
        // Operational answers are not kept either.
        for target in ["/healthz", "/readyz", "/metrics"] {
            #expect(try f.call("GET", target).headers["Cache-Control"] == "no-store", "\(target)")
        }
        // A public miss is not made cacheable.
        let missing = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "nobody.example")])
        #expect(missing.status == 404 && missing.headers["Cache-Control"] == nil && missing.headers["ETag"] == nil)
    }

    @Test func theMaxAgeIsConfigurable() throws {
        for seconds in [0, 2, 86_400] {
            let f = try APIFixture(.inProcess, publicMaxAge: seconds)
            #expect(
                try f.call("GET", "/v1/banner?url=\(q("https://a.example/store"))").headers["Cache-Control"] == "public, max-age=\(seconds)"
            )
        }
    }
}
