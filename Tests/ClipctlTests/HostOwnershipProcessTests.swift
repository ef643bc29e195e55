import Foundation
import StrictJSON
import Testing

/// Hosts belong to teams (docs/rules.md#host-ownership), as a user of the built clipctl meets it: locally (where the
/// user is trusted with the database, so learns who holds the host and how to share it), and as
/// another team over the API while the server runs on the same file.
@Suite(.serialized) struct HostOwnershipProcessTests {
    @Test func anotherTeamIsRefusedLocallyAndOverTheAPIAndNothingChanges() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let teamB = try clipctl("token", "create", "--team", "FGHIJ67890", "--name", "brightegg").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let before = try clipctl.state()
        let takeover = [
            "register", "https://bikesrental.example/", "--clip", "FGHIJ67890.com.brightegg.app.Clip", "--title", "Ours now", "--subtitle",
            "Every bike",
        ]

        // Locally, beside the running server: exit 1, the owner named, the fix given.
        let local = try clipctl.run(takeover)
        #expect(local.code == 1)
        #expect(
            local.err.contains("bikesrental.example belongs to team ABCDE12345")
                && local.err.contains("clipctl domain share bikesrental.example --team FGHIJ67890"), "\(local.err)")
        for attack in [
            ["domain", "add", "FGHIJ67890.com.brightegg.app.Clip", "bikesrental.example"],
            ["applinks", "set", "bikesrental.example", "--app", "com.brightegg.app", "--components", #"[{"/":"*"}]"#],
            ["applinks", "webcredentials", "add", "bikesrental.example", "--app", "com.brightegg.app"],
        ] {
            let r = try clipctl.run(attack)
            #expect(r.code == 1, "\(attack): \(r.err)")
        }
        try clipctl.write(
            "takeover.csv", "url,clip,title,subtitle\nhttps://bikesrental.example/,FGHIJ67890.com.brightegg.app.Clip,Ours,Now\n")
        let imported = try clipctl("import", "takeover.csv", "--json")
        #expect(imported.code == 1 && imported.err.contains("host.owner"), "\(imported.err)")

        // Over the API with team B's token: exit 1, the owner not named.
        var remote = clipctl
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = teamB
        let overAPI = try remote.run(takeover)
        #expect(
            overAPI.code == 1 && overAPI.err.contains("belongs to another team") && !overAPI.err.contains("ABCDE12345"), "\(overAPI.err)")
        #expect(try clipctl.state() == before)

        // Who holds what; an administrator shares the host, and team B may then use it.
        #expect(
            try clipctl("domain", "owners").out == """
                bikesrental.example  ABCDE12345 (owner)
                brighteggcafe.example  FGHIJ67890 (owner)
                melamela.example  KLMNO13579 (owner)

                """)
        let share = try clipctl("domain", "share", "bikesrental.example", "--team", "FGHIJ67890")
        #expect(share.code == 0 && share.out.contains("team FGHIJ67890 now shares bikesrental.example"), "\(share.err)")
        #expect(try remote.run(takeover).code == 0)
        let doctor = try clipctl("doctor", "--json")
        let codes = (try JSONParser.parse(Array(doctor.out.utf8)))["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("cross-team-host"), "\(doctor.out)")
        // Team tokens cannot assign hosts.
        #expect(try remote.run(["domain", "claim", "bikesrental.example", "--team", "FGHIJ67890"]).code == 1)
    }
}
