import ClipAPI
import ClipCore
import ClipStore
import FileFormats
import Foundation
import HTTP1
import StrictJSON
import Testing
import TestSupport

/// `GET /preview` and `GET /v1/images/{sha256}`, in process and over a socket.
@Suite struct PreviewAPITests {
    static let image = TestImages.png(width: 1800, height: 1200)
    static var imageHash: String { SHA256.hexDigest(image) }

    /// The fixture, plus an experience with markup in its texts and a header image on c.example.
    static func fixture(_ transport: APITransport) throws -> APIFixture {
        let f = try APIFixture(transport)
        let registry = try Registry(path: f.path)
        defer { registry.close() }
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://c.example/menu","clip":"ABCDE12345.com.c.app.Clip","action":"PLAY","title":"<script>alert(1)</script>","subtitle":"Fish & \"chips\"","localizations":{"HE":{"title":"שלום","subtitle":"עולם"}}}"#
            ), image: image)
        return f
    }

    @Test(arguments: APITransport.allCases)
    func previewPageIsServedWithAStrictPolicy(_ transport: APITransport) throws {
        let f = try Self.fixture(transport)
        let r = try f.call("GET", "/preview?url=\(q("https://c.example/menu?table=4"))")
        #expect(r.status == 200)
        #expect(r.headers["Content-Type"] == "text/html; charset=utf-8")
        let policy = try #require(r.headers["Content-Security-Policy"])
        #expect(policy.hasPrefix("default-src 'none'; img-src 'self' data:; style-src 'sha256-"))
        #expect(!policy.contains("script-src") && !policy.contains("unsafe"))
        #expect(r.headers["X-Content-Type-Options"] == "nosniff")
        #expect(r.headers["Referrer-Policy"] == "no-referrer")
        #expect(r.headers["Cache-Control"] == "public, max-age=60" && r.headers["Vary"] == "Accept-Language")
        #expect(r.text.contains("<h2 class=\"title\">&lt;script&gt;alert(1)&lt;/script&gt;</h2>"))
        #expect(r.text.contains("<p class=\"subtitle\">Fish &amp; &quot;chips&quot;</p>"))
        #expect(r.text.contains("<p class=\"action\" lang=\"en\" dir=\"ltr\">Play</p>"))
        #expect(r.text.contains("src=\"/v1/images/\(Self.imageHash)\""))
        #expect(r.text.contains("href=\"/v1/codes?url=https%3A%2F%2Fc.example%2Fmenu%3Ftable%3D4&amp;format=svg\""))
        #expect(r.text.contains("&lt;meta name=&quot;apple-itunes-app&quot; content=&quot;app-clip-bundle-id=com.c.app.Clip"))
    }

    @Test(arguments: APITransport.allCases)
    func languageComesFromTheQueryElseAcceptLanguage(_ transport: APITransport) throws {
        let f = try Self.fixture(transport)
        let explicit = try f.call("GET", "/preview?url=\(q("https://c.example/menu"))&language=he-IL", headers: [("Accept-Language", "en")])
        #expect(explicit.text.contains("lang=\"he\" dir=\"rtl\""))
        #expect(explicit.text.contains("<h2 class=\"title\">שלום</h2>"))
        let header = try f.call("GET", "/preview?url=\(q("https://c.example/menu"))", headers: [("Accept-Language", "he, en;q=0.5")])
        #expect(header.text.contains("lang=\"he\" dir=\"rtl\""))
        let none = try f.call("GET", "/preview?url=\(q("https://c.example/menu"))")
        #expect(none.text.contains("lang=\"en\" dir=\"ltr\""))
        let bad = try f.call("GET", "/preview?url=\(q("https://c.example/menu"))&language=klingon")
        #expect(bad.status == 422 && bad.headers["Content-Type"] == "application/problem+json")
    }

    @Test(arguments: APITransport.allCases)
    func urlsWithoutACardAnswerTheirOwnPages(_ transport: APITransport) throws {
        let f = try Self.fixture(transport)
        let missing = try f.call("GET", "/preview")
        #expect(missing.status == 400)
        let empty = try f.call("GET", "/preview?url=")
        #expect(empty.status == 400)
        let nothing = try f.call("GET", "/preview?url=\(q("https://nobody.example/x"))")
        #expect(nothing.status == 404 && nothing.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(nothing.text.contains("No App Clip card") && !nothing.text.contains("class=\"sheet\""))
        #expect(nothing.headers["Content-Security-Policy"] != nil)
        let invalid = try f.call("GET", "/preview?url=\(q("http://c.example/<script>"))")
        #expect(invalid.status == 422 && invalid.text.contains("Not an invocation URL"))
        #expect(invalid.text.contains("http://c.example/&lt;script&gt;") && !invalid.text.contains("<script>"))
        let enormous = try f.call("GET", "/preview?url=\(q("https://c.example/" + String(repeating: "a", count: 5000)))")
        #expect(enormous.status == 422)
        let invisible = try f.call("GET", "/preview?url=\(q("https://c.example/menu\u{200B}"))")
        // An invisible character in the URL is named where the URL is shown, not hidden.
        #expect([200, 404, 422].contains(invisible.status))
        #expect(invisible.text.contains("<code>https://c.example/menu[U+200B]</code>"))
    }

    @Test(arguments: APITransport.allCases)
    func headerImagesAreServedByHashAndCachedForever(_ transport: APITransport) throws {
        let f = try Self.fixture(transport)
        let r = try f.call("GET", "/v1/images/\(Self.imageHash)")
        #expect(r.status == 200 && r.body == Self.image)
        #expect(r.headers["Content-Type"] == "image/png")
        #expect(r.headers["ETag"] == "\"\(Self.imageHash)\"")
        #expect(r.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        let again = try f.call("GET", "/v1/images/\(Self.imageHash)", headers: [("If-None-Match", "\"other\", \"\(Self.imageHash)\"")])
        #expect(again.status == 304 && again.body.isEmpty && again.headers["ETag"] == "\"\(Self.imageHash)\"")
        let changed = try f.call("GET", "/v1/images/\(Self.imageHash)", headers: [("If-None-Match", "\"other\"")])
        #expect(changed.status == 200)
        for bad in [
            String(repeating: "0", count: 64), Self.imageHash.uppercased(), String(Self.imageHash.dropLast()), "x", Self.imageHash + "0",
        ] {
            let answer = try f.call("GET", "/v1/images/\(bad)")
            #expect(answer.status == 404, "\(bad)")
        }
    }
}
