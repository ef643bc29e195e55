import Foundation
import Testing

/// docs/schedules.md through the built `clipctl`: a scheduled card, what `--at` says it will serve, the window kept
/// through export and import and put back by `revert`, and refused times that write nothing.
struct ExperienceWindowProcessTests {
    static let clip = "ABCDE12345.com.example.bikes.Clip"

    func digest(_ clipctl: Clipctl) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db"))) }

    @Test func aScheduledCardIsServedOnlyInItsWindow() throws {
        let clipctl = try Clipctl()
        try #require(
            try clipctl("register", "https://ride.example/rent", "--clip", Self.clip, "--title", "Rent", "--subtitle", "All year").code == 0
        )
        let summer = try clipctl(
            "register", "https://ride.example/rent/summer", "--clip", Self.clip, "--title", "Summer", "--subtitle", "June to August",
            "--live-from", "2027-06-01 Europe/Paris", "--live-until", "2027-09-01 Europe/Paris")
        try #require(summer.code == 0, "\(summer.err)")
        let url = "https://ride.example/rent/summer?bike=2"
        for (moment, winner) in [
            ("2027-05-31T23:59 Europe/Paris", "advanced experience 1:"), ("2027-06-01T00:00 Europe/Paris", "advanced experience 2:"),
            ("2027-08-31T21:59:59Z", "advanced experience 2:"), ("2027-08-31T22:00:00Z", "advanced experience 1:"),
        ] {
            let resolved = try clipctl("resolve", url, "--at", moment)
            #expect(resolved.code == 0 && resolved.out.hasPrefix(winner), "at \(moment): \(resolved.out)\(resolved.err)")
        }
        // Zones the tz database installs as links (UTC → Etc/UTC, US/Eastern → America/New_York) are read too.
        #expect(try clipctl("resolve", url, "--at", "2027-08-31T22:00 UTC").out.hasPrefix("advanced experience 1:"))
        #expect(try clipctl("resolve", url, "--at", "2027-08-31T17:59 US/Eastern").out.hasPrefix("advanced experience 2:"))
        let explained = try clipctl("resolve", url, "--explain", "--at", "2027-05-01T00:00Z")
        #expect(
            explained.out.contains("scheduled       https://ride.example/rent/summer  (skipped: starts 2027-05-31T22:00:00Z)"),
            "\(explained.out)")
        #expect(
            try clipctl("show", "2", "--at", "2027-07-01T00:00Z").out.contains(
                "live:      from 2027-05-31T22:00:00Z until 2027-08-31T22:00:00Z (live)"))
        let listed = try clipctl("list", "--at", "2027-09-01T00:00Z")
        #expect(listed.out.contains("2  ENDED        https://ride.example/rent/summer"), "\(listed.out)")
        let json = try clipctl("show", "2", "--json", "--at", "2027-05-01T00:00Z")
        #expect(json.out.contains(#""state": "scheduled""#) && json.out.contains(#""liveFrom": "2027-05-31T22:00:00Z""#), "\(json.out)")

        // Kept through a CSV round trip, and put back by revert after it was cleared.
        #expect(try clipctl("export", "--format", "csv", "-o", "out.csv").code == 0)
        #expect(try clipctl("--db", "copy.db", "import", "out.csv").code == 0)
        #expect(try clipctl("--db", "copy.db", "show", "2").out.contains("from 2027-05-31T22:00:00Z until 2027-08-31T22:00:00Z"))
        #expect(try clipctl("update", "2", "--no-live-from", "--no-live-until").code == 0)
        #expect(!(try clipctl("show", "2").out.contains("live:")))
        #expect(try clipctl("revert", "2", "--to", "1").code == 0)
        #expect(try clipctl("show", "2").out.contains("from 2027-05-31T22:00:00Z until 2027-08-31T22:00:00Z"))
    }

    @Test(arguments: [
        ["--live-from", "2027-03-28T02:30 Europe/Paris"], ["--live-from", "2027-10-31T02:30 Europe/Paris"],
        ["--live-from", "2027-06-01T00:00 ../../etc/passwd"], ["--live-from", "2027-02-29T00:00Z"],
        ["--live-from", "2027-09-01T00:00Z", "--live-until", "2027-06-01T00:00Z"], ["--live-until", "2027-06-01T00:00 Mars/Base"],
        // The machine's own zone and the leap-second variants are files of zoneinfo, not zones of the tz database.
        ["--live-from", "2027-06-01T00:00 localtime"], ["--live-from", "2027-06-01T00:00 right/Europe/Paris"],
        ["--live-from", "2027-06-01T00:00 Europe/Paris\u{200B}"],
    ])
    func aRefusedTimeWritesNothing(_ options: [String]) throws {
        let clipctl = try Clipctl()
        try #require(
            try clipctl("register", "https://ride.example/rent", "--clip", Self.clip, "--title", "Rent", "--subtitle", "All year").code == 0
        )
        let before = try digest(clipctl)
        let refused = try clipctl.run(["update", "1"] + options)
        #expect(refused.code == 65, "\(options): \(refused.err)")
        #expect(refused.err.contains("live"), "\(refused.err)")
        #expect(!refused.err.contains("\u{200B}"), "an invisible character is named, not printed: \(refused.err)")
        if options[1].hasSuffix("\u{200B}") { #expect(refused.err.contains("Europe/Paris[U+200B]"), "\(refused.err)") }
        #expect(try digest(clipctl) == before)
    }
}
