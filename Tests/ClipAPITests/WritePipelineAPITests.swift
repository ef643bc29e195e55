import Foundation
import HTTP1
import SQLiteDB
import StrictJSON
import Testing
import ClipApp
@testable import ClipAPI

/// What the HTTP API's clients see of the write pipeline (docs/architecture.md#the-path-of-a-write).
@Suite(.serialized) struct WritePipelineAPITests {
    /// A failure of the database is the server's business: the client gets a 500 with a generic
    /// detail, never SQLite's message or a file path; the log gets both.
    @Test(arguments: APITransport.allCases) func aStorageFailureIsLoggedNotSent(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let other = try Connection(path: f.path)
        try other.execute("ALTER TABLE change_record RENAME TO change_record_elsewhere")
        other.close()
        let failed = try f.call("GET", "/v1/changes", token: f.admin)
        #expect(failed.status == 500, "\(failed.text)")
        #expect(try f.jsonOf(failed)["detail"]?.stringValue == Problem.storageDetail)
        for secret in ["change_record", "no such table", "SQLite", "database error", f.path, "clips.db"] {
            #expect(!failed.text.contains(secret), "\(secret) in \(failed.text)")
        }
        let logged = f.logLines.all.filter { $0.contains(#""msg":"storage""#) }
        #expect(logged.count == 1 && logged.first?.contains("no such table: change_record") == true, "\(f.logLines.all)")
    }

    /// Read after write: a write through the API is answered from the read model by the very next
    /// request, the served AASA and resolve alike, with no nudge from the HTTP layer.
    @Test(arguments: APITransport.allCases) func theNextReadSeesTheWrite(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let etag = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "c.example")])
        #expect(etag.status == 404)
        let created = try f.call(
            "POST", "/v1/experiences", token: f.admin,
            json: #"{"url":"https://c.example/new","clip":"ABCDE12345.com.a.app.Clip","title":"New","subtitle":"Here"}"#)
        #expect(created.status == 201, "\(created.text)")
        let resolved = try f.call("GET", "/v1/resolve?url=https://c.example/new/1")
        #expect(resolved.status == 200 && resolved.text.contains(#""url":"https://c.example/new""#), "\(resolved.text)")
        let aasa = try f.call("GET", "/.well-known/apple-app-site-association", headers: [("Host", "c.example")])
        #expect(aasa.status == 200 && aasa.text.contains("ABCDE12345.com.a.app.Clip"), "\(aasa.text)")
        guard case .integer(let id)? = try f.jsonOf(created)["id"] else { Issue.record("no id: \(created.text)"); return }
        let removed = try f.call("DELETE", "/v1/experiences/\(id)", token: f.admin)
        #expect(removed.status == 204 || removed.status == 200, "\(removed.text)")
        #expect(try f.call("GET", "/v1/resolve?url=https://c.example/new/1").status == 404)
    }
}
