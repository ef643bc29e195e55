import AppleFormats
import ClipCore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// The hostile-input catalogue at the API level (the framing attacks are in HTTP1Tests): each
/// gets its exact answer, and the server answers the next well-formed request.
@Suite(.serialized) struct HostileInputTests {
    @Test(arguments: APITransport.allCases) func catalogue(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let cases: [(String, String, String?, [(String, String)], Int)] = [
            ("dot-dot path", "/v1/experiences/%2e%2e", nil, [], 404),
            ("dot-dot in host parameter", "/v1/domains/%2e%2e/aasa", nil, [], 422),
            ("NUL in path", "/v1/experiences/%00", nil, [], 400),
            ("NUL in query", "/v1/resolve?url=https%3A%2F%2Fa.example%2F%00", nil, [], 400),
            ("bad escape in query", "/v1/resolve?url=%E0%A4%A", nil, [], 400),
            ("invalid UTF-8 in query", "/v1/resolve?url=%FF%FE", nil, [], 400),
            ("huge id", "/v1/experiences/99999999999999999999999", nil, [], 404),
            ("negative id", "/v1/experiences/-1", nil, [], 404),
        ]
        for (name, target, body, headers, status) in cases {
            let r = try f.call(body == nil ? "GET" : "POST", target, token: f.admin, headers: headers, json: body)
            #expect(r.status == status, "\(name): \(r.status) \(r.text)")
            #expect(try f.call("GET", "/healthz").status == 200, "\(name): the server goes on")
        }
        // Invalid UTF-8 inside a JSON body.
        let raw = try f.client.send(
            "POST", "/v1/experiences",
            headers: [("Authorization", "Bearer \(f.admin)"), ("Content-Type", "application/json")],
            body: Array(#"{"url":"https://a.example/"#.utf8) + [0xFF, 0xFE] + Array(#"","clip":"x"}"#.utf8))
        #expect(raw.status == 400 && f.parsed(raw)["detail"]?.stringValue?.contains("invalid UTF-8") == true)
        // A huge but well-formed JSON document within the body limit: every field error, no crash.
        let manyFields = "{" + (0..<5000).map { "\"f\($0)\":\($0)" }.joined(separator: ",") + "}"
        let many = try f.call("POST", "/v1/experiences", token: f.admin, json: manyFields)
        #expect(many.status == 400 && (f.parsed(many)["errors"]?.arrayValue?.count ?? 0) > 5000)
        // Numbers that overflow where an integer is expected.
        #expect(try f.call("GET", "/v1/experiences?limit=99999999999999999999", token: f.admin).status == 422)
        #expect(try f.call("GET", "/v1/changes?since=-5", token: f.admin).status == 422)
    }

    @Test(arguments: APITransport.allCases) func storedTextComesBackEscapedNeverAsMarkupOrHeaders(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let evil = #"<script>\"x\"</script>"#
        let r = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/evil","clip":"ABCDE12345.com.a.app.Clip","title":"\#(evil)","subtitle":"plain"}"#)
        #expect(r.status == 201)
        #expect(f.parsed(r)["title"] == #"<script>"x"</script>"#)
        let separator = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/sep","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"a\u2028b"}"#)
        #expect(separator.status == 422, "a line separator cannot hide in card text")
        // A header-splitting attempt through the request id is refused, not echoed.
        let id = try f.call("GET", "/healthz", headers: [("X-Request-Id", "a%0d%0aSet-Cookie:x")])
        #expect(id.headers["Set-Cookie"] == nil && id.headers["X-Request-Id"] != "a%0d%0aSet-Cookie:x")
        // The banner HTML for a page whose app argument tries to break out of the attribute.
        let html = try f.call(
            "GET",
            "/v1/banner?url=\(q("https://a.example/evil"))&appArgument=\(q("https://a.example/\"><script>alert(1)</script>, app-clip-display=none"))",
            headers: [("Accept", "text/html")])
        #expect(html.status == 200)
        #expect(!html.text.contains("<script>") && !html.text.contains(", app-clip-display=none"))
        #expect(html.text.hasSuffix("app-clip-display=card\">\n"))
    }

    /// Property: whatever a client passes as app-argument, the banner has exactly its four
    /// parameters and an attribute without raw quotes or angle brackets (seeded random strings).
    @Test func bannerEscapingProperty() throws {
        var generator = SeededGenerator(seed: 42)
        let alphabet = Array(#"abc/:?&=,"'<> \#t\#n\#r;%#\é💥"#)
        let clip = try BundleID("com.example.app.Clip")
        for _ in 0..<3000 {
            let length = Int.random(in: 0...40, using: &generator)
            let tail = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let banner = try SmartBanner.make(appStoreID: try AppStoreID("1"), clipBundleID: clip, appArgument: "https://x.example/" + tail)
            let keys: [String] = banner.content.split(separator: ",").map { part in
                String(part.drop(while: { $0 == " " }).prefix { $0 != "=" })
            }
            #expect(keys == ["app-id", "app-argument", "app-clip-bundle-id", "app-clip-display"], "\(tail.debugDescription)")
            let attribute = String(banner.metaTag.dropFirst(#"<meta name="apple-itunes-app" content=""#.count).dropLast(2))
            let forbidden: Set<Character> = ["\"", "<", ">", "\n", "\r"]
            let clean = !attribute.contains(where: { forbidden.contains($0) })
            #expect(clean, "\(tail.debugDescription)")
        }
    }
}

/// A small deterministic generator (SplitMix64), so that property tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
