import Foundation
import HTTP1
import StrictJSON
import TestSupport
import Testing

/// The query of a write that reads a body is its declared fields, each once (docs/http-api.md): a misspelt or repeated
/// `dryRun` on a bulk change or a sync is refused before anything is written, not taken as the confirmation.
struct BulkWriteQueryAPITests {
    @Test(arguments: APITransport.allCases) func aMisspeltOrRepeatedGuardIsRefusedAndWritesNothing(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let before = try f.snapshot()
        for query in ["dryrun=true", "dry_run=true", "dryRun=true&dryRun=false", "limit=1", "expect=1&expect=2"] {
            let patch = try f.call("PATCH", "/v1/experiences?where=host%3Da.example&\(query)", token: f.admin, json: #"{"subtitle":"x"}"#)
            #expect(patch.status == 400, "\(query): \(patch.text)")
            let sync = try f.call(
                "POST", "/v1/experiences/import?mode=sync&\(query)", token: f.admin, headers: [("Content-Type", "text/csv")],
                json: "url,subtitle\nhttps://a.example/z,x\n")
            #expect(sync.status == 400, "\(query): \(sync.text)")
        }
        #expect(try f.snapshot() == before, "a refused query writes nothing")
        // Spelt as declared, the guard holds.
        let dry = try f.call(
            "PATCH", "/v1/experiences?where=host%3Da.example&dryRun=true", token: f.admin, json: #"{"subtitle":"x"}"#)
        #expect(dry.status == 200, "\(dry.text)")
        #expect(try f.jsonOf(dry)["dryRun"] == true)
        #expect(try f.snapshot() == before)
    }
}
