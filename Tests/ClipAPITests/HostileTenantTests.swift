import ClipAPI
import ClipApp
import ClipCore
import ClipStore
import Foundation
import HTTP1
import SQLiteDB
import StrictJSON
import TestSupport
import Testing

/// Every table's rows, with the one column a refused request may still touch (a token's
/// last_used_at, minute resolution) left out: a refused operation must change nothing else.
func tableDump(_ path: String) throws -> [String] {
    let db = try Connection(path: path)
    defer { db.close() }
    var lines: [String] = []
    for table in try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map({ try $0.string("name") }) {
        let query =
            table == "api_token"
            ? "SELECT id, name, team_id, secret_sha256, created_at, revoked_at FROM api_token" : "SELECT * FROM \(table)"
        for row in try db.query(query) { lines.append("\(table): \(row.values)") }
    }
    return lines
}

/// A hostile tenant (docs/rules.md#host-ownership): team B (FGHIJ67890) goes after a.example, which team A
/// (ABCDE12345) uses, through every write path; so does an administrator acting for team B.
@Suite(.serialized) struct HostileTenantTests {
    @Test(arguments: APITransport.allCases) func anotherTeamCannotTakeAHostThroughAnyWritePath(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let aasaBefore = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")]).body
        let before = try tableDump(f.path)
        let ndjson = #"{"url":"https://a.example/","clip":"FGHIJ67890.com.b.app.Clip","title":"Mine","subtitle":"Now"}"#
        // (method, path, body, content type): each is team B's own object placed on team A's host.
        let attacks: [(String, String, String?, String)] = [
            ("POST", "/v1/experiences", ndjson, "application/json"),
            (
                "POST", "/v1/experiences",
                #"{"url":"https://A.EXAMPLE.:443/","clip":"FGHIJ67890.com.b.app.Clip","title":"Mine","subtitle":"Now"}"#, "application/json"
            ),
            ("PUT", "/v1/clips/com.b.app.Clip/domains/a.example", nil, "application/json"),
            ("PUT", "/v1/clips/com.b.app.Clip/domains/A.Example.", nil, "application/json"),
            ("PATCH", "/v1/experiences/2", #"{"url":"https://a.example/"}"#, "application/json"),
            ("PUT", "/v1/domains/a.example/applinks/com.b.app", #"{"components":[{"/":"*"}]}"#, "application/json"),
            ("PUT", "/v1/domains/a.example/webcredentials/com.b.app", nil, "application/json"),
            ("PUT", "/v1/domains/a.example/applinks-settings", #"{"defaults":{"caseSensitive":false}}"#, "application/json"),
            ("PUT", "/v1/domains/a.example/applinks-generation", #"{"fromExperiences":true}"#, "application/json"),
            ("POST", "/v1/experiences/import", ndjson, "application/x-ndjson"),
        ]
        for (method, path, body, type) in attacks {
            for (who, token) in [("team B", f.teamB), ("admin", f.admin)] {
                // An administrator may change host-wide settings: those are not a team's object.
                if who == "admin" && path.hasSuffix("-settings") || who == "admin" && path.hasSuffix("-generation") { continue }
                for attempt in 1...2 {  // the same request twice: refused both times
                    let r = try f.call(method, path, token: token, headers: [("Content-Type", type)], json: body ?? "")
                    #expect(r.status == 403, "\(method) \(path) as \(who), attempt \(attempt): \(r.status) \(r.text)")
                    // Only an administrator learns which team holds the host.
                    #expect(
                        r.text.contains("ABCDE12345") == (who == "admin" && !path.hasSuffix("/import")),
                        "\(method) \(path) as \(who): \(r.text)")
                    #expect(try tableDump(f.path) == before, "\(method) \(path) as \(who) changed the database")
                }
            }
        }
        // The victim's AASA and answers are untouched.
        #expect(try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "a.example")]).body == aasaBefore)
        #expect(
            f.parsed(try f.call("GET", "/v1/resolve?url=\(q("https://a.example/store/1"))"))["experience"]?["clip"]
                == "ABCDE12345.com.a.app.Clip")
        // The refused import says which line and why, with the line as its own member.
        let refusedImport = try f.call(
            "POST", "/v1/experiences/import", token: f.teamB, headers: [("Content-Type", "application/x-ndjson")], json: ndjson)
        #expect(f.parsed(refusedImport)["errors"]?.arrayValue?.first?["rule"] == "host.owner")
    }

    /// Bundle IDs are unique across the registry, so another team's is taken; the answer never
    /// says which team has it.
    @Test(arguments: APITransport.allCases) func refusalsNeverNameAnotherTeam(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try tableDump(f.path)
        let attempts: [(String, String, String, String)] = [
            (
                "POST", "/v1/experiences",
                #"{"url":"https://b.example/new","clip":"FGHIJ67890.com.a.app.Clip","title":"T","subtitle":"S"}"#, "application/json"
            ),
            ("POST", "/v1/clips", #"{"clip":"FGHIJ67890.com.a.app.Clip2"}"#, "application/json"),
            ("POST", "/v1/apps", #"{"bundleId":"com.a.app","team":"FGHIJ67890"}"#, "application/json"),
            (
                "POST", "/v1/experiences/import",
                #"{"url":"https://b.example/n","clip":"FGHIJ67890.com.a.app.Clip","title":"T","subtitle":"S"}"#, "application/x-ndjson"
            ),
            ("GET", "/v1/experiences?clip=FGHIJ67890.com.a.app.Clip", "", "application/json"),
        ]
        for (method, path, body, type) in attempts {
            let r = try f.call(method, path, token: f.teamB, headers: [("Content-Type", type)], json: method == "GET" ? nil : body)
            #expect(!r.text.contains("ABCDE12345"), "\(method) \(path): \(r.status) \(r.text)")
            #expect(!r.text.contains("PATCH"), "\(method) \(path): a hint team B cannot follow: \(r.text)")
            #expect(try tableDump(f.path) == before)
        }
    }

    /// Another team's clip or app, one that does not exist, and one under the wrong team prefix
    /// get the same 404, word for word.
    @Test(arguments: APITransport.allCases) func aMissingAndAnotherTeamsObjectLookAlike(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        func detail(_ path: String, _ raw: String) throws -> String {
            let r = try f.call("GET", path, token: f.teamB)
            #expect(r.status == 404, "\(path)")
            return (f.parsed(r)["detail"]?.stringValue ?? "").replacingOccurrences(of: raw, with: "X")
        }
        let clips = try ["ABCDE12345.com.a.app.Clip", "FGHIJ67890.com.zzz.Clip", "KLMNO13579.com.a.app.Clip", "com.a.app.Clip"].map {
            try detail("/v1/clips/\($0)", $0)
        }
        #expect(Set(clips) == ["not found: clip X"], "\(clips)")
        // Every GET route that names a clip, found from the bindings so that a new route cannot forget the rule
        // (QA: /v1/clips/{clip}/testflight-invocations said "belongs to another team").
        let clipRoutes = Application.bindings.filter { $0.method == "GET" && $0.servesRoute }.map(\.path).filter {
            $0.hasPrefix("/v1/clips/{")
        }
        #expect(clipRoutes.count >= 2, "\(clipRoutes)")
        for route in clipRoutes {
            let parameter = route.split(separator: "/")[2]
            let answers = try ["ABCDE12345.com.a.app.Clip", "FGHIJ67890.com.zzz.Clip", "com.a.app.Clip"].map {
                try detail(route.replacingOccurrences(of: String(parameter), with: $0), $0)
            }
            #expect(Set(answers).count == 1, "\(route): \(answers)")
        }
        let apps = try ["com.a.app", "com.zzz"].map { try detail("/v1/apps/\($0)", $0) }
        #expect(Set(apps) == ["not found: app X"], "\(apps)")
    }

    /// A default experience's header image over the API is named by the hash of an image the team has
    /// (POST /v1/images): another team's image is refused exactly as an unknown hash is, and changes nothing.
    @Test(arguments: APITransport.allCases) func aDefaultExperienceImageIsOneTheTeamHas(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let png = TestImages.png(width: 1800, height: 1200, grey: 0x42)
        let sha = try #require(
            try f.jsonOf(try f.send("POST", "/v1/images", token: f.teamB, contentType: "image/png", bytes: png))["sha256"]?.stringValue)
        let unknown = String(repeating: "a", count: 64)
        func put(_ image: String?) throws -> HTTPClient.Response {
            let member = image.map { #","headerImage":"\#($0)""# } ?? ""
            return try f.call(
                "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.teamA,
                json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"\#(member)}}}"#)
        }
        let before = try tableDump(f.path)
        let stolen = try put(sha), missing = try put(unknown)
        #expect(stolen.status == 422 && f.parsed(stolen)["errors"]?.arrayValue?.first?["rule"] == "headerImage.missing", "\(stolen.text)")
        #expect(stolen.text.replacingOccurrences(of: sha, with: unknown) == missing.text, "no oracle: the same as an unknown hash")
        #expect(try tableDump(f.path) == before)
        // Team A uploads the same bytes: now the image is its own to name.
        #expect(try f.send("POST", "/v1/images", token: f.teamA, contentType: "image/png", bytes: png).status == 201)
        let set = try put(sha)
        #expect(set.status == 201 && f.parsed(set)["localizations"]?["en-US"]?["headerImage"]?.stringValue == sha, "\(set.text)")
        // A GET's answer sent back without the image keeps it.
        let kept = try put(nil)
        #expect(kept.status == 200 && f.parsed(kept)["localizations"]?["en-US"]?["headerImage"]?.stringValue == sha, "\(kept.text)")
    }

    @Test(arguments: APITransport.allCases) func anAdministratorSharesAHostAndThenBothTeamsMayUseIt(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let share = try f.call("PUT", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin)
        #expect(share.status == 201 && f.parsed(share)["teams"]?.arrayValue?.count == 2)
        #expect(try f.call("PUT", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin).status == 200)  // again: no change
        let created = try f.call(
            "POST", "/v1/experiences", token: f.teamB,
            json: #"{"url":"https://a.example/b","clip":"FGHIJ67890.com.b.app.Clip","title":"B","subtitle":"Shared"}"#)
        #expect(created.status == 201, "\(created.text)")
        // A sharer does not govern the host; the owner does.
        #expect(
            try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.teamB, json: #"{"fromExperiences":true}"#).status == 403
        )
        #expect(
            try f.call("PUT", "/v1/domains/a.example/applinks-generation", token: f.teamA, json: #"{"fromExperiences":true}"#).status == 200
        )
        // Each team sees its own entry only.
        let seenByB = f.parsed(try f.call("GET", "/v1/domains/a.example", token: f.teamB))
        #expect(seenByB["teams"]?.arrayValue?.map { $0["team"] } == ["FGHIJ67890"] && seenByB["owner"] == .null)
        // Unsharing waits until team B's objects are gone.
        #expect(try f.call("DELETE", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin).status == 409)
        guard case .integer(let id)? = f.parsed(created)["id"] else { Issue.record("no id: \(created.text)"); return }
        #expect(try f.call("DELETE", "/v1/experiences/\(id)", token: f.teamB).status == 204)
        #expect(try f.call("DELETE", "/v1/clips/com.b.app.Clip/domains/a.example", token: f.teamB).status == 204)
        let unshared = try f.call("DELETE", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin)
        #expect(unshared.status == 200 && f.parsed(unshared)["teams"]?.arrayValue?.count == 1, "\(unshared.text)")
        #expect(f.parsed(unshared)["notes"] == ["team FGHIJ67890 no longer shares a.example"])
        // Again: team B holds nothing there any more.
        #expect(try f.call("DELETE", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin).status == 404)
        #expect(try f.call("PUT", "/v1/clips/com.b.app.Clip/domains/a.example", token: f.teamB).status == 403)
    }

    /// Stale preconditions, retries and missing tokens on team A's own objects: each refusal
    /// leaves the database as it was.
    @Test(arguments: APITransport.allCases) func staleRetriedAndUnauthenticatedWritesChangeNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        #expect(
            try f.call("PATCH", "/v1/experiences/1", token: f.teamA, headers: [("If-Match", "\"e1-v1\"")], json: #"{"subtitle":"First"}"#)
                .status == 200)
        let before = try tableDump(f.path)
        let refused: [(String, String, String?, [(String, String)], String?, Int)] = [
            ("PATCH", "/v1/experiences/1", f.teamA, [("If-Match", "\"e1-v1\"")], #"{"subtitle":"Stale"}"#, 412),
            ("DELETE", "/v1/experiences/1", f.teamA, [("If-Match", "\"e1-v1\"")], nil, 412),
            ("PATCH", "/v1/apps/com.a.app", f.teamA, [("If-Match", "\"a-v9\"")], #"{"name":"Stale"}"#, 412),
            ("PATCH", "/v1/experiences/1", nil, [], #"{"subtitle":"Anonymous"}"#, 401),
            ("PATCH", "/v1/experiences/1", "clip_1_" + String(repeating: "0", count: 64), [], #"{"subtitle":"Forged"}"#, 401),
            (
                "POST", "/v1/experiences", f.teamA, [],
                #"{"url":"https://a.example/store","clip":"ABCDE12345.com.a.app.Clip","title":"Again","subtitle":"Twice"}"#, 409
            ),
            ("PATCH", "/v1/experiences/1", f.teamB, [], #"{"subtitle":"Other team"}"#, 404),
            ("DELETE", "/v1/clips/com.a.app.Clip", f.teamB, [], nil, 404),
            ("PATCH", "/v1/experiences/01", f.teamA, [], #"{"subtitle":"Other spelling"}"#, 404),
            ("DELETE", "/v1/experiences/+1", f.teamA, [], nil, 404),
        ]
        for (method, path, token, headers, body, status) in refused {
            let r = try f.call(method, path, token: token, headers: headers, json: body)
            #expect(r.status == status, "\(method) \(path): \(r.status) \(r.text)")
            #expect(try tableDump(f.path) == before, "\(method) \(path) changed the database")
        }
    }
}
