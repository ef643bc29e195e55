import ClipStore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// A restore under a running server: its answers after the restore (README, Reliability).
struct RestoreAPITests {
    @Test(arguments: APITransport.allCases)
    func afterARestoreRevokedTokensStayRevokedAndStaleETagsNameNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let registry = try Registry(path: f.path)
        let old = f.path + ".old"
        try registry.backup(to: old)
        let created = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/late","clip":"ABCDE12345.com.a.app.Clip","title":"Late","subtitle":"After the backup"}"#)
        #expect(created.status == 201 && created.headers["ETag"] == "\"e3-v1\"")
        #expect(try f.call("DELETE", "/v1/tokens/3", token: f.admin).status < 300, "team B's token is revoked after the backup")
        let feed = try f.jsonOf(try f.call("GET", "/v1/changes", token: f.admin))
        guard case .integer(let since) = feed["items"]?.arrayValue?.last?["id"] else { Issue.record("no change id: \(feed)"); return }

        _ = try registry.restore(from: old)
        #expect(try f.call("GET", "/v1/experiences", token: f.teamB).status == 401, "the revoked token does not come back")
        let next = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://a.example/next","clip":"ABCDE12345.com.a.app.Clip","title":"Next","subtitle":"After the restore"}"#)
        #expect(next.status == 201 && next.headers["ETag"] == "\"e4-v1\"", "id 3 was handed out before the restore")
        let stale = try f.call(
            "PATCH", "/v1/experiences/3", token: f.admin, headers: [("If-Match", "\"e3-v1\"")], json: #"{"subtitle":"Stale"}"#)
        #expect(stale.status == 404 || stale.status == 412)
        let after = try f.jsonOf(try f.call("GET", "/v1/changes?since=\(since)", token: f.admin))["items"]?.arrayValue ?? []
        #expect(
            after.first?["action"] == "restore" && after.count == 2, "a consumer polling since=\(since) sees the restore and what followed")
    }
}
