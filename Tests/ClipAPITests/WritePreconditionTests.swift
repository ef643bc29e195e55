import ClipAPI
import Foundation
import HTTP1
import Testing

/// The preconditions of PATCH and DELETE, and of the writes on what has no entity tag (found by
/// hostile QA: `If-None-Match: *` and `If-Match` were ignored there and the write went ahead). Every
/// refused request leaves the database as it was (`tableDump`).
@Suite(.serialized) struct WritePreconditionTests {
    /// RFC 9110 §13.1.2: on a state-changing request `If-None-Match: *` is false when the target has
    /// a current representation, which a PATCH or DELETE needs to succeed: 412, nothing written.
    @Test(arguments: APITransport.allCases) func ifNoneMatchStarChangesNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        _ = try f.call("PUT", "/v1/domains/a.example/applinks/com.a.app", token: f.teamA, json: #"{"components":[{"/":"/x/*"}]}"#)
        _ = try f.call("PUT", "/v1/domains/a.example/webcredentials/com.a.app", token: f.teamA)
        _ = try f.call("PUT", "/v1/domains/a.example/teams/FGHIJ67890", token: f.admin)
        _ = try f.call(
            "PUT", "/v1/clips/com.a.app.Clip/default-experience", token: f.teamA,
            json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#)
        let writes: [(String, String, String?)] = [
            ("PATCH", "/v1/experiences/1", #"{"status":"DEACTIVATED"}"#),
            ("PATCH", "/v1/apps/com.a.app", #"{"name":"Renamed"}"#),
            ("DELETE", "/v1/experiences/1", nil),
            ("DELETE", "/v1/domains/a.example/applinks/com.a.app", nil),
            ("DELETE", "/v1/domains/a.example/webcredentials/com.a.app", nil),
            ("DELETE", "/v1/domains/a.example/teams/FGHIJ67890", nil),
            ("DELETE", "/v1/clips/com.a.app.Clip/default-experience", nil),
            ("DELETE", "/v1/clips/com.a.app.Clip/domains/a.example", nil),
            ("DELETE", "/v1/clips/com.a.app.Clip", nil),
        ]
        let before = try tableDump(f.path)
        for (method, path, body) in writes {
            // The same request twice: refused both times.
            for _ in 0..<2 {
                let r = try f.call(method, path, token: f.admin, headers: [("If-None-Match", "*")], json: body)
                #expect(r.status == 412, "\(method) \(path): \(r.status) \(r.text)")
                #expect(try tableDump(f.path) == before, "\(method) \(path)")
            }
        }
        // A tag naming the current version is false too; another version's, true: the write goes ahead.
        let current = try f.call("PATCH", "/v1/experiences/1", token: f.teamA, headers: [("If-None-Match", "W/\"e1-v1\"")], json: "{}")
        #expect(current.status == 412, "\(current.text)")
        #expect(try tableDump(f.path) == before)
        let other = try f.call(
            "PATCH", "/v1/experiences/1", token: f.teamA, headers: [("If-None-Match", "\"e1-v9\"")], json: #"{"status":"DEACTIVATED"}"#)
        #expect(other.status == 200, "\(other.text)")
        let removed = try f.call(
            "DELETE", "/v1/domains/a.example/webcredentials/com.a.app", token: f.teamA, headers: [("If-None-Match", "\"z\"")])
        #expect(removed.status == 204, "\(removed.text)")
        // A missing target is not found, preconditions or not (RFC 9110 §13.2.1).
        #expect(try f.call("DELETE", "/v1/experiences/99", token: f.admin, headers: [("If-None-Match", "*")]).status == 404)
    }

    /// RFC 9110 §13.1.1: `If-Match` with tags never matches what has no entity tag (a host's
    /// applinks settings, its generation switch, a webcredentials entry, an owner, a team's grant):
    /// 412, nothing written, where the PUT used to write regardless. `If-Match: *` and
    /// `If-None-Match: *` depend on whether the target exists, which these PUTs cannot tell: 412 too.
    @Test(arguments: APITransport.allCases) func ifMatchOnWhatHasNoEntityTagWritesNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        _ = try f.call("PUT", "/v1/domains/a.example/webcredentials/com.a.app", token: f.teamA)
        let puts: [(String, String?)] = [
            ("/v1/domains/a.example/applinks-settings", #"{"defaults":{"caseSensitive":false}}"#),
            ("/v1/domains/a.example/applinks-generation", #"{"fromExperiences":true}"#),
            ("/v1/domains/a.example/webcredentials/com.a.app", nil),
            ("/v1/domains/login.a.example/webcredentials/com.a.app", nil),
            ("/v1/domains/fresh.example/owner", #"{"team":"ABCDE12345"}"#),
            ("/v1/domains/a.example/teams/FGHIJ67890", nil),
            ("/v1/clips/com.a.app.Clip/domains/fresh.example", nil),
        ]
        let before = try tableDump(f.path)
        for (path, body) in puts {
            for header in [("If-Match", "\"stale\""), ("If-Match", "*"), ("If-Match", "W/\"x\""), ("If-None-Match", "*")] {
                let r = try f.call("PUT", path, token: f.admin, headers: [header], json: body)
                #expect(r.status == 412, "PUT \(path) \(header): \(r.status) \(r.text)")
                #expect(try tableDump(f.path) == before, "PUT \(path) \(header)")
            }
        }
        // A DELETE's If-Match with tags is false on the same grounds; `*` holds for what exists.
        let stale = try f.call(
            "DELETE", "/v1/domains/a.example/webcredentials/com.a.app", token: f.teamA, headers: [("If-Match", "\"w-v1\"")])
        #expect(stale.status == 412, "\(stale.text)")
        #expect(try tableDump(f.path) == before)
        // Without a precondition, or with If-None-Match naming a tag (none can match), they write.
        let settings = try f.call(
            "PUT", "/v1/domains/a.example/applinks-settings", token: f.admin, headers: [("If-None-Match", "\"x\"")],
            json: #"{"defaults":{"caseSensitive":false}}"#)
        #expect(settings.status == 200, "\(settings.text)")
        let star = try f.call("DELETE", "/v1/domains/a.example/webcredentials/com.a.app", token: f.teamA, headers: [("If-Match", "*")])
        #expect(star.status == 204, "\(star.text)")
    }

    /// A default experience has an entity tag (`d-vN`): its DELETE's `If-Match` is read against it,
    /// a stale one refused (412, nothing written), the current one honoured.
    @Test(arguments: APITransport.allCases) func aDefaultExperiencesDeleteHonoursItsTag(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let path = "/v1/clips/com.a.app.Clip/default-experience"
        _ = try f.call("PUT", path, token: f.teamA, json: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"Hi"}}}"#)
        let saved = try f.call(
            "PUT", path, token: f.teamA, json: #"{"action":"VIEW","localizations":{"en-US":{"subtitle":"Hello"}}}"#)
        let tag = try #require(saved.headers["ETag"])
        #expect(tag == "\"d-v2\"", "\(tag)")
        let before = try tableDump(f.path)
        for _ in 0..<2 {
            let stale = try f.call("DELETE", path, token: f.teamA, headers: [("If-Match", "\"d-v1\"")])
            #expect(stale.status == 412, "\(stale.text)")
            #expect(try tableDump(f.path) == before)
        }
        let current = try f.call("DELETE", path, token: f.teamA, headers: [("If-Match", tag)])
        #expect(current.status == 204, "\(current.text)")
        #expect(try f.call("GET", path, token: f.teamA).status == 404)
        // Gone, a precondition or not: not found (RFC 9110 §13.2.1).
        #expect(try f.call("DELETE", path, token: f.teamA, headers: [("If-Match", tag)]).status == 404)
    }
}
