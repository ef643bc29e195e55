import ClipAPI
import ClipCore
import ClipStore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// Findings of the hostile-input review, over HTTP; every refusal leaves the database as it was.
@Suite(.serialized) struct TrustInputAPITests {
    @Test func hugeOrInvisibleCardTextIsRefused() throws {
        let f = try APIFixture()
        let before = try f.snapshot()
        let zalgo = "a" + String(repeating: "\u{0301}", count: 400_000)
        let huge = try f.call("POST", "/v1/experiences", token: f.admin, json: #"{"url":"https://a.example/z","clip":"ABCDE12345.com.a.app.Clip","title":"\#(zalgo)","subtitle":"S"}"#)
        #expect(huge.status == 422 && f.parsed(huge)["errors"]?.arrayValue?.first?["rule"] == "title.length")
        let bidi = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"title":"Shop \u202Egnp.exe"}"#)
        #expect(bidi.status == 422 && f.parsed(bidi)["errors"]?.arrayValue?.first?["rule"] == "title.control")
        let app = try f.call("POST", "/v1/apps", token: f.admin, json: #"{"bundleId":"com.c.app","team":"ABCDE12345","name":"C\u200B"}"#)
        #expect(app.status == 422 && f.parsed(app)["errors"]?.arrayValue?.first?["rule"] == "name.control")
        #expect(try f.snapshot() == before)
    }

    @Test func anInvalidPlaceAloneIsAnInvalidValue() throws {
        let f = try APIFixture()
        let before = try f.snapshot()
        for body in [#"{"place":{"mainAddress":{"fullAddress":"1 Main St","bogus":1}}}"#, #"{"place":{"names":["x"],"colour":"red","mainAddress":{"fullAddress":"x"}}}"#] {
            let patch = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: body)
            #expect(patch.status == 422, "\(body)")
            let post = try f.call("POST", "/v1/experiences", token: f.admin, json: #"{"url":"https://a.example/p","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","#
                + body.dropFirst())
            #expect(post.status == 422, "\(body)")
        }
        // An unknown member of the request itself is still a malformed request.
        #expect(try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"colour":"red"}"#).status == 400)
        #expect(try f.snapshot() == before)
    }
}
