import ClipAPI
import Foundation
import HTTP1
import StrictJSON
import Testing

/// The PUT upserts' preconditions, media types and clip references, as a client sees them; every
/// refused request leaves the database as it was (`tableDump`).
@Suite(.serialized) struct PutPreconditionTests {
    /// RFC 9110 §13.1.1: `If-Match: *` is false when there is no current representation, so a PUT
    /// with it creates nothing; §13.1.2: `If-None-Match: *` is false when there is one, so a
    /// "create only" PUT never overwrites.
    @Test(arguments: APITransport.allCases)
    func ifMatchStarCreatesNothingAndIfNoneMatchStarOverwritesNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let star: [(String, String)] = [("If-Match", "*")], noneStar: [(String, String)] = [("If-None-Match", "*")]
        // Missing resources: If-Match: * is 412 and writes nothing.
        let missing: [(String, String)] = [
            ("/v1/apps/com.x.missing", #"{"team":"ABCDE12345"}"#),
            ("/v1/clips/com.a.app.Missing", #"{"team":"ABCDE12345"}"#),
            ("/v1/clips/com.a.app.Clip/default-experience", #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#),
            ("/v1/domains/a.example/applinks/com.a.app", #"{"components":[{"/":"/x/*"}]}"#),
        ]
        var before = try tableDump(f.path)
        for (path, body) in missing {
            let r = try f.call("PUT", path, token: f.admin, headers: star, json: body)
            #expect(r.status == 412, "\(path): \(r.status) \(r.text)")
            #expect(try tableDump(f.path) == before, "\(path)")
        }
        // If-None-Match: * creates them (201, or 200 where the route has no 201) …
        for (path, body) in missing {
            let r = try f.call("PUT", path, token: f.admin, headers: noneStar, json: body)
            #expect((200...201).contains(r.status), "\(path): \(r.text)")
        }
        // … and then, with a different body, overwrites none of them (412, nothing written).
        let changed: [(String, String)] = [
            ("/v1/apps/com.x.missing", #"{"team":"ABCDE12345","name":"Clobbered"}"#),
            ("/v1/clips/com.a.app.Missing", #"{"team":"ABCDE12345"}"#),
            ("/v1/clips/com.a.app.Clip/default-experience", #"{"action":"VIEW","localizations":{"en-US":{"subtitle":"Clobbered"}}}"#),
            ("/v1/domains/a.example/applinks/com.a.app", #"{"components":[{"/":"/clobbered/*"}]}"#),
        ]
        before = try tableDump(f.path)
        for (path, body) in changed {
            let r = try f.call("PUT", path, token: f.admin, headers: noneStar, json: body)
            #expect(r.status == 412, "\(path): \(r.status) \(r.text)")
            #expect(try tableDump(f.path) == before, "\(path)")
        }
        // If-None-Match naming the current ETag is 412 too; naming another version, the write goes ahead.
        #expect(
            try f.call(
                "PUT", "/v1/apps/com.x.missing", token: f.admin, headers: [("If-None-Match", "W/\"a-v1\"")],
                json: #"{"team":"ABCDE12345","name":"N"}"#
            ).status == 412)
        #expect(try tableDump(f.path) == before)
        #expect(
            try f.call(
                "PUT", "/v1/apps/com.x.missing", token: f.admin, headers: [("If-None-Match", "\"a-v7\"")],
                json: #"{"team":"ABCDE12345","name":"N"}"#
            ).status == 200)
        // If-Match naming a version the resource is not at: 412 on every route, nothing written.
        let stale: [(String, String, String)] = [
            ("/v1/apps/com.x.missing", "\"a-v1\"", #"{"team":"ABCDE12345","name":"Stale"}"#),
            ("/v1/clips/com.a.app.Missing", "\"c-v5\"", #"{"team":"ABCDE12345"}"#),
            (
                "/v1/clips/com.a.app.Clip/default-experience", "\"d-v9\"",
                #"{"action":"VIEW","localizations":{"en-US":{"subtitle":"Stale"}}}"#
            ),
            ("/v1/domains/a.example/applinks/com.a.app", "\"l-v3\"", #"{"components":[{"/":"/stale/*"}]}"#),
            // Applinks have no entity tag: no tag matches them, not even one made up to look current
            // (found by hostile QA: "l-v0" let every stale write through).
            ("/v1/domains/a.example/applinks/com.a.app", "\"l-v0\"", #"{"components":[{"/":"/stale/*"}]}"#),
        ]
        before = try tableDump(f.path)
        for (path, tag, body) in stale {
            let r = try f.call("PUT", path, token: f.admin, headers: [("If-Match", tag)], json: body)
            #expect(r.status == 412, "\(path) If-Match \(tag): \(r.status) \(r.text)")
        }
        #expect(try tableDump(f.path) == before)
        // If-Match: * on an existing resource lets the write through.
        let updated = try f.call("PUT", "/v1/apps/com.x.missing", token: f.admin, headers: star, json: #"{"team":"ABCDE12345","name":"M"}"#)
        #expect(try updated.status == 200 && f.jsonOf(updated)["name"] == "M", "\(updated.text)")
        let d = try f.call(
            "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.teamA, headers: star,
            json: #"{"action":"VIEW","localizations":{"en-US":{"subtitle":"Hey"}}}"#)
        #expect(d.status == 200 && d.headers["ETag"] == "\"d-v2\"", "\(d.text)")
    }

    /// Another team's object answers the same with or without preconditions: the version of team
    /// A's app never reaches team B (the PATCH answers 404; the PUT says the bundle ID is taken).
    @Test(arguments: APITransport.allCases) func preconditionsTellNothingOfAnotherTeamsObjects(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        _ = try f.call(
            "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.teamA,
            json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#)
        let before = try tableDump(f.path)
        let plain = try f.call("PUT", "/v1/apps/com.a.app", token: f.teamB, json: #"{"name":"Hijacked"}"#)
        for header in [("If-Match", "\"a-v9\""), ("If-Match", "\"a-v1\""), ("If-Match", "*"), ("If-None-Match", "*")] {
            let r = try f.call("PUT", "/v1/apps/com.a.app", token: f.teamB, headers: [header], json: #"{"name":"Hijacked"}"#)
            #expect(r.status == plain.status && r.body == plain.body, "\(header): \(r.text)")
            #expect(!r.text.contains("version") && !r.text.contains("ABCDE12345"), "\(r.text)")
            let clip = try f.call("PUT", "/v1/clips/com.a.app.Clip", token: f.teamB, headers: [header], json: "{}")
            #expect(clip.status == 409 && !clip.text.contains("ABCDE12345"), "\(header): \(clip.text)")
            for path in ["/v1/clips/com.a.app.Clip/default-experience", "/v1/domains/a.example/applinks/com.a.app"] {
                let body =
                    path.hasSuffix("default-experience")
                    ? #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"x"}}}"#
                    : #"{"components":[{"/":"/x/*"}]}"#
                #expect(try f.call("PUT", path, token: f.teamB, headers: [header], json: body).status == 404, "\(path) \(header)")
            }
        }
        #expect(plain.status == 409)
        #expect(try tableDump(f.path) == before)
    }

    /// Every PUT answers 415 to a body that is not JSON, as POST and PATCH do; the routes that read
    /// no body accept none (an empty body, whatever its type) and ignore a JSON one.
    @Test(arguments: APITransport.allCases) func putsRefuseBodiesThatAreNotJSON(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let puts: [(String, String)] = [
            ("/v1/apps/com.x.app", #"{"team":"ABCDE12345"}"#),
            ("/v1/clips/com.a.app.Other", "{}"),
            ("/v1/clips/com.a.app.Clip/domains/fresh.example", "{}"),
            ("/v1/clips/com.a.app.Clip/default-experience", #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#),
            ("/v1/domains/a.example/applinks/com.a.app", #"{"components":[{"/":"/x/*"}]}"#),
            ("/v1/domains/a.example/applinks-settings", #"{"defaults":{"caseSensitive":false}}"#),
            ("/v1/domains/a.example/applinks-generation", #"{"fromExperiences":true}"#),
            ("/v1/domains/login.a.example/webcredentials/com.a.app", "{}"),
            ("/v1/domains/fresh.example/owner", #"{"team":"ABCDE12345"}"#),
            ("/v1/domains/a.example/teams/FGHIJ67890", "{}"),
        ]
        let before = try tableDump(f.path)
        for (path, body) in puts {
            for type in ["text/plain", "application/x-www-form-urlencoded"] {
                let r = try f.call("PUT", path, token: f.admin, headers: [("Content-Type", type)], json: body)
                #expect(r.status == 415, "\(path) as \(type): \(r.status) \(r.text)")
            }
            let untyped = try f.client.send("PUT", path, headers: [("Authorization", "Bearer \(f.admin)")], body: Array(body.utf8))
            #expect(untyped.status == 415, "\(path) without Content-Type: \(untyped.status) \(untyped.text)")
        }
        #expect(try tableDump(f.path) == before)
        // No body where none is read: fine.
        let typed: [(String, String)] = [("Content-Type", "text/plain")]
        #expect(try f.call("PUT", "/v1/clips/com.a.app.Clip/domains/fresh.example", token: f.admin, headers: typed).status == 201)
        #expect(try f.call("PUT", "/v1/domains/login.a.example/webcredentials/com.a.app", token: f.admin).status == 201)
    }

    /// The clip routes take a clip as local mode does: an App ID (whose team must be the clip's)
    /// or a bundle ID. An App ID with another team's prefix is not found: never acted on.
    @Test(arguments: APITransport.allCases) func clipRoutesTakeAnAppIDWithItsTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let foreign = "/v1/clips/ABCDE12345.com.b.app.Clip"  // team A's prefix, team B's clip
        let before = try tableDump(f.path)
        let writes: [(String, String, String?)] = [
            ("PUT", foreign + "/domains/fresh1.example", nil), ("DELETE", foreign + "/domains/b.example", nil),
            ("DELETE", foreign + "/default-experience", nil), ("DELETE", foreign, nil),
            ("PUT", foreign + "/default-experience", #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"x"}}}"#),
        ]
        for (method, path, body) in writes {
            for token in [f.admin, f.teamA, f.teamB] {
                let r = try f.call(method, path, token: token, json: body)
                #expect(r.status == 404, "\(method) \(path): \(r.status) \(r.text)")
                // A team never learns whose the clip is; an administrator reads the store's reason.
                #expect(r.text.contains("another team") == (token == f.admin), "\(r.text)")
            }
        }
        #expect(try f.call("GET", foreign, token: f.admin).status == 404)
        #expect(try tableDump(f.path) == before)
        // The right App ID, or the bundle ID, reaches the clip.
        let byAppID = try f.call("GET", "/v1/clips/FGHIJ67890.com.b.app.Clip", token: f.teamB)
        #expect(try f.jsonOf(byAppID)["clip"] == "FGHIJ67890.com.b.app.Clip")
        #expect(try f.call("GET", "/v1/clips/com.b.app.Clip", token: f.teamB).status == 200)
        let added = try f.call("PUT", "/v1/clips/FGHIJ67890.com.b.app.Clip/domains/fresh2.example", token: f.teamB)
        #expect(added.status == 201, "\(added.text)")
        #expect(try f.call("DELETE", "/v1/clips/FGHIJ67890.com.b.app.Clip/domains/fresh2.example", token: f.teamB).status == 204)
    }

    /// PUT /v1/clips/{App ID}: the App ID names the clip and its team; it never becomes an app
    /// named after the App ID.
    @Test(arguments: APITransport.allCases) func clipUpsertByAppIDCreatesThatClip(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let created = try f.call("PUT", "/v1/clips/ABCDE12345.com.example.bikes.Clip", token: f.admin, json: "{}")
        #expect(created.status == 201, "\(created.text)")
        let clip = try f.jsonOf(created)
        #expect(clip["clip"] == "ABCDE12345.com.example.bikes.Clip" && clip["team"] == "ABCDE12345")
        #expect(
            clip["notes"] == [
                "created app com.example.bikes (team ABCDE12345)",
                "app com.example.bikes has no name, which its default card shows: clipctl app set com.example.bikes --team ABCDE12345 --name NAME",
                "created clip ABCDE12345.com.example.bikes.Clip",
            ])
        #expect(try f.call("GET", "/v1/apps/ABCDE12345.com.example.bikes", token: f.admin).status == 404)
        let again = try f.call("PUT", "/v1/clips/ABCDE12345.com.example.bikes.Clip", token: f.teamA, json: #"{"team":"ABCDE12345"}"#)
        #expect(again.status == 200)
        // A body naming another team than the path's App ID is a field error; a team token
        // naming another team's App ID is refused; nothing changes.
        let before = try tableDump(f.path)
        let mismatch = try f.call("PUT", "/v1/clips/ABCDE12345.com.example.trikes.Clip", token: f.admin, json: #"{"team":"FGHIJ67890"}"#)
        #expect(mismatch.status == 422 && mismatch.text.contains("team.mismatch"), "\(mismatch.text)")
        #expect(try f.call("PUT", "/v1/clips/ABCDE12345.com.example.trikes.Clip", token: f.teamB, json: "{}").status == 403)
        #expect(try f.call("PUT", "/v1/clips/FGHIJ67890.com.example.bikes.Clip", token: f.teamB, json: "{}").status == 409)
        #expect(try tableDump(f.path) == before)
    }

    /// Change records keep what was there before, and record the teams a write creates.
    @Test(arguments: APITransport.allCases) func changeRecordsKeepTheBeforeAndTheTeamsCreated(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let start = try f.jsonOf(try f.call("GET", "/v1/changes?limit=1000", token: f.admin))["items"]?.arrayValue?.count ?? 0
        _ = try f.call("PUT", "/v1/domains/a.example/applinks/com.a.app", token: f.teamA, json: #"{"components":[{"/":"/one/*"}]}"#)
        _ = try f.call("PUT", "/v1/domains/a.example/applinks/com.a.app", token: f.teamA, json: #"{"components":[{"/":"/two/*"}]}"#)
        _ = try f.call("DELETE", "/v1/domains/a.example/applinks/com.a.app", token: f.teamA)
        _ = try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.teamA, json: #"{"fromExperiences":true}"#)
        _ = try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.teamA, json: #"{"fromExperiences":false}"#)
        _ = try f.call("PUT", "/v1/domains/login.a.example/webcredentials/com.a.app", token: f.teamA)
        _ = try f.call("DELETE", "/v1/domains/login.a.example/webcredentials/com.a.app", token: f.teamA)
        let app = try f.call("PUT", "/v1/apps/com.new.app", token: f.admin, json: #"{"team":"NEWTE12345"}"#)
        #expect(try f.jsonOf(app)["notes"] == ["created team NEWTE12345", "created app com.new.app (team NEWTE12345)"])
        let token = try f.call("POST", "/v1/tokens", token: f.admin, json: #"{"name":"n","team":"OTHER12345"}"#)
        #expect(try f.jsonOf(token)["notes"] == ["created team OTHER12345"])
        let again = try f.call("POST", "/v1/tokens", token: f.admin, json: #"{"name":"n2","team":"OTHER12345"}"#)
        #expect(try f.jsonOf(again)["notes"] == nil)
        let listed = try f.jsonOf(try f.call("GET", "/v1/changes?limit=1000", token: f.admin))["items"]?.arrayValue ?? []
        let summary = listed.dropFirst(start).map { r in
            let change = "\(r["action"]?.stringValue ?? "") \(r["entity"]?.stringValue ?? "")"
            return "\(change) \(JSONWriter.string(r["before"] ?? .null)) → \(JSONWriter.string(r["after"] ?? .null))"
        }
        let one = #"{"components":[{"/":"/one/*"}],"defaults":null,"position":0}"#
        let two = #"{"components":[{"/":"/two/*"}],"defaults":null,"position":0}"#
        let expected = [
            "create applinks null → \(one)", "update applinks \(one) → \(two)", "remove applinks \(two) → null",
            #"update applinks-generation {"fromExperiences":false} → {"fromExperiences":true}"#,
            #"update applinks-generation {"fromExperiences":true} → {"fromExperiences":false}"#,
            #"claim host null → {"team":"ABCDE12345","role":"owner","origin":"first-use"}"#,
            #"create webcredentials null → {"host":"login.a.example","app":"com.a.app"}"#,
            #"remove webcredentials {"host":"login.a.example","app":"com.a.app"} → null"#,
            #"create team null → {"id":"NEWTE12345"}"#,
        ]
        #expect(Array(summary.prefix(expected.count)) == expected, "\(summary)")
        #expect(summary.contains { $0.hasPrefix(#"create team null → {"id":"OTHER12345"}"#) }, "\(summary)")
    }

    /// nextSince only when records follow: a page that ends at the last record has none.
    @Test(arguments: APITransport.allCases) func changesSayNextSinceOnlyWhenMoreFollow(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let all = try f.jsonOf(try f.call("GET", "/v1/changes?limit=1000", token: f.admin))
        let count = all["items"]?.arrayValue?.count ?? 0
        #expect(count >= 3 && all["nextSince"] == .null)
        #expect(try f.jsonOf(try f.call("GET", "/v1/changes?limit=\(count)", token: f.admin))["nextSince"] == .null)
        let page = try f.jsonOf(try f.call("GET", "/v1/changes?limit=\(count - 1)", token: f.admin))
        #expect(page["nextSince"] == page["items"]?.arrayValue?.last?["id"])
    }
}
