import ClipAPI
import ClipCore
import ClipStore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// Findings of the hostile-input review, over HTTP; every refusal leaves the database as it was.
@Suite(.serialized) struct TrustInputAPITests {
    @Test(arguments: APITransport.allCases) func hugeOrInvisibleCardTextIsRefused(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try f.snapshot()
        let zalgo = "a" + String(repeating: "\u{0301}", count: 400_000)
        let huge = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/z","clip":"ABCDE12345.com.a.app.Clip","title":"\#(zalgo)","subtitle":"S"}"#)
        #expect(huge.status == 422 && f.parsed(huge)["errors"]?.arrayValue?.first?["rule"] == "title.length")
        let bidi = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"title":"Shop \u202Egnp.exe"}"#)
        #expect(bidi.status == 422 && f.parsed(bidi)["errors"]?.arrayValue?.first?["rule"] == "title.control")
        let app = try f.call("POST", "/v1/apps", token: f.admin, json: #"{"bundleId":"com.c.app","team":"ABCDE12345","name":"C\u200B"}"#)
        #expect(app.status == 422 && f.parsed(app)["errors"]?.arrayValue?.first?["rule"] == "name.control")
        #expect(try f.snapshot() == before)
    }

    /// Text that is not a URL is invalid input naming the field; a URL that matches nothing, of any scheme, is no match.
    @Test(arguments: APITransport.allCases) func resolveRefusesTextThatIsNotAURL(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
        for (text, rule) in [
            ("notaurl", "url.format"), ("https://", "url.host"), ("https://a b.example/", "url.host"),
            ("https://a|b.example/", "url.host"), ("https://a.example/store/%zz", "url.percentEncoding"),
        ] {
            for explain in ["", "&explain=true"] {
                for _ in 0..<2 {
                    let r = try f.call("GET", "/v1/resolve?url=\(q(text))\(explain)")
                    let errors = f.parsed(r)["errors"]?.arrayValue ?? []
                    #expect(
                        r.status == 422 && errors.count == 1 && errors.first?["field"] == "url" && errors.first?["rule"] == .string(rule),
                        "\(text)\(explain): \(r.status) \(r.text)")
                }
            }
        }
        for url in ["https://nothing.example/x", "http://a.example/store", "https://user@a.example/store", "https://localhost/x"] {
            for explain in ["", "&explain=true"] {
                let r = try f.call("GET", "/v1/resolve?url=\(q(url))\(explain)")
                #expect(r.status == 404 && f.parsed(r)["detail"]?.stringValue?.hasPrefix("no match: ") == true, "\(url): \(r.text)")
            }
        }
    }

    @Test(arguments: APITransport.allCases) func anInvalidPlaceAloneIsAnInvalidValue(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try f.snapshot()
        for body in [
            #"{"place":{"mainAddress":{"fullAddress":"1 Main St","bogus":1}}}"#,
            #"{"place":{"names":["x"],"colour":"red","mainAddress":{"fullAddress":"x"}}}"#,
        ] {
            let patch = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: body)
            #expect(patch.status == 422, "\(body)")
            let post = try f.call(
                "POST", "/v1/experiences", token: f.admin,
                json: #"{"url":"https://a.example/p","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","#
                    + body.dropFirst())
            #expect(post.status == 422, "\(body)")
        }
        // An unknown member of the request itself is still a malformed request.
        #expect(try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"colour":"red"}"#).status == 400)
        #expect(try f.snapshot() == before)
    }

    @Test(arguments: APITransport.allCases) func importSkipsAByteOrderMarkAndAcceptsAnEmptyExport(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        func post(_ bytes: [UInt8], _ type: String) throws -> HTTPClient.Response {
            try f.client.send(
                "POST", "/v1/experiences/import", headers: [("Authorization", "Bearer \(f.admin)"), ("Content-Type", type)], body: bytes)
        }
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let csv = try post(bom + Array("url,clip,title,subtitle\nhttps://a.example/bom,ABCDE12345.com.a.app.Clip,T,S\n".utf8), "text/csv")
        #expect(csv.status == 200 && f.parsed(csv)["imported"] == 1)
        let ndjson = try post(
            bom + Array(#"{"url":"https://a.example/bom2","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#.utf8),
            "application/x-ndjson")
        #expect(ndjson.status == 200 && f.parsed(ndjson)["imported"] == 1)
        let before = try f.snapshot()
        let header = try post(
            Array("url,clip,action,language,title,subtitle,category,poweredBy,status,localizations,place,headerImage\r\n".utf8), "text/csv")
        #expect(header.status == 200 && f.parsed(header)["imported"] == 0)
        #expect(try post([], "application/x-ndjson").status == 200)
        let zero = try post([], "text/csv")
        #expect(zero.status == 422 && f.parsed(zero)["errors"]?.arrayValue?.first?["rule"] == "empty")
        #expect(try f.snapshot() == before)
    }

    @Test(arguments: APITransport.allCases) func spreadsheetSafeExport(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        _ = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"subtitle":"=1+2"}"#)
        let plain = try f.call("GET", "/v1/experiences/export?format=csv", token: f.admin)
        #expect(plain.text.contains(",=1+2,"))
        let safe = try f.call("GET", "/v1/experiences/export?format=csv&spreadsheetSafe=true", token: f.admin)
        #expect(safe.status == 200 && safe.text.contains(",'=1+2,"))
        #expect(try f.call("GET", "/v1/experiences/export?spreadsheetSafe=true", token: f.admin).status == 422, "CSV only")
        #expect(try f.call("GET", "/v1/experiences/export?format=csv&spreadsheetSafe=yes", token: f.admin).status == 422)
    }

    @Test(arguments: APITransport.allCases) func aClipsParentIsNeverAClipOverHTTP(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try f.snapshot()
        // com.a.app.Clip is a clip of the fixture.
        #expect(try f.call("POST", "/v1/clips", token: f.admin, json: #"{"clip":"ABCDE12345.com.a.app.Clip.Sub"}"#).status == 409)
        #expect(try f.call("POST", "/v1/apps", token: f.admin, json: #"{"bundleId":"com.a.app.Clip","team":"ABCDE12345"}"#).status == 409)
        #expect(
            try f.call(
                "POST", "/v1/experiences", token: f.admin,
                json: #"{"url":"https://a.example/s","clip":"ABCDE12345.com.a.app.Clip.Sub","title":"T","subtitle":"S"}"#
            ).status == 409)
        #expect(try f.snapshot() == before)
    }
}

/// A write of the application layer reads its input from the query only (found by hostile QA: `?URL=` and a JSON
/// body were ignored, and the clip's TestFlight invocations cleared).
struct OperationInputAPITests {
    @Test(arguments: APITransport.allCases) func aWriteRefusesABodyAndQueryItemsItDoesNotRead(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let route = "/v1/clips/ABCDE12345.com.a.app.Clip/testflight-invocations"
        #expect(try f.call("PUT", route + "?url=https%3A%2F%2Fa.example%2Fstore", token: f.admin).status == 200)
        let before = try f.snapshot()
        let misspelt = try f.call("PUT", route + "?URL=https%3A%2F%2Fa.example%2Fstore", token: f.admin)
        #expect(misspelt.status == 400 && f.parsed(misspelt)["errors"]?.arrayValue?.first?["field"] == "URL", "\(misspelt.text)")
        // Whatever the name, bracketed too (QA: `url[0]=` was 422 while the spec said 400).
        let indexed = try f.call("PUT", route + "?url%5B0%5D=https%3A%2F%2Fa.example%2Fstore", token: f.admin)
        #expect(indexed.status == 400 && f.parsed(indexed)["errors"]?.arrayValue?.first?["field"] == "url[0]", "\(indexed.text)")
        let body = try f.call("PUT", route, token: f.admin, json: #"{"urls":["https://a.example/store"]}"#)
        #expect(body.status == 400, "\(body.text)")
        #expect(try f.snapshot() == before)
        #expect(try f.call("GET", route + "?cache=1", token: f.admin).status == 200, "a read ignores what it does not read")
    }
}

/// An operation's answers as HTTP says them: a 204 carries no content (RFC 9110 §15.3.5), and a write that
/// reads no body answers 415 to one that is not JSON, as every route does, before its 400 (docs/http-api.md).
struct OperationAnswerAPITests {
    @Test(arguments: APITransport.allCases) func noContentAndBodiesARouteDoesNotRead(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let links = "/v1/domains/a.example/applinks/com.a.app"
        #expect(try f.call("PUT", links, token: f.teamA, json: #"{"components":[{"/":"/x/*"}]}"#).status == 200)
        let removed = try f.call("DELETE", links, token: f.teamA)
        #expect(removed.status == 204 && removed.body.isEmpty && removed.headers["Content-Type"] == nil, "\(removed.headers)")
        let credentials = "/v1/domains/login.a.example/webcredentials/com.a.app"
        let before = try f.snapshot()
        let text = try f.call("PUT", credentials, token: f.teamA, headers: [("Content-Type", "text/plain")], json: "{}")
        #expect(text.status == 415, "\(text.text)")
        #expect(try f.snapshot() == before)
        // As these routes always have (docs/http-api.md): a JSON body a PUT does not read is ignored, a DELETE ignores any body
        // (found by hostile QA: moved into the application layer, they refused them with 400).
        let json = try f.call("PUT", credentials, token: f.teamA, json: #"{"team":"FGHIJ67890"}"#)
        #expect(json.status == 201, "\(json.text)")
        #expect(try f.call("PUT", credentials, token: f.teamA).status == 200)
        for route in [credentials, "/v1/tokens/999", "/v1/webhooks/999", "/v1/experiences/999"] {
            let answer = try f.call("DELETE", route + "?unused=1", token: f.admin, json: #"{"a":1}"#)
            #expect(answer.status == 204 || answer.status == 404, "\(route): \(answer.status) \(answer.text)")
        }
        for route in ["/v1/webhooks/999/test", "/v1/webhooks/999/enable"] {
            #expect(try f.call("POST", route, token: f.admin, json: #"{"a":1}"#).status == 404, "\(route)")
        }
    }
}
