import Foundation
import Glibc
import StrictJSON
import TestSupport
import Testing

/// A chain's operations sheet through the built `clipctl`, as the guide walks it (docs/guide.md#a-chains-sheet,
/// docs/sheets.md): imported with its own columns, exported, edited in two cells, kept in step, changed in bulk; on a
/// database and over `--server`, with the same output.
@Suite(.serialized) struct ChainSheetProcessTests {
    static let clip = "ABCDE12345.com.example.ride.Clip"

    /// The sheet as a spreadsheet exports it: a byte-order mark, CRLF, an address with a line break in its cell, `active`
    /// in lower case, a French card beside the English one, and `category` as given.
    static func sheet(category: String = "bikes") -> String {
        var rows = [
            "City,Station ID,Station name,Address,Latitude,Longitude,URL,Category,Title (EN),Subtitle (EN),Title (FR),Subtitle (FR),Status"
        ]
        for n in 1...6 {
            let city = n % 2 == 0 ? "Lyon" : "Paris"
            rows.append(
                "\(city),ST\(n),Station \(n),\"\(n) rue de la Gare\nBât. B\",48.85\(n),2.35\(n),https://ride.example/s/st\(n),\(category),Ride now,Tap to unlock a bike,Roulez,Touchez pour louer,active"
            )
        }
        return "\u{FEFF}" + rows.joined(separator: "\r\n") + "\r\n"
    }

    static let importOptions = ["--map", "Station name=label.name", "--labels-from", "City,Station ID", "--clip", clip]

    /// Everything the registry keeps, as the commands read it: what a refused or dry run must leave as it was.
    static func state(_ c: Clipctl) throws -> String {
        try c.run(["export"]).out + c.run(["changes", "--limit", "10000"]).out
    }

    /// The round trip, on `c`; each step's output, for the remote run to give the same.
    static func roundTrip(_ c: Clipctl) throws -> [String] {
        var said: [String] = []
        func run(_ arguments: [String], _ code: Int32 = 0) throws -> Clipctl.Result {
            let r = try c.run(arguments)
            #expect(r.code == code, "\(arguments): \(r.err)")
            said.append(Self.withoutTimes(r.out + r.err))
            return r
        }
        try c.write("stations.csv", Self.sheet(category: "BIKE"))
        // `BIKE` on six lines: one error, listed on three lines with the rule and its near miss, then counted.
        let before = try state(c)
        let typo = try run(["import", "stations.csv"] + Self.importOptions, 65)
        #expect(typo.err.hasPrefix("clipctl: nothing imported: 6 bad lines\n"), "\(typo.err)")
        #expect(typo.err.components(separatedBy: "(did you mean BIKES?) [category.enum]").count - 1 == 3, "\(typo.err)")
        #expect(typo.err.contains("  … and 3 more lines with category [category.enum] (--json lists them)\n"), "\(typo.err)")
        #expect(typo.err.split(separator: "\n").count == 5, "\(typo.err)")
        #expect(try state(c) == before, "a refused import writes nothing")

        try c.write("stations.csv", Self.sheet())
        let imported = try run(["import", "stations.csv"] + Self.importOptions)
        #expect(imported.out.hasPrefix("imported 6 experiences in one transaction\n"), "\(imported.out)")
        let paris = try run(["list", "--label", "city=Paris"])
        #expect(paris.out.split(separator: "\n").count == 3 && !paris.out.contains("/st2 "), "\(paris.out)")
        let shown = try run(["show", "https://ride.example/s/st1"])
        #expect(shown.out.contains("city=Paris") && shown.out.contains("station-id=ST1"), "\(shown.out)")

        // Export, edit two cells, keep in step: the dry run says what the real run does, and writes nothing.
        let export = try run(["export", "--format", "csv"])
        var lines = export.out.components(separatedBy: "\n")
        let st1 = try #require(lines.firstIndex { $0.hasPrefix("https://ride.example/s/st1,") })
        lines[st1] = lines[st1].replacingOccurrences(of: "Tap to unlock a bike", with: "Tap to ride")
        let st5 = try #require(lines.firstIndex { $0.hasPrefix("https://ride.example/s/st5,") })
        lines[st5] = lines[st5].replacingOccurrences(of: ",ST5", with: ",ST5-north")
        try c.write("edited.csv", lines.joined(separator: "\n"))
        let settled = try state(c)
        let dry = try run(["import", "edited.csv", "--mode", "sync", "--dry-run"])
        let changes = "line 2: update https://ride.example/s/st1: subtitle\nline 6: update https://ride.example/s/st5: labels.station-id\n"
        #expect(dry.out == changes + "2 to update, 4 unchanged (dry run, nothing written)\n", "\(dry.out)")
        #expect(try state(c) == settled, "a dry run writes nothing")
        let real = try run(["import", "edited.csv", "--mode", "sync"])
        #expect(real.out == changes + "2 updated, 4 unchanged (in one transaction)\n", "\(real.out)")
        // Two change records (and so two webhook events: SheetSyncTests counts them), of those two experiences.
        let history = try c.run(["changes", "--limit", "10000"]).out.split(separator: "\n")
        #expect(
            history.suffix(3).map { $0.split(separator: " ").suffix(3).joined(separator: " ") } == [
                "create experience 6", "update experience 1", "update experience 5",
            ])
        // The third run: nothing to do, nothing written.
        let kept = try state(c)
        let third = try run(["import", "edited.csv", "--mode", "sync"])
        #expect(third.out == "6 unchanged (in one transaction)\n", "\(third.out)")
        #expect(try state(c) == kept)

        // A sheet without station 6 in sync: listed as missing, removed only when asked.
        try c.write("fewer.csv", lines.filter { !$0.hasPrefix("https://ride.example/s/st6,") }.joined(separator: "\n"))
        let missing = try run(["import", "fewer.csv", "--mode", "sync", "--dry-run"])
        #expect(missing.out == "missing https://ride.example/s/st6\n1 missing, 5 unchanged (dry run, nothing written)\n", "\(missing.out)")

        // Bulk: without --yes only what would change; a wrong --expect refuses; then the change, once.
        let paris3 = ["update", "--where", "host=ride.example,label.city=Paris", "--subtitle", "Ride in Paris"]
        let preview = try run(paris3)
        #expect(preview.out.hasSuffix("3 to update, 0 unchanged (dry run, nothing written)\n"), "\(preview.out)")
        #expect(preview.err.contains("nothing written: 3 experiences selected"), "\(preview.err)")
        let wrong = try run(paris3 + ["--expect", "300", "--yes"], 1)
        #expect(wrong.err == "clipctl: the selector matches 3 experiences, not the 300 expected: nothing was changed\n", "\(wrong.err)")
        #expect(try state(c) == kept, "a refused or previewed bulk change writes nothing")
        let done = try run(paris3 + ["--expect", "3", "--yes"])
        #expect(done.out.hasSuffix("3 updated, 0 unchanged (in one transaction)\n"), "\(done.out)")
        let again = try run(paris3 + ["--expect", "3", "--yes"])
        #expect(again.out == "3 unchanged (in one transaction)\n", "the same change again changes nothing: \(again.out)")
        // The kill switch over a selector, and back.
        let off = try run(["deactivate", "--where", "label.city=Lyon", "--expect", "3", "--yes"])
        #expect(off.out.contains("3 updated, 0 unchanged (in one transaction)\n"), "\(off.out)")
        #expect(
            off.out.components(separatedBy: "devices may still show its card for 48 hours or more").count == 2,
            "the kill switch's note, once for the clip: \(off.out)")
        #expect(try run(["resolve", "https://ride.example/s/st2"], 1).out.hasPrefix("no match: "))
        let on = try run(["activate", "--where", "label.city=Lyon", "--yes"])
        #expect(on.out.hasPrefix("update https://ride.example/s/st2: status\n"), "\(on.out)")
        _ = try run(["deactivate", "--where", "label.city=Lyon", "1"], 64)
        let usage = try run(["update", "1", "--where", "host=ride.example", "--subtitle", "x"], 64)
        #expect(usage.err.contains("update takes ID|URL or --where SELECTOR, not both"), "\(usage.err)")
        let everything = try run(["update", "--where", "", "--subtitle", "x", "--yes"], 65)
        #expect(everything.err.contains("where: selects nothing"), "an empty selector never means every experience: \(everything.err)")

        // The doctor on the chain: a rule's findings grouped, one fix; an acknowledged rule stays quiet for its scope.
        _ = try run(["update", "--where", "label.city=Lyon", "--title", "Lyon bike station and rentals", "--yes"])
        let doctor = try run(["doctor"])
        #expect(doctor.out.split(separator: "\n").count <= 40 && doctor.out.contains("title-length"), "\(doctor.out)")
        let ack = try run(["doctor", "ack", "title-length", "--label", "city=Lyon", "--note", "Lyon signs are long"])
        #expect(ack.out == "acknowledged title-length for label.city=Lyon (acknowledgement 1)\n", "\(ack.out)")
        let quiet = try run(["doctor"])
        #expect(!quiet.out.contains("title-length") && quiet.out.contains("3 acknowledged finding(s) not shown"), "\(quiet.out)")
        let listed = try run(["doctor", "--acknowledged"])
        #expect(listed.out.hasPrefix("1  title-length  label.city=Lyon  quiets 3 finding(s)  since "), "\(listed.out)")
        #expect(listed.out.contains("    note: Lyon signs are long\n"))
        let misspelt = try run(["doctor", "ack", "title-lenght", "--label", "city=Lyon"], 65)
        #expect(misspelt.err.contains("(did you mean title-length?)"), "\(misspelt.err)")
        _ = try run(["doctor", "unack", "1"])
        #expect(try run(["doctor"]).out.contains("title-length"), "an ended acknowledgement's findings are reported again")
        return said
    }

    static func withoutTimes(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, with: "TIME", options: .regularExpression)
    }

    @Test func theChainsSheetRoundTripsOnADatabaseAndOverTheServerAlike() throws {
        let local = try Clipctl()
        let onDatabase = try Self.roundTrip(local)

        let (remote, server) = try ServeProcess.withAdmin()
        let overServer = try Self.roundTrip(remote)
        #expect(overServer.count == onDatabase.count)
        for (a, b) in zip(onDatabase, overServer) { #expect(a == b) }
        #expect(server.stop() == 0)
    }

    /// A header image given to 300 experiences at once is stored once; the change is one transaction.
    @Test func aBulkImageIsStoredOnceForThreeHundredExperiences() throws {
        let c = try Clipctl()
        var rows = ["url,title,subtitle,label.city"]
        for n in 1...300 { rows.append("https://ride.example/s/\(n),Ride now,Tap to unlock,\(n % 2 == 0 ? "lyon" : "paris")") }
        try c.write("many.csv", rows.joined(separator: "\n") + "\n")
        #expect(try c("import", "many.csv", "--clip", Self.clip).code == 0)
        try Data(TestImages.png(width: 1800, height: 1200)).write(to: URL(fileURLWithPath: c.file("station.png")))
        let bulk = try c.run(["update", "--where", "host=ride.example", "--image", "station.png", "--expect", "300", "--yes", "--json"])
        #expect(bulk.code == 0, "\(bulk.err)")
        let report = try JSONParser.parse(Array(bulk.out.utf8))
        #expect(report["counts"]?["update"] == 300 && report["dryRun"] == false)
        let images = try c.run(["export"]).out.split(separator: "\n").compactMap {
            try? JSONParser.parse(Array($0.utf8))["headerImage"]?.stringValue
        }
        #expect(images.count == 300 && Set(images).count == 1, "one image, named by one hash, for all 300")
        let changes = try c.run(["changes", "--limit", "10000"]).out.split(separator: "\n")
        #expect(changes.filter { $0.contains(" update experience ") }.count == 300)
    }

    /// `resolve --explain` on a host of 10,000 experiences fits a screen: the winner, the candidates on its path, the near
    /// miss, the nearest others, then a count by outcome; `--all` lists every one.
    @Test func anExplanationOnAHostOfTenThousandFitsAScreen() throws {
        let c = try Clipctl()
        var rows = ["url,title,subtitle"]
        for n in 0..<10_000 { rows.append("https://ride.example/s/st\(n),Ride,Tap") }
        rows += ["https://ride.example/s,Ride,Tap", "https://ride.example/s/st,Ride,Tap", "https://ride.example/s/st1?x=1,Ride,Tap"]
        try c.write("big.csv", rows.joined(separator: "\n") + "\n")
        #expect(try c("import", "big.csv", "--clip", Self.clip).code == 0)
        let explained = try c("resolve", "https://ride.example/s/st1/extra", "--explain")
        let lines = explained.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(explained.code == 0 && lines.count <= 20, "\(explained.out)")
        #expect(lines.first == "advanced experience 2: https://ride.example/s/st1")
        #expect(lines.contains("candidates: 10003 on this host, nearest first"))
        let candidates = lines.drop { !$0.hasPrefix("candidates:") }.dropFirst()
        let outcomes = candidates.filter { !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").dropFirst().first }
        // The winner, the near miss, those on its path, then the nearest others.
        #expect(outcomes.prefix(5) == ["chosen", "path-mismatch", "less-specific", "query-mismatch", "path-mismatch"], "\(explained.out)")
        #expect(lines.contains { $0.contains("warning: near miss: /s/st is a character prefix of /s/st1/extra") }, "\(explained.out)")
        #expect(lines.last?.hasPrefix("  … and ") == true && lines.last?.hasSuffix(" path-mismatch): --all lists every one") == true)
        // Many candidates of one kind do not hide the others: 30 query variants on the path, and the near miss still shows.
        var variants = ["url,title,subtitle"]
        for n in 0..<30 { variants.append("https://ride.example/s/st1?q\(n)=v,Ride,Tap") }
        try c.write("variants.csv", variants.joined(separator: "\n") + "\n")
        #expect(try c("import", "variants.csv", "--clip", Self.clip).code == 0)
        let flooded = try c("resolve", "https://ride.example/s/st1/extra", "--explain")
        #expect(flooded.out.contains("warning: near miss: /s/st is a character prefix"), "\(flooded.out)")
        #expect(flooded.out.split(separator: "\n").count <= 20, "\(flooded.out)")
        let all = try c("resolve", "https://ride.example/s/st1/extra", "--explain", "--all")
        #expect(all.out.split(separator: "\n").filter { $0.contains("  path-mismatch  ") }.count == 10_000)
        #expect(all.out.split(separator: "\n").filter { $0.contains("  query-mismatch  ") }.count == 31)
        #expect(try c("resolve", "https://ride.example/s/st1", "--all").code == 64, "--all without --explain is a usage error")
    }

    /// `publish --banner-names path`: the banner snippets under the page paths the web team thinks in.
    @Test func publishNamesBannersByPagePathWhenAsked() throws {
        let c = try Clipctl()
        try c.write("stations.csv", Self.sheet())
        #expect(try c.run(["import", "stations.csv"] + Self.importOptions).code == 0)
        let refused = try c("publish", "site", "--banner-names", "title")
        #expect(refused.code == 64 && refused.err.contains("--banner-names takes id or path"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: c.file("site")))
        let published = try c("publish", "site", "--banner-names", "path")
        #expect(published.code == 0, "\(published.err)")
        let banner = try String(contentsOfFile: c.file("site/ride.example/banners/s/st1.html"), encoding: .utf8)
        #expect(banner.hasPrefix("<!-- Smart App Banner for https://ride.example/s/st1 -->\n<meta name=\"apple-itunes-app\""), "\(banner)")
        #expect(!FileManager.default.fileExists(atPath: c.file("site/ride.example/banners/1.html")))
        // Named by id again: the path-named files go, the id-named come, in one swap.
        let byID = try c("publish", "site")
        #expect(byID.code == 0 && byID.out.contains("removed: ride.example/banners/s/st1.html"), "\(byID.out)")
        #expect(FileManager.default.fileExists(atPath: c.file("site/ride.example/banners/1.html")))
    }

    /// `doctor` on a chain of 300 stations fits a screen: each rule once, with a few examples, its count and one fix.
    @Test func doctorOnAChainOfThreeHundredPrintsAtMostFortyLines() throws {
        let c = try Clipctl()
        var rows = ["url,title,subtitle,title.fr,subtitle.fr,label.city"]
        for n in 1...300 {
            rows.append(
                "https://ride.example/s/st\(n),Station \(n) of the chain,Tap to unlock a bike in seconds and ride the city,Station \(n),Touchez,c\(n % 12)"
            )
        }
        rows.append("https://ride.example/s/fr-only,Short,Tap,,,c1")
        try c.write("chain.csv", rows.joined(separator: "\n") + "\n")
        #expect(try c("import", "chain.csv", "--clip", Self.clip).code == 0)
        let doctor = try c("doctor")
        let lines = doctor.out.split(separator: "\n")
        #expect(lines.count <= 40, "\(doctor.out)")
        #expect(lines.filter { $0.contains("localization-set") }.count == 1, "one finding for the clip: \(doctor.out)")
        for rule in ["title-length", "subtitle-length"] {
            let group = lines.drop { !$0.contains(" \(rule): ") }.prefix { !$0.hasPrefix("warning ") || $0.contains(" \(rule): ") }
            #expect(group.first?.contains("findings, such as") == true, "\(rule): \(doctor.out)")
            #expect(group.filter { $0.hasPrefix("    fix: ") }.count <= 1, "\(rule): one fix\n\(doctor.out)")
        }
        // The fixes run where the doctor ran: its --db (or --server) carried, never a token.
        let elsewhere = try c("--db", "clips.db", "doctor")
        #expect(
            elsewhere.out.split(separator: "\n").filter { $0.hasPrefix("    fix: clipctl ") }.allSatisfy {
                $0.hasPrefix("    fix: clipctl --db clips.db ")
            })
        let all = try c("doctor", "--all")
        #expect(all.out.split(separator: "\n").count > 600, "--all prints every finding")

        // --fixes FILE: every fix, a command a line, the rest comments; only ever a new file.
        #expect(try c("doctor", "--fixes", "fixes.sh").code == 0)
        let fixes = try String(contentsOfFile: c.file("fixes.sh"), encoding: .utf8).split(separator: "\n")
        #expect(fixes.filter { !$0.hasPrefix("#") }.count >= 600 && fixes.allSatisfy { $0.hasPrefix("#") || $0.hasPrefix("clipctl ") })
        let parse = Process()
        parse.executableURL = URL(fileURLWithPath: "/bin/sh")
        parse.arguments = ["-n", c.file("fixes.sh")]
        #expect(try ProcessRunner.run(parse).code == 0, "the file parses as shell")
        try FileManager.default.createSymbolicLink(atPath: c.file("dangling"), withDestinationPath: c.file("nowhere"))
        #expect(mkfifo(c.file("pipe"), 0o600) == 0)
        for taken in ["fixes.sh", "dangling", "pipe"] {
            let refused = try c.run(["doctor", "--fixes", taken], timeoutSeconds: 30)
            #expect(refused.code == 64 && refused.err.contains("exists; give a new file"), "\(taken): \(refused.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: c.file("nowhere")), "a link is not followed")
    }

    /// A sync's scope is the hosts its rows are on, narrowed, never widened, by `--label` and `--clip`; a dry run with a
    /// bad row exits as its real run would; options a mode does not use are refused, not ignored.
    @Test func aSyncsScopeIsNarrowedNeverWidenedAndADryRunEndsAsItsRunWould() throws {
        let c = try Clipctl()
        try c.write(
            "all.csv",
            "url,title,subtitle,label.city\nhttps://ride.example/s/1,R,T,paris\nhttps://ride.example/s/2,R,T,lyon\n"
                + "https://other.example/o/1,R,T,paris\n")
        #expect(try c("import", "all.csv", "--clip", Self.clip).code == 0)
        try c.write("ride.csv", "url,title,subtitle,label.city\nhttps://ride.example/s/9,R,T,paris\n")
        let before = try Self.state(c)
        let narrowed = try c(
            "import", "ride.csv", "--mode", "sync", "--clip", Self.clip, "--label", "city=paris", "--remove-missing", "--dry-run")
        #expect(
            narrowed.out
                == "line 2: create https://ride.example/s/9\nremove https://ride.example/s/1\n1 to create, 1 to remove, 0 unchanged (dry run, nothing written)\n",
            "\(narrowed.out)")
        #expect(try Self.state(c) == before, "a dry run writes nothing")
        // Another clip's experience on the same host is not the sheet's: never missing, never removed.
        #expect(
            try c(
                "register", "https://ride.example/theirs", "--clip", "ABCDE12345.com.example.scooters.Clip", "--title", "S", "--subtitle",
                "T"
            )
            .code == 0)
        let before2 = try Self.state(c)
        let shared = try c("import", "ride.csv", "--mode", "sync", "--clip", Self.clip, "--remove-missing", "--dry-run")
        #expect(!shared.out.contains("/theirs"), "\(shared.out)")
        #expect(
            try c("update", "--where", "host=ride.example,host=other.example", "--title", "Z", "--yes").code == 65,
            "two hosts select nothing")
        #expect(try Self.state(c) == before2)
        let otherClip = try c("import", "ride.csv", "--mode", "sync", "--clip", "ABCDE12345.com.example.other.Clip", "--dry-run")
        #expect(!otherClip.out.contains("missing"), "another clip's experiences are not in scope: \(otherClip.out)")
        try c.write("bad.csv", "url,title,subtitle,category\nhttps://ride.example/s/1,R,T,BIKE\n")
        let bad = try c("import", "bad.csv", "--mode", "sync", "--dry-run")
        #expect(bad.code == 65 && bad.err.contains("the real run would write nothing: 1 row with errors"), "\(bad.out)\(bad.err)")
        #expect(try c("import", "bad.csv", "--mode", "sync", "--dry-run", "--json").code == 65)
        let label = try c("import", "ride.csv", "--clip", Self.clip, "--label", "city=paris")
        #expect(label.code == 65 && label.err.contains("label: narrows a sync's scope"), "\(label.err)")
        let url = try c("update", "--where", "label.city=paris", "--url", "https://ride.example/x", "--yes")
        #expect(url.code == 64 && url.err.contains("--url cannot be given to many experiences at once"), "\(url.err)")
        #expect(try Self.state(c) == before2, "every refusal and dry run wrote nothing")
    }

    /// `revert ID --to N`: the kill switch's undo for one experience, on a database and over `--server` alike.
    @Test func revertRestoresAnEarlierVersionOnADatabaseAndOverTheServerAlike() throws {
        func steps(_ c: Clipctl) throws -> [String] {
            var said: [String] = []
            for (arguments, code) in [
                (["register", "https://ride.example/r", "--clip", Self.clip, "--title", "Summer", "--subtitle", "Ride"], Int32(0)),
                (["update", "1", "--title", "Autumn", "--category", "BIKES"], 0),
                (["revert", "1", "--to", "1"], 0), (["revert", "1", "--to", "1"], 0), (["revert", "1", "--to", "9"], 1),
                (["revert", "1"], 64), (["revert", "2", "--to", "1"], 1),
            ] {
                let r = try c.run(arguments)
                #expect(r.code == code, "\(arguments): \(r.err)")
                said.append(r.out + r.err)
            }
            let shown = try c("show", "1").out
            #expect(shown.contains("(version 3)") && shown.contains("Summer — Ride") && !shown.contains("BIKES"), "\(shown)")
            return said
        }
        let local = try steps(try Clipctl())
        #expect(local[2] == "reverted experience 1 to the fields of version 1: now version 3, ACTIVE\n")
        #expect(local[3] == "nothing to change: experience 1 already has the fields of version 1\n")
        #expect(local[4] == "clipctl: not found: version 9 of experience 1\n")
        let (remote, server) = try ServeProcess.withAdmin()
        let overServer = try steps(remote)
        // All but the first, which on a database also says it created the file.
        #expect(Array(overServer.dropFirst()) == Array(local.dropFirst()))
        #expect(server.stop() == 0)
    }
}
