import ClipAPI
import ClipCore
import ClipStore
import Foundation
import HTTP1
import StrictJSON
import TestSupport
import Testing

@Suite(.serialized) struct PublicRouteTests {
    @Test(arguments: APITransport.allCases) func healthReadinessAndMetrics(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        #expect(try f.call("GET", "/healthz").status == 200)
        #expect(try f.jsonOf(try f.call("GET", "/readyz"))["status"] == "ready")
        _ = try f.call("GET", "/v1/resolve?url=\(q("https://a.example/store/1"))")
        let metrics = try f.call("GET", "/metrics")
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains(#"clipregistry_http_requests_total{route="/v1/resolve",method="GET",status="200"} 1"#))
        #expect(metrics.text.contains(#"clipregistry_experiences{status="ACTIVE"} 2"#))
        #expect(metrics.text.contains(#"clipregistry_http_request_duration_seconds_count{route="/v1/resolve"} 1"#))
    }

    @Test(arguments: APITransport.allCases) func resolveAnswersTheDesignShapeAndHonoursLanguage(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let r = try f.call(
            "GET", "/v1/resolve?url=\(q("https://a.example/store/12?x=1"))&explain=true", headers: [("Accept-Language", "fr-CA, en;q=0.5")])
        #expect(r.status == 200)
        let answer = try f.jsonOf(r)
        #expect(answer["matched"] == "advanced" && answer["invocationURL"] == "https://a.example/store/12?x=1")
        #expect(answer["experience"]?["url"] == "https://a.example/store" && answer["experience"]?["language"] == "fr")
        #expect(answer["explanation"]?.arrayValue?.count == 1)
        let explicit = try f.jsonOf(
            try f.call("GET", "/v1/resolve?url=\(q("https://a.example/store"))&language=EN", headers: [("Accept-Language", "fr")]))
        #expect(explicit["experience"]?["language"] == "en", "an explicit language wins over Accept-Language")

        let none = try f.call("GET", "/v1/resolve?url=\(q("https://a.example/stores"))&explain=true")
        #expect(none.status == 404 && none.headers["Content-Type"] == "application/problem+json")
        #expect(try f.jsonOf(none)["explanation"]?.arrayValue?.first?["nearMiss"] != nil)
        #expect(try f.call("GET", "/v1/resolve?url=\(q("http://a.example/store"))").status == 404)
        #expect(try f.call("GET", "/v1/resolve").status == 400)
        #expect(try f.call("GET", "/v1/resolve?url=x&explain=maybe").status == 422)
        #expect(try f.call("GET", "/v1/resolve?url=%zz").status == 400)
    }

    @Test(arguments: APITransport.allCases) func servedAASA(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let r = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "A.example:8443")])
        #expect(r.status == 200)
        #expect(r.headers["Content-Type"] == "application/json")
        #expect(r.text == #"{"appclips":{"apps":["ABCDE12345.com.a.app.Clip"]},"applinks":{"apps":[],"details":[]}}"#)
        let tag = try #require(r.headers["ETag"])
        #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"), "a strong ETag")
        let cached = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example"), ("If-None-Match", tag)])
        #expect(cached.status == 304 && cached.body.isEmpty && cached.headers["ETag"] == tag)
        let head = try f.call("HEAD", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")])
        #expect(head.status == 200 && head.headers["Content-Length"] == String(r.body.count))
        #expect(try f.call("GET", "/apple-app-site-association", headers: [("Host", "a.example")]).text == r.text)
        #expect(try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "unknown.example")]).status == 404)
        #expect(try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "not a host")]).status == 400)
        #expect(try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example:abc")]).status == 400)
        // RFC 9112 §3.2.2: an absolute-form target's host wins over Host.
        let absolute = try f.call("GET", "https://a.example/.well-known/apple-app-site-association", headers: [("Host", "b.example")])
        #expect(absolute.status == 200 && absolute.text == r.text)
        #expect(try f.call("GET", "http://b.example:8080/apple-app-site-association", headers: [("Host", "a.example")]).text != r.text)
        #expect(try f.call("GET", "/v1/domains/a.example/aasa").text == r.text)
    }

    @Test(arguments: APITransport.allCases) func aasaCheck(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        #expect(
            try f.call("PUT", "/v1/domains/a.example/applinks/com.a.app", token: f.admin, json: #"{"components":[{"/":"/store/*"}]}"#)
                .status == 200)
        let r = try f.call("GET", "/v1/aasa/check?url=\(q("https://a.example/store/9"))&app=ABCDE12345.com.a.app")
        #expect(f.parsed(r)["decision"] == "match" && f.parsed(r)["rule"] == "details[0].components[0]")
        #expect(
            f.parsed(try f.call("GET", "/v1/aasa/check?url=\(q("https://a.example/other"))&app=ABCDE12345.com.a.app"))["decision"]
                == "no_match")
        #expect(try f.call("GET", "/v1/aasa/check?url=x").status == 400)
        #expect(try f.call("GET", "/v1/aasa/check?url=\(q("https://a.example/"))&app=bad").status == 422)
        #expect(try f.call("GET", "/v1/aasa/check?url=\(q("https://nothing.example/"))&app=ABCDE12345.com.a.app").status == 404)
        let missing = try f.call("GET", "/v1/aasa/check?app=")
        #expect(missing.status == 400 && f.parsed(missing)["detail"] == "give ?url= and ?app=")
        #expect(f.parsed(missing)["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } == ["url", "app"])
        // A public route: a body of any type and any credentials are ignored, as the route always has.
        let ignoring = try f.call(
            "GET", "/v1/aasa/check?url=\(q("https://a.example/store/9"))&app=ABCDE12345.com.a.app&other=1",
            headers: [("Content-Type", "text/plain"), ("Authorization", "Bearer unknown")], json: "not json")
        #expect(ignoring.status == 200 && f.parsed(ignoring)["decision"] == "match", "\(ignoring.text)")
    }

    @Test(arguments: APITransport.allCases) func applinksGeneratedFromExperiencesChangeTheServedFile(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let aasa = { try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")]) }
        let before = try aasa()
        let on = try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.admin, json: #"{"fromExperiences":true}"#)
        #expect(on.status == 200 && f.parsed(on)["unmatched"] == [])
        let after = try aasa()
        #expect(after.text.contains(#""appIDs":["ABCDE12345.com.a.app"],"components":[{"/":"/store/*"}]"#), "\(after.text)")
        #expect(after.headers["ETag"] != before.headers["ETag"])
        let check = try f.call("GET", "/v1/aasa/check?url=\(q("https://a.example/store/9"))&app=ABCDE12345.com.a.app")
        #expect(f.parsed(check)["decision"] == "match")
        #expect(
            try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.admin, json: #"{"fromExperiences":"yes"}"#).status
                == 422)
        #expect(try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.admin, json: #"{}"#).status == 422)
        #expect(
            try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.admin, json: #"{"fromExperiences":false}"#).status
                == 200)
        #expect(try aasa().text == before.text)
    }

    @Test(arguments: APITransport.allCases) func bannerAsJSONOrHTML(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let r = try f.call("GET", "/v1/banner?url=\(q("https://a.example/store"))&appArgument=\(q("https://a.example/x?a=1,2"))")
        #expect(
            try f.jsonOf(r)["metaTag"]
                == #"<meta name="apple-itunes-app" content="app-argument=https://a.example/x?a=1%2C2, app-clip-bundle-id=com.a.app.Clip, app-clip-display=card">"#
        )
        let html = try f.call(
            "GET", "/v1/banner?url=\(q("https://a.example/store"))", headers: [("Accept", "text/html,application/json;q=0.9")])
        #expect(html.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(html.text == "<meta name=\"apple-itunes-app\" content=\"app-clip-bundle-id=com.a.app.Clip, app-clip-display=card\">\n")
        #expect(try f.call("GET", "/v1/banner?url=\(q("https://elsewhere.example/"))").status == 409)
        #expect(r.headers["Content-Type"] == "application/json" && html.headers["Vary"] == "Accept")
        for query in ["", "?url=", "?appArgument=\(q("https://a.example/x"))"] {
            let missing = try f.call("GET", "/v1/banner" + query)
            #expect(missing.status == 400 && f.parsed(missing)["detail"] == "give the page URL as ?url=", "\(query): \(missing.text)")
            #expect(missing.headers["Content-Type"] == "application/problem+json")
        }
        // A public route: a body of any type and any credentials are ignored, as the route always has.
        let ignoring = try f.call(
            "GET", "/v1/banner?url=\(q("https://a.example/store"))",
            headers: [("Content-Type", "text/plain"), ("Authorization", "Bearer unknown")], json: "not json")
        #expect(ignoring.status == 200 && f.parsed(ignoring)["metaTag"] != nil, "\(ignoring.text)")
    }

    @Test(arguments: APITransport.allCases) func unknownRoutesAndWrongMethods(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        #expect(try f.call("GET", "/v2/nothing").status == 404)
        let wrong = try f.call("PUT", "/v1/resolve?url=x", json: "{}")
        #expect(wrong.status == 405 && wrong.headers["Allow"] == "GET, HEAD")
        let wrong2 = try f.call("POST", "/v1/experiences/1", token: f.admin, json: "{}")
        #expect(wrong2.status == 405 && wrong2.headers["Allow"] == "DELETE, GET, HEAD, PATCH")
        #expect(try f.call("GET", "/v1/experiences/%00", token: f.admin).status == 400)
        // The export and import routes are theirs, not an experience's {id}: each method once in Allow.
        for method in ["POST", "DELETE", "PATCH", "PUT"] {
            let export = try f.call(method, "/v1/experiences/export", token: f.admin, json: "{}")
            #expect(export.status == 405 && export.headers["Allow"] == "GET, HEAD", "\(method) export")
        }
        for method in ["GET", "HEAD", "PUT", "DELETE", "PATCH"] {
            let importing = try f.call(method, "/v1/experiences/import", token: f.admin)
            #expect(importing.status == 405 && importing.headers["Allow"] == "POST", "\(method) import")
        }
    }

    @Test(arguments: APITransport.allCases) func requestIDsAreEchoedAndLogsHoldNoSecrets(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let echoed = try f.call("GET", "/healthz", headers: [("X-Request-Id", "abc-123")])
        #expect(echoed.headers["X-Request-Id"] == "abc-123")
        let replaced = try f.call("GET", "/healthz", headers: [("X-Request-Id", "bad id <script>")])
        #expect(replaced.headers["X-Request-Id"]?.count == 16)
        _ = try f.call("GET", "/v1/experiences", token: f.admin)
        _ = try f.call("GET", "/v1/experiences", token: "clip_1_" + String(repeating: "0", count: 64))
        let logs = f.logLines.all.joined(separator: "\n")
        #expect(logs.contains("\"requestId\":\"abc-123\""))
        #expect(!logs.contains(f.admin) && !logs.contains(String(f.admin.suffix(64))) && !logs.contains("0000000000"))
    }
}

@Suite(.serialized) struct AuthAndTenancyTests {
    @Test(arguments: APITransport.allCases) func writesNeedAValidToken(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let missing = try f.call("GET", "/v1/experiences")
        #expect(missing.status == 401 && missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try f.call("GET", "/v1/experiences", token: "nonsense").status == 401)
        let tampered = String(f.admin.dropLast()) + (f.admin.hasSuffix("0") ? "1" : "0")
        #expect(try f.call("GET", "/v1/experiences", token: tampered).status == 401)
        #expect(try f.call("GET", "/v1/experiences", headers: [("Authorization", "Basic abc")]).status == 401)
        let revoked = try f.jsonOf(try f.call("POST", "/v1/tokens", token: f.admin, json: #"{"name":"temp"}"#))
        let secret = try #require(revoked["secret"]?.stringValue)
        #expect(try f.call("GET", "/v1/experiences", token: secret).status == 200)
        #expect(
            try f.call("DELETE", "/v1/tokens/\(revoked["id"]!.stringValue ?? JSONWriter.string(revoked["id"]!))", token: f.admin).status
                == 204)
        #expect(try f.call("GET", "/v1/experiences", token: secret).status == 401)
    }

    @Test(arguments: APITransport.allCases) func tokensAreStoredHashedOnly(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let database = try String(decoding: Data(contentsOf: URL(fileURLWithPath: f.path)), as: UTF8.self)
        #expect(!database.contains(String(f.admin.suffix(64))))
    }

    /// PUT /v1/apps/{bundleId}: create or update in one request (clipctl app set over --server).
    @Test(arguments: APITransport.allCases) func appUpsertCreatesThenUpdatesAndIsQuietTheSecondTime(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let path = "/v1/apps/com.c.app"
        let body = #"{"team":"KLMNO12345","appStoreId":"1234567890","name":"C"}"#
        // With If-Match, a missing app is not created (RFC 9110 §13.1.1).
        var before = try tableDump(f.path)
        #expect(try f.call("PUT", path, token: f.admin, headers: [("If-Match", "\"a-v1\"")], json: body).status == 412)
        #expect(try tableDump(f.path) == before)

        let created = try f.call("PUT", path, token: f.admin, json: body)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.headers["Location"] == path && created.headers["ETag"] == "\"a-v1\"")
        let app = try f.jsonOf(created)
        #expect(app["team"] == "KLMNO12345" && app["appStoreId"] == "1234567890" && app["name"] == "C" && app["version"] == 1)
        #expect(app["notes"] == ["created team KLMNO12345", "created app com.c.app (team KLMNO12345)"])

        // The same request twice: 200, the same app, no notes, no new version or change record.
        let changes = try f.jsonOf(try f.call("GET", "/v1/changes?limit=1000", token: f.admin))["items"]?.arrayValue?.count
        before = try tableDump(f.path)
        let again = try f.call("PUT", path, token: f.admin, json: body)
        #expect(again.status == 200 && again.headers["Location"] == nil && again.headers["ETag"] == "\"a-v1\"")
        #expect(try f.jsonOf(again)["notes"] == nil && f.jsonOf(again)["version"] == 1)
        #expect(try tableDump(f.path) == before)
        #expect(try f.jsonOf(try f.call("GET", "/v1/changes?limit=1000", token: f.admin))["items"]?.arrayValue?.count == changes)

        // An update: absent members stay, null clears the App Store ID; a stale If-Match is refused.
        let v1: [(String, String)] = [("If-Match", "\"a-v1\"")]
        let cleared = try f.call("PUT", path, token: f.admin, headers: v1, json: #"{"team":"KLMNO12345","appStoreId":null}"#)
        #expect(cleared.status == 200 && cleared.headers["ETag"] == "\"a-v2\"", "\(cleared.text)")
        let clearedApp = try f.jsonOf(cleared)
        #expect(clearedApp["appStoreId"] == .null && clearedApp["name"] == "C" && clearedApp["notes"] == ["updated app com.c.app"])
        before = try tableDump(f.path)
        #expect(try f.call("PUT", path, token: f.admin, headers: v1, json: #"{"team":"KLMNO12345","name":"Stale"}"#).status == 412)
        #expect(try tableDump(f.path) == before)

        // An admin must say which team; a malformed bundle ID is a field error.
        #expect(try f.call("PUT", "/v1/apps/com.d.app", token: f.admin, json: #"{"name":"D"}"#).status == 422)
        #expect(try f.call("PUT", "/v1/apps/not_a_bundle", token: f.admin, json: #"{"team":"KLMNO12345"}"#).status == 422)
        #expect(try tableDump(f.path) == before)
    }

    /// A team token cannot take or change another team's app by PUT, whatever team it names.
    /// The same write twice (default experience, applinks, settings, generation): the second
    /// answers 200 with the same ETag and body, and writes nothing (no version, no change record).
    @Test(arguments: APITransport.allCases) func theSameWriteTwiceWritesNothingTheSecondTime(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let writes: [(String, String)] = [
            (
                "/v1/clips/com.a.app.Clip/default-experience",
                #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"},"fr-FR":{"subtitle":"Salut"}}}"#
            ),
            ("/v1/domains/a.example/applinks/com.a.app", #"{"components":[{"/":"/store/*"}],"defaults":{"caseSensitive":false}}"#),
            ("/v1/domains/a.example/applinks-settings", #"{"defaults":{"percentEncoded":true}}"#),
            ("/v1/domains/a.example/applinks-generation", #"{"fromExperiences":true}"#),
            ("/v1/domains/a.example/applinks-generation", #"{"fromExperiences":false}"#),
        ]
        for (path, body) in writes {
            let first = try f.call("PUT", path, token: f.teamA, json: body)
            #expect((200...201).contains(first.status), "\(path): \(first.text)")
            let before = try tableDump(f.path)
            let again = try f.call("PUT", path, token: f.teamA, json: body)
            #expect(again.status == 200 && again.headers["ETag"] == first.headers["ETag"], "\(path): \(again.text)")
            #expect(try tableDump(f.path) == before, "\(path)")
        }
        let d = try f.jsonOf(try f.call("GET", "/v1/clips/com.a.app.Clip/default-experience", token: f.teamA))
        #expect(d["version"] == 1)
    }

    @Test(arguments: APITransport.allCases) func appUpsertKeepsToItsOwnTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try tableDump(f.path)
        let taken = try f.call("PUT", "/v1/apps/com.a.app", token: f.teamB, json: #"{"name":"Hijacked"}"#)
        #expect(taken.status == 409 && !taken.text.contains("ABCDE12345"), "\(taken.text)")
        #expect(try f.call("PUT", "/v1/apps/com.a.app", token: f.teamB, json: #"{"team":"ABCDE12345","name":"Hijacked"}"#).status == 403)
        #expect(try tableDump(f.path) == before)
        // Its own new app: the token's team is the app's.
        let own = try f.call("PUT", "/v1/apps/com.b.second", token: f.teamB, json: #"{"name":"B2"}"#)
        #expect(try own.status == 201 && f.jsonOf(own)["team"] == "FGHIJ67890")
    }

    /// PUT /v1/clips/{bundleId}: create unless it exists, the same request twice writes nothing.
    @Test(arguments: APITransport.allCases) func clipUpsertCreatesOnceAndKeepsToItsTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let created = try f.call("PUT", "/v1/clips/com.a.app.Second", token: f.teamA, json: "{}")
        #expect(created.status == 201 && created.headers["Location"] == "/v1/clips/com.a.app.Second", "\(created.text)")
        #expect(try f.jsonOf(created)["notes"] == ["created clip ABCDE12345.com.a.app.Second"] && f.jsonOf(created)["team"] == "ABCDE12345")
        let before = try tableDump(f.path)
        let again = try f.call("PUT", "/v1/clips/com.a.app.Second", token: f.teamA, json: "{}")
        #expect(try again.status == 200 && again.headers["Location"] == nil && f.jsonOf(again)["notes"] == [])
        #expect(try tableDump(f.path) == before)
        // Team B: team A's clip is taken (409), naming team A is refused (403); nothing changes.
        #expect(try f.call("PUT", "/v1/clips/com.a.app.Second", token: f.teamB, json: "{}").status == 409)
        #expect(try f.call("PUT", "/v1/clips/com.a.app.Second", token: f.teamB, json: #"{"team":"ABCDE12345"}"#).status == 403)
        #expect(try f.call("PUT", "/v1/clips/com.a.app.Second", token: f.admin, json: "{}").status == 422)
        #expect(try tableDump(f.path) == before)
    }

    /// Every object route × {no token, other team, own team, admin} → the exact status.
    /// Marks the matrix's image upload, whose body is a PNG's bytes.
    static let imageBody = "(a 1800×1200 PNG)"

    @Test(arguments: APITransport.allCases) func tenantIsolationMatrix(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        // (method, path, body, status for: none, other team, own team, admin); own team = team A.
        let routes: [(String, String, String?, [Int])] = [
            ("GET", "/v1/experiences/1", nil, [401, 404, 200, 200]),
            ("GET", "/v1/experiences/1/code.svg", nil, [401, 404, 200, 200]),
            ("GET", "/v1/experiences/1/code.png", nil, [401, 404, 200, 200]),
            ("GET", "/v1/experiences/1/tag.ndef", nil, [401, 404, 200, 200]),
            ("GET", "/v1/experiences/1/codes", nil, [401, 404, 200, 200]),
            ("GET", "/v1/codes/export", nil, [401, 200, 200, 200]),
            ("PATCH", "/v1/experiences/1", #"{"subtitle":"Changed"}"#, [401, 404, 200, 200]),
            // Back to version 1: team B does not see it; A's revert is a new version, the admin's then changes nothing.
            ("POST", "/v1/experiences/1/revert?version=1", nil, [401, 404, 200, 200]),
            // Doctor acknowledgements: team B cannot scope one to team A's clip; A's (id 1) is A's to remove.
            ("POST", "/v1/doctor/acknowledgements", #"{"rule":"title-length","where":"clip=com.a.app.Clip"}"#, [401, 404, 201, 201]),
            ("GET", "/v1/doctor/acknowledgements", nil, [401, 200, 200, 200]),
            ("DELETE", "/v1/doctor/acknowledgements/1", nil, [401, 404, 204, 404]),
            // Campaigns: team A's; team B may not name team A, nor see or change A's campaign; the admin's second is a name taken.
            (
                "POST", "/v1/campaigns",
                #"{"name":"m","team":"ABCDE12345","where":"host=a.example","startsAt":"2030-01-01T00:00Z","changes":{"subtitle":"C"}}"#,
                [401, 403, 201, 409]
            ),
            ("GET", "/v1/campaigns/1?at=2030-02-01T00:00Z", nil, [401, 404, 200, 200]),
            ("GET", "/v1/campaigns", nil, [401, 200, 200, 200]),
            ("POST", "/v1/campaigns/1/start", nil, [401, 404, 200, 409]),
            ("POST", "/v1/campaigns/1/end", nil, [401, 404, 200, 409]),
            ("POST", "/v1/campaigns/1/cancel", nil, [401, 404, 409, 409]),
            // Ended: team A's revert sets its members back; the admin's, again, changes nothing.
            ("POST", "/v1/campaigns/1/revert", nil, [401, 404, 200, 200]),
            ("GET", "/v1/schedule", nil, [401, 200, 200, 200]),
            ("POST", "/v1/schedule/run", nil, [401, 403, 403, 200]),
            // A bulk change sees the caller's team alone: team B's selection is empty, so `expect=1` refuses it.
            ("PATCH", "/v1/experiences?where=host%3Da.example&expect=1", #"{"subtitle":"Bulk"}"#, [401, 412, 200, 200]),
            ("GET", "/v1/apps/com.a.app", nil, [401, 404, 200, 200]),
            ("PATCH", "/v1/apps/com.a.app", #"{"name":"A"}"#, [401, 404, 200, 200]),
            ("PUT", "/v1/apps/com.a.app", #"{"team":"ABCDE12345","name":"A2"}"#, [401, 403, 200, 200]),
            ("GET", "/v1/clips/com.a.app.Clip", nil, [401, 404, 200, 200]),
            ("PUT", "/v1/clips/com.a.app.Clip", #"{"team":"ABCDE12345"}"#, [401, 403, 200, 200]),
            ("PUT", "/v1/clips/com.a.app.Clip/domains/www.a.example", nil, [401, 404, 201, 200]),
            (
                "PUT", "/v1/clips/com.a.app.Clip/default-experience", #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#,
                [401, 404, 201, 200]
            ),
            ("GET", "/v1/clips/com.a.app.Clip/default-experience", nil, [401, 404, 200, 200]),
            ("PUT", "/v1/domains/a.example/applinks/com.a.app", #"{"components":[{"/":"/store/*"}]}"#, [401, 404, 200, 200]),
            ("PUT", "/v1/domains/a.example/webcredentials/com.a.app", nil, [401, 404, 201, 200]),
            // Host-wide settings: the host's owner (team A) or an administrator; team B is refused for the host.
            ("PUT", "/v1/domains/a.example/applinks-settings", #"{"defaults":{"caseSensitive":false}}"#, [401, 403, 200, 200]),
            ("PUT", "/v1/domains/a.example/applinks-generation", #"{"fromExperiences":true}"#, [401, 403, 200, 200]),
            ("GET", "/v1/domains", nil, [401, 200, 200, 200]),
            ("GET", "/v1/domains/a.example", nil, [401, 404, 200, 200]),
            // This server fetches nothing (no outbound: 422); team B does not see team A's host first.
            ("GET", "/v1/domains/a.example/verification", nil, [401, 404, 422, 422]),
            ("GET", "/v1/verification?host=a.example", nil, [401, 404, 422, 422]),
            ("PUT", "/v1/domains/a.example/owner", #"{"team":"ABCDE12345"}"#, [401, 403, 403, 200]),
            ("PUT", "/v1/domains/a.example/teams/FGHIJ67890", nil, [401, 403, 403, 201]),
            ("DELETE", "/v1/domains/a.example/teams/FGHIJ67890", nil, [401, 403, 403, 200]),
            ("GET", "/v1/changes", nil, [401, 403, 403, 200]),
            // App Store Connect sync: administrators only; this server has no App Store Connect key (503).
            ("GET", "/v1/asc/plan", nil, [401, 403, 403, 503]),
            ("POST", "/v1/asc/apply", nil, [401, 403, 403, 503]),
            ("GET", "/v1/asc/testflight/plan", nil, [401, 403, 403, 503]),
            ("GET", "/v1/asc/testflight/status", nil, [401, 403, 403, 503]),
            ("POST", "/v1/asc/testflight/apply", nil, [401, 403, 403, 503]),
            (
                "POST", "/v1/experiences",
                #"{"url":"https://a.example/new","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#, [401, 403, 201, 409]
            ),
            ("DELETE", "/v1/domains/a.example/webcredentials/com.a.app", nil, [401, 404, 204, 404]),
            ("DELETE", "/v1/domains/a.example/applinks/com.a.app", nil, [401, 404, 204, 404]),
            ("DELETE", "/v1/clips/com.a.app.Clip/domains/www.a.example", nil, [401, 404, 204, 404]),
            ("DELETE", "/v1/clips/com.a.app.Clip/default-experience", nil, [401, 404, 204, 404]),
            ("GET", "/v1/experiences", nil, [401, 200, 200, 200]),
            ("GET", "/v1/experiences/export", nil, [401, 200, 200, 200]),
            ("GET", "/v1/bulk", nil, [401, 200, 200, 200]),  // each its own scope (BulkReadAPITests)
            ("POST", "/v1/experiences/import", "", [401, 415, 415, 415]),
            ("GET", "/v1/apps", nil, [401, 200, 200, 200]),
            ("POST", "/v1/apps", #"{"bundleId":"com.a.second","team":"ABCDE12345"}"#, [401, 403, 201, 409]),
            ("GET", "/v1/clips", nil, [401, 200, 200, 200]),
            ("POST", "/v1/clips", #"{"clip":"ABCDE12345.com.a.second.Clip"}"#, [401, 403, 201, 409]),
            ("GET", "/v1/tokens", nil, [401, 200, 200, 200]),
            ("POST", "/v1/tokens", #"{"name":"x","team":"ABCDE12345"}"#, [401, 403, 201, 201]),
            ("DELETE", "/v1/tokens/4", nil, [401, 404, 204, 404]),  // token 4: team A's, made just above
            // Webhook 1: team A's, made here; team B may neither see it nor subscribe to team A's events.
            ("GET", "/v1/webhooks", nil, [401, 200, 200, 200]),
            (
                "POST", "/v1/webhooks", #"{"url":"https://hooks.a.example.com/in","events":["*"],"team":"ABCDE12345"}"#,
                [401, 403, 201, 409]
            ),
            ("GET", "/v1/webhooks/1/deliveries", nil, [401, 404, 200, 200]),
            ("POST", "/v1/webhooks/1/test", nil, [401, 404, 202, 202]),
            ("POST", "/v1/webhooks/1/enable", nil, [401, 404, 200, 200]),
            ("DELETE", "/v1/webhooks/1", nil, [401, 404, 204, 404]),
            ("GET", "/v1/experiences/1/history", nil, [401, 404, 200, 200]),
            ("DELETE", "/v1/experiences/1", nil, [401, 404, 204, 404]),
            ("GET", "/v1/clips/com.a.app.Clip/testflight-invocations", nil, [401, 404, 200, 200]),
            ("PUT", "/v1/clips/com.a.app.Clip/testflight-invocations", nil, [401, 404, 200, 200]),
            ("DELETE", "/v1/clips/com.a.app.Clip", nil, [401, 404, 409, 409]),  // it still has experiences
            // An upload for team A: team B may not upload for it; the admin's comes after team A's (200).
            ("POST", "/v1/images?team=ABCDE12345", Self.imageBody, [401, 403, 201, 200]),
        ]
        for (method, path, body, expected) in routes {
            let tokens: [String?] = [nil, f.teamB, f.teamA, f.admin]
            for (token, status) in zip(tokens, expected) {
                let headers: [(String, String)] = body == nil && (method == "PUT") ? [("Content-Type", "application/json")] : []
                let before = try tableDump(f.path)
                let r =
                    body == Self.imageBody
                    ? try f.send(method, path, token: token, contentType: "image/png", bytes: TestImages.png(width: 1800, height: 1200))
                    : try f.call(method, path, token: token, headers: headers, json: body)
                let who = token == nil ? "no token" : token == f.teamB ? "team B" : token == f.teamA ? "team A" : "admin"
                #expect(r.status == status, "\(method) \(path) as \(who): \(r.text)")
                // A refused request changes nothing (docs/rules.md#updates-and-versions).
                if r.status >= 400 {
                    #expect(try tableDump(f.path) == before, "\(method) \(path) as \(who) was refused but changed the database")
                }
            }
        }
        // Every route that needs a token is in the matrix above.
        let pool = try RegistryPool(path: f.path)
        let covered = Set(
            routes.map { route in
                "\(route.0) "
                    + route.1.split(separator: "?")[0]
                    .replacingOccurrences(of: "/1", with: "/{id}").replacingOccurrences(of: "/4", with: "/{id}")
                    .replacingOccurrences(of: "com.a.app.Clip", with: "{bundleId}").replacingOccurrences(
                        of: "com.a.app", with: "{bundleId}"
                    )
                    .replacingOccurrences(of: "www.a.example", with: "{host}").replacingOccurrences(of: "/a.example/", with: "/{host}/")
                    .replacingOccurrences(of: "/FGHIJ67890", with: "/{team}").replacingOccurrences(
                        of: "/domains/a.example", with: "/domains/{host}"
                    )
                    .replacingOccurrences(of: "{bundleId}/testflight", with: "{clip}/testflight")
            })
        let protected = Set(ClipAPI(pool: pool, log: { _ in }).protectedRoutes.map { "\($0.method) \($0.template)" })
        #expect(protected.subtracting(covered).sorted() == [], "token routes missing from the isolation matrix")
        // Lists show only the caller's team.
        let listA = try f.jsonOf(try f.call("GET", "/v1/experiences", token: f.teamA))["items"]?.arrayValue ?? []
        #expect(listA.allSatisfy { $0["clip"]?.stringValue?.hasPrefix("ABCDE12345.") == true } && !listA.isEmpty)
        let listB = try f.jsonOf(try f.call("GET", "/v1/clips", token: f.teamB))["items"]?.arrayValue ?? []
        #expect(listB.map { $0["clip"] } == ["FGHIJ67890.com.b.app.Clip"])
        let export = try f.call("GET", "/v1/experiences/export", token: f.teamB)
        #expect(export.text.contains("b.example") && !export.text.contains("a.example"))
        let foreignImport = try f.call(
            "POST", "/v1/experiences/import", token: f.teamB, headers: [("Content-Type", "application/x-ndjson")],
            json: #"{"url":"https://a.example/z","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#)
        #expect(foreignImport.status == 403)
    }
}

@Suite(.serialized) struct ExperienceRouteTests {
    @Test(arguments: APITransport.allCases) func createAnswers201WithLocationAndETag(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let r = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://c.example/menu","clip":"KLMNO13579.com.c.app.Clip","title":"Menu","subtitle":"Order"}"#)
        #expect(r.status == 201)
        #expect(r.headers["Location"] == "/v1/experiences/3" && r.headers["ETag"] == "\"e3-v1\"")
        // Team, app, the app's missing name, clip, host, association.
        #expect(try f.jsonOf(r)["notes"]?.arrayValue?.count == 6)
        let get = try f.call("GET", "/v1/experiences/3", token: f.admin)
        #expect(get.headers["ETag"] == "\"e3-v1\"" && f.parsed(get)["url"] == "https://c.example/menu")
    }

    @Test(arguments: APITransport.allCases) func badBodiesGetTheRightStatusAndEveryError(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let malformed = try f.call("POST", "/v1/experiences", token: f.admin, json: "{\n  \"url\": ,\n}")
        #expect(malformed.status == 400 && f.parsed(malformed)["detail"]?.stringValue?.contains("line 2, column 10") == true)
        let unknown = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","flavour":"mint"}"#)
        #expect(unknown.status == 400 && f.parsed(unknown)["errors"]?.arrayValue?.first?["field"] == "flavour")
        let invalid = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json:
                #"{"url":"http://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"1234567890123456789012345678901","subtitle":"S","action":"JUMP"}"#
        )
        #expect(invalid.status == 422)
        #expect(
            Set(f.parsed(invalid)["errors"]?.arrayValue?.compactMap { $0["rule"]?.stringValue } ?? []) == [
                "url.scheme", "title.length", "action.enum",
            ])
        let duplicate = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://A.example/store/","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#)
        #expect(duplicate.status == 409 && f.parsed(duplicate)["existing"] == "/v1/experiences/1")
        let media = try f.call("POST", "/v1/experiences", token: f.admin, headers: [("Content-Type", "text/plain")], json: "{}")
        #expect(media.status == 415)
        let deep = try f.call("POST", "/v1/experiences", token: f.admin, json: String(repeating: "[", count: 10000))
        #expect(deep.status == 400)
        let overflow = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/n","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","poweredBy":1e999}"#)
        #expect(overflow.status == 400)
        let readOnly = try f.call("PATCH", "/v1/experiences/1", token: f.admin, json: #"{"id":7,"version":9}"#)
        #expect(readOnly.status == 400)
        #expect(try f.call("GET", "/v1/experiences/1", token: f.admin).headers["ETag"] == "\"e1-v1\"", "nothing was changed")
    }

    @Test(arguments: APITransport.allCases) func ifMatchGuardsUpdates(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let first = try f.call(
            "PATCH", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e1-v1\"")], json: #"{"status":"DEACTIVATED"}"#)
        #expect(first.status == 200 && first.headers["ETag"] == "\"e1-v2\"")
        let stale = try f.call(
            "PATCH", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e1-v1\"")], json: #"{"status":"ACTIVE"}"#)
        #expect(stale.status == 412)
        #expect(
            try f.call("PATCH", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e2-v2\"")], json: #"{"status":"ACTIVE"}"#)
                .status == 412)
        #expect(try f.jsonOf(try f.call("GET", "/v1/experiences/1", token: f.admin))["status"] == "DEACTIVATED")
        #expect(try f.call("DELETE", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e1-v1\"")]).status == 412)
        #expect(try f.call("DELETE", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e1-v2\"")]).status == 204)
        #expect(try f.call("GET", "/v1/experiences/1", token: f.admin).status == 404)
    }

    /// RFC 9110 §13.1.1: the condition holds when any listed tag, in any If-Match field, matches
    /// strongly; a weak tag never does.
    @Test(arguments: APITransport.allCases) func ifMatchHoldsWhenAnyListedTagMatches(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        func patch(_ ifMatch: [String], _ subtitle: String) throws -> Int {
            try f.call(
                "PATCH", "/v1/experiences/1", token: f.admin, headers: ifMatch.map { ("If-Match", $0) },
                json: #"{"subtitle":"\#(subtitle)"}"#
            ).status
        }
        #expect(try patch(["\"e1-v7\", \"e1-v1\""], "one") == 200)  // now v2
        #expect(try patch(["\"e1-v9\"", "\"e1-v2\""], "two") == 200)  // two fields; now v3
        #expect(try patch(["\"e1-v1,e1-v3\", \"e1-v3\""], "three") == 200)  // a comma inside a tag; now v4
        #expect(try patch(["W/\"e1-v4\""], "weak") == 412)
        #expect(try patch(["W/\"e1-v4\", \"e1-v1\""], "weak") == 412)
        #expect(try patch(["\"e1-v1\", \"e1-v2\""], "stale") == 412)
        #expect(try patch(["\"e1-v4"], "malformed") == 412)
        #expect(try f.jsonOf(try f.call("GET", "/v1/experiences/1", token: f.admin))["version"] == 4)
        #expect(
            try f.call("DELETE", "/v1/experiences/1", token: f.admin, headers: [("If-Match", "\"e1-v3\""), ("If-Match", "\"e1-v4\"")])
                .status == 204)
    }

    @Test(arguments: APITransport.allCases) func cursorPaginationVisitsEveryItemOnce(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        for i in 0..<5 {
            #expect(
                try f.call(
                    "POST", "/v1/experiences", token: f.admin,
                    json: #"{"url":"https://p.example/\#(i)","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S"}"#
                ).status == 201)
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let r = try f.call("GET", "/v1/experiences?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: f.admin)
            let page = try f.jsonOf(r)
            seen += page["items"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
            cursor = page["nextCursor"]?.stringValue
            if cursor != nil { #expect(r.headers["Link"]?.contains("rel=\"next\"") == true) }
            pages += 1
        } while cursor != nil && pages < 10
        #expect(seen.count == 7 && Set(seen).count == 7 && seen == seen.sorted())
        #expect(try f.call("GET", "/v1/experiences?cursor=garbage!", token: f.admin).status == 400)
        #expect(try f.call("GET", "/v1/experiences?limit=0", token: f.admin).status == 422)
    }

    @Test(arguments: APITransport.allCases) func importIsAllOrNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let bad =
            "{\"url\":\"https://i.example/1\",\"clip\":\"ABCDE12345.com.a.app.Clip\",\"title\":\"T\",\"subtitle\":\"S\"}\n{\"url\":\"https://i.example/2\"}\n"
        let r = try f.call("POST", "/v1/experiences/import", token: f.admin, headers: [("Content-Type", "application/x-ndjson")], json: bad)
        #expect(r.status == 422)
        // Each error names its line in a key of its own, the field stays the field.
        #expect(
            try f.jsonOf(r)["errors"]?.arrayValue?.map { [$0["line"], $0["field"], $0["rule"]] } == [
                [2, "clip", "required"], [2, "title", "required"],
            ])
        #expect(try f.call("GET", "/v1/resolve?url=\(q("https://i.example/1"))").status == 404, "nothing was written")
        let csv = "url,clip,title,subtitle\nhttps://i.example/1,ABCDE12345.com.a.app.Clip,T,S\n"
        let ok = try f.call("POST", "/v1/experiences/import", token: f.admin, headers: [("Content-Type", "text/csv")], json: csv)
        #expect(ok.status == 200 && f.parsed(ok)["imported"] == 1)
        #expect(try f.call("POST", "/v1/experiences/import", token: f.admin, json: "{}").status == 415)
    }

    /// The read model asks SQLite whether the file changed at most once a millisecond (docs/architecture.md, the
    /// read model): a write by another connection is visible to the first request a millisecond after its commit.
    @Test(arguments: APITransport.allCases) func aWriteElsewhereIsVisibleAMillisecondAfterItsCommit(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        #expect(try f.call("GET", "/v1/resolve?url=\(q("https://z.example/"))").status == 404)
        let other = try Registry(path: f.path)
        _ = try other.register(
            try JSONParser.parse(#"{"url":"https://z.example/","clip":"ABCDE12345.com.a.app.Clip","title":"Z","subtitle":"S"}"#))
        usleep(1_500)
        #expect(try f.call("GET", "/v1/resolve?url=\(q("https://z.example/x"))").status == 200)
    }

    @Test(arguments: APITransport.allCases) func oversizedBodiesAre413AndTheServerGoesOn(_ transport: APITransport) throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1000
        let f = try APIFixture(transport, limits: limits)
        let r = try f.call("POST", "/v1/experiences", token: f.admin, json: String(repeating: " ", count: 2000))
        #expect(r.status == 413)
        #expect(try f.call("GET", "/healthz").status == 200)
    }
}

/// Which requests the server answers on its event loop (from memory).
struct InlineRoutingTests {
    @Test func onlyMemoryReadsRunOnTheEventLoop() throws {
        let api = ClipAPI(pool: try RegistryPool(path: try APIFixture(.inProcess).path), log: { _ in })
        func inline(_ method: String, _ target: String) -> Bool { api.answersFromMemory(HTTPRequest(method: method, target: target)) }
        #expect(inline("GET", "/v1/resolve?url=x"))
        #expect(inline("HEAD", "/.well-known/apple-app-site-association"))
        #expect(inline("GET", "/v1/resolve?url=x&explained=1"))
        #expect(!inline("GET", "/v1/resolve?url=x&explain=true"))
        #expect(!inline("GET", "/v1/resolve?explain&url=x"))
        #expect(!inline("POST", "/v1/resolve?url=x"))
        #expect(!inline("GET", "/v1/experiences"))
    }
}
