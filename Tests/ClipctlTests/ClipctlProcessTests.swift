import Foundation
import StrictJSON
import TestSupport
import Testing

/// Runs the built `clipctl` binary as a process, as a user would, and checks stdout, stderr
/// and the exit code.
struct Clipctl {
    let directory: URL
    var environment: [String: String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clipctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "USER": "tester"]
        // Sanitizer settings reach the child processes too (scripts/sanitizers).
        for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"] {
            if let value = ProcessInfo.processInfo.environment[key] { environment[key] = value }
        }
    }

    static var binary: URL {
        // Swift Testing runs inside the products folder's test bundle; clipctl sits beside it.
        var url = Bundle.main.bundleURL
        if url.pathExtension == "xctest" { url = url.deletingLastPathComponent() }
        return url.appendingPathComponent("clipctl")
    }

    struct Result {
        let code: Int32
        let out: String
        let err: String

        init(_ output: ProcessRunner.Output) {
            code = output.code
            out = String(decoding: output.out, as: UTF8.self)
            err = String(decoding: output.err, as: UTF8.self)
        }
    }

    @discardableResult
    func callAsFunction(_ arguments: String..., stdin: String? = nil) throws -> Result {
        try run(arguments, stdin: stdin)
    }

    func run(_ arguments: [String], stdin: String? = nil, timeoutSeconds: Double = 300) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        return Result(try ProcessRunner.run(process, stdin: stdin.map { Data($0.utf8) }, timeoutSeconds: timeoutSeconds))
    }

    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    /// Everything a user could observe of the database: the export and the change log.
    func state() throws -> String {
        try run(["export"]).out + run(["changes", "--limit", "10000"]).out
    }

    func registerExampleBusinesses() throws {
        for args in [
            [
                "register", "https://bikesrental.example/rent", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "Rent a bike",
                "--subtitle", "Unlock one in seconds", "--category", "BIKES",
            ],
            [
                "register", "https://brighteggcafe.example/store/", "--clip", "FGHIJ67890.com.brightegg.app.Clip", "--title", "Bright Egg",
                "--subtitle", "Order ahead", "--action", "VIEW",
            ],
            [
                "register", "https://brighteggcafe.example/store/cupertino", "--clip", "FGHIJ67890.com.brightegg.app.Clip", "--title",
                "Bright Egg Cupertino", "--subtitle", "Our flagship", "--localization", "FR=Bright Egg Cupertino|Notre boutique phare",
            ],
            [
                "register", "https://melamela.example/order", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "Order",
                "--subtitle", "Order for pickup",
            ],
            [
                "register", "https://melamela.example/reservation", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "Reserve",
                "--subtitle", "Book a table",
            ],
        ] {
            let r = try run(args)
            guard r.code == 0 else { throw CLIError(message: "\(args) failed: \(r.err)") }
        }
    }

    struct CLIError: Error { let message: String }
}

struct ClipctlProcessTests {
    /// The newest migration's name (Migrations/, beside the tests): a backup's history names the last it applied.
    static let latestMigration: String = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Migrations").standardized
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".sql") }.sorted().last.map { String($0.dropLast(4)) } ?? "?"
    }()

    @Test func theNewUserStory() throws {
        let clipctl = try Clipctl()
        let first = try clipctl(
            "register", "https://bikesrental.example/rent", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "Rent a bike",
            "--subtitle", "Unlock one in seconds")
        #expect(first.code == 0)
        #expect(
            first.out == """
                registered experience 1: https://bikesrental.example/rent → ABCDE12345.com.example.bikes.Clip
                  created team ABCDE12345
                  created app com.example.bikes (team ABCDE12345)
                  app com.example.bikes has no name, which its default card shows: clipctl app set com.example.bikes --team ABCDE12345 --name NAME
                  created clip ABCDE12345.com.example.bikes.Clip
                  host bikesrental.example now belongs to team ABCDE12345
                  associated bikesrental.example with clip ABCDE12345.com.example.bikes.Clip (its AASA now lists the clip)

                """)
        #expect(FileManager.default.fileExists(atPath: clipctl.file("clips.db")), "the default database is ./clips.db")

        let resolved = try clipctl("resolve", "https://bikesrental.example/rent?id=123")
        #expect(resolved.code == 0)
        #expect(resolved.out.hasPrefix("advanced experience 1: https://bikesrental.example/rent\n"))

        let aasa = try clipctl("aasa", "bikesrental.example")
        #expect(aasa.code == 0)
        #expect(aasa.out == #"{"appclips":{"apps":["ABCDE12345.com.example.bikes.Clip"]},"applinks":{"apps":[],"details":[]}}"#)

        let banner = try clipctl("banner", "https://bikesrental.example/rent?id=9")
        #expect(
            banner.out == "<meta name=\"apple-itunes-app\" content=\"app-clip-bundle-id=com.example.bikes.Clip, app-clip-display=card\">\n")
        #expect(banner.err.contains("no App Store ID"))
    }

    @Test func threeBusinessesResolveAndSurviveExportImport() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let cases: [(String, String?)] = [
            ("https://bikesrental.example/rent?id=123", "https://bikesrental.example/rent"),
            ("https://brighteggcafe.example/store/cupertino/menu", "https://brighteggcafe.example/store/cupertino"),
            ("https://brighteggcafe.example/store/sunnyvale", "https://brighteggcafe.example/store"),
            ("https://melamela.example/reservation?party=4", "https://melamela.example/reservation"),
            ("https://melamela.example/menu", nil),
            ("https://brighteggcafe.example/stores", nil),
        ]
        for (url, expected) in cases {
            let r = try clipctl("resolve", url, "--json")
            let answer = try JSONParser.parse(r.out)
            if let expected {
                #expect(r.code == 0, "\(url)")
                #expect(answer["experience"]?["url"] == .string(expected), "\(url)")
                #expect(answer["invocationURL"] == .string(url))
            } else {
                #expect(r.code == 1, "\(url): exits 1 on no match, like grep")
                #expect(answer["matched"] == .null)
            }
        }
        let french = try JSONParser.parse(
            try clipctl("resolve", "https://brighteggcafe.example/store/cupertino", "--language", "fr-CA", "--json").out)
        #expect(french["experience"]?["subtitle"] == "Notre boutique phare" && french["experience"]?["language"] == "fr")
        let explained = try clipctl("resolve", "https://brighteggcafe.example/stores", "--explain")
        #expect(explained.out.contains("near miss"))

        let ndjson = try clipctl("export")
        let csv = try clipctl("export", "--format", "csv", "-o", clipctl.file("all.csv"))
        #expect(ndjson.code == 0 && csv.code == 0)
        #expect(ndjson.out.split(separator: "\n").count == 5)
        try clipctl.write("all.ndjson", ndjson.out)
        for (file, db) in [("all.ndjson", "fresh1.db"), ("all.csv", "fresh2.db")] {
            let imported = try clipctl("--db", db, "import", file)
            #expect(imported.code == 0, "\(imported.err)")
            #expect(imported.out.hasPrefix("imported 5 experiences in one transaction"))
            #expect(try clipctl("--db", db, "export").out == ndjson.out, "\(file) re-imports to an identical export")
        }
    }

    @Test func invalidInputExits65NamingFieldAndRuleAndChangesNothing() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let before = try clipctl.state()
        let cases: [([String], [String])] = [
            (
                ["register", "http://shop.example/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S"],
                ["url:", "url.scheme"]
            ),
            (
                [
                    "register", "https://shop.example:8443/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle",
                    "S",
                ], ["url.port"]
            ),
            (
                [
                    "register", "https://me@shop.example/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle",
                    "S",
                ], ["url.userinfo"]
            ),
            (
                [
                    "register", "https://shop.example/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S",
                    "--action", "JUMP",
                ], ["action:", "OPEN, VIEW, PLAY"]
            ),
            (
                [
                    "register", "https://shop.example/a", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title",
                    String(repeating: "x", count: 31), "--subtitle", "S",
                ], ["title:", "31 characters; the limit is 30"]
            ),
            (["register", "https://shop.example/a", "--clip", "ABCDE12345.bikes", "--title", "T", "--subtitle", "S"], ["clip.bundleId"]),
            (
                ["register", "https://shop.example/a", "--clip", "abcde.com.example.bikes.Clip", "--title", "T", "--subtitle", "S"],
                ["appId.format"]
            ),
            (
                [
                    "register", "https://bikesrental.example/rent/", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T",
                    "--subtitle", "S",
                ], ["already registered as experience 1"]
            ),
            (
                ["applinks", "set", "bikesrental.example", "--app", "com.example.bikes", "--components", #"[{"/":"/a","paths":["x"]}]"#],
                ["components[0].paths", "applinks.key"]
            ),
            (["applinks", "set", "bikesrental.example", "--app", "com.example.bikes", "--components", #"[{"?":7}]"#], ["applinks.query"]),
            (["applinks", "set", "bikesrental.example", "--app", "com.example.bikes", "--components", "[{"], ["malformed JSON"]),
            (["resolve", "https://bikesrental.example/", "--language", "Klingon"], ["language.enum"]),
        ]
        for (args, expected) in cases {
            let r = try clipctl.run(args)
            #expect(r.code == 65, "\(args): \(r.err)")
            #expect(r.out.isEmpty, "\(args)")
            for fragment in expected { #expect(r.err.contains(fragment), "\(args): \(r.err)") }
        }
        // Every problem at once.
        let many = try clipctl(
            "register", "ftp://x", "--clip", "nope", "--title", "", "--subtitle", String(repeating: "s", count: 57), "--category", "CAFE")
        #expect(many.code == 65)
        for rule in ["url.scheme", "appId.format", "title.empty", "subtitle.length", "category.enum"] {
            #expect(many.err.contains(rule), "\(rule)")
        }
        #expect(try clipctl.state() == before)
    }

    @Test func importReportsEveryBadLineAndWritesNothing() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let before = try clipctl.state()
        let input = """
            {"url":"https://new.example/a","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"B"}
            {"url":"https://new.example/b","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"B","colour":"red"}
            {"url":"https://melamela.example/order","clip":"KLMNO13579.com.melamela.app.Clip","title":"A","subtitle":"B"}
            {"url": oops}

            """
        let r = try clipctl("import", "-", stdin: input)
        #expect(r.code == 65)
        #expect(r.err.contains("3 bad lines"))
        #expect(r.err.contains("line 2: colour: is not a known field"))
        #expect(r.err.contains("line 3: url:") && r.err.contains("already registered"))
        #expect(r.err.contains("line 4: (line): malformed JSON"))
        #expect(!r.err.contains("line 1:"))
        #expect(try clipctl.state() == before)

        try clipctl.write("bad.csv", "url,clip,title,subtitle,flavour\nhttps://x.example,ABCDE12345.com.example.bikes.Clip,T,S,mint\n")
        let csv = try clipctl("import", "bad.csv")
        #expect(csv.code == 65 && csv.err.contains("line 1: flavour: is not a known column"))
    }

    @Test func usageErrorsExit64AndHelpExits0() throws {
        let clipctl = try Clipctl()
        for args in [
            [], ["frobnicate"], ["register"], ["list", "--bogus"], ["resolve", "a", "b"], ["export", "--format"], ["app"], ["clip", "add"],
        ] {
            let r = try clipctl.run(args)
            #expect(r.code == 64, "\(args)")
            #expect(r.out.isEmpty, "\(args)")
            #expect(r.err.hasPrefix("clipctl: ") && r.err.contains("USAGE: clipctl"), "\(args): \(r.err)")
        }
        for path in [
            [], ["register"], ["list"], ["show"], ["update"], ["deactivate"], ["activate"], ["remove"], ["resolve"], ["aasa"], ["banner"],
            ["import"], ["export"], ["app", "set"], ["clip", "add"], ["domain", "add"], ["default", "set"], ["applinks", "set"],
            ["changes"],
        ] {
            let r = try clipctl.run(path + ["--help"])
            #expect(r.code == 0, "\(path)")
            #expect(r.out.contains("USAGE: \((["clipctl"] + path).joined(separator: " "))"), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: clipctl.file("clips.db")), "help and usage errors touch no database")
    }

    @Test func badDatabaseFilesAreRefusedUntouched() throws {
        var clipctl = try Clipctl()
        try clipctl.write("notes.db", "my shopping list\n")
        let r = try clipctl("--db", "notes.db", "list")
        #expect(r.code == 1 && r.err.contains("notes.db is not a Clip Registry database"))
        #expect(try clipctl.read("notes.db") == "my shopping list\n")

        let unwritable = try clipctl("--db", "/nonexistent-\(UUID().uuidString)/clips.db", "list")
        #expect(unwritable.code == 1 && unwritable.err.contains("cannot open or write"))

        clipctl.environment["CLIP_DB"] = clipctl.file("from-env.db")
        #expect(try clipctl("clip", "add", "ABCDE12345.com.example.bikes.Clip").code == 0)
        #expect(FileManager.default.fileExists(atPath: clipctl.file("from-env.db")))
    }

    @Test func jsonOutputAndJSONErrors() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let list = try JSONParser.parse(try clipctl("list", "--json", "--host", "brighteggcafe.example").out)
        #expect(
            list.arrayValue?.compactMap { $0["url"]?.stringValue } == [
                "https://brighteggcafe.example/store", "https://brighteggcafe.example/store/cupertino",
            ])
        let error = try clipctl("show", "99", "--json")
        #expect(error.code == 1)
        #expect(try JSONParser.parse(error.err)["error"] == "not found: experience 99")
        let invalid = try clipctl(
            "register", "http://x.example", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle", "S", "--json")
        #expect(try JSONParser.parse(invalid.err)["errors"]?.arrayValue?.first?["rule"] == "url.scheme")
    }

    /// With --json, a usage error is JSON on stderr too, shaped like every other JSON error.
    @Test func jsonUsageErrors() throws {
        let clipctl = try Clipctl()
        for arguments in [
            ["list", "--json", "--no-such-option"], ["--json", "show"], ["--json", "frobnicate"], ["resolve", "--json", "--language"],
        ] {
            let r = try clipctl.run(arguments)
            #expect(r.code == 64, "\(arguments)")
            let error = try JSONParser.parse(r.err)
            #expect(error["exitCode"] == 64 && error["error"]?.stringValue?.isEmpty == false, "\(arguments): \(r.err)")
        }
        let plain = try clipctl("list", "--no-such-option")
        #expect(plain.code == 64 && plain.err.hasPrefix("clipctl: "))
    }

    @Test func lifecycleCommands() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let off = try clipctl("deactivate", "https://brighteggcafe.example/store/cupertino").out
        #expect(off.hasPrefix("experience 3 is DEACTIVATED: https://brighteggcafe.example/store/cupertino\n"), "\(off)")
        #expect(off.contains("is not linked to App Store Connect") && off.contains("48 hours or more"), "the kill switch's note: \(off)")
        #expect(
            try JSONParser.parse(try clipctl("resolve", "https://brighteggcafe.example/store/cupertino", "--json").out)["experience"]?["id"]
                == 2)
        #expect(try clipctl("activate", "3").code == 0)
        let updated = try clipctl("update", "3", "--subtitle", "Open late")
        #expect(updated.out == "updated experience 3 (version 4)\n")
        #expect(try clipctl("remove", "3").code == 0)
        #expect(try clipctl("show", "3").code == 1)
        #expect(try clipctl("update", "1").code == 64, "nothing to update is a usage error")

        #expect(
            try clipctl("default", "set", "ABCDE12345.com.example.bikes.Clip", "--action", "VIEW", "--subtitle", "en-US=Bikes for everyone")
                .code == 0)
        let fallback = try JSONParser.parse(try clipctl("resolve", "https://bikesrental.example/faq", "--json").out)
        #expect(fallback["matched"] == "default" && fallback["experience"]?["subtitle"] == "Bikes for everyone")

        #expect(try clipctl("app", "set", "com.melamela.app", "--team", "KLMNO13579", "--app-store-id", "1234567890").code == 0)
        #expect(try clipctl("app", "set", "com.melamela.app", "--team", "KLMNO13579", "--app-store-id", "12ab").code == 65)
        let banner = try clipctl(
            "banner", "https://melamela.example/order", "--app-argument", "https://melamela.example/order?items=1,2&x=\"<y>\"")
        #expect(
            banner.out
                == "<meta name=\"apple-itunes-app\" content=\"app-id=1234567890, app-argument=https://melamela.example/order?items=1%2C2&amp;x=%22%3Cy%3E%22, app-clip-bundle-id=com.melamela.app.Clip, app-clip-display=card\">\n"
        )
        #expect(try clipctl("banner", "https://unrelated.example/").code == 65)

        #expect(try clipctl("domain", "add", "KLMNO13579.com.melamela.app.Clip", "*.melamela.example").code == 65)
        #expect(try clipctl("domain", "add", "KLMNO13579.com.melamela.app.Clip", "www.melamela.example").code == 0)
        #expect(
            try clipctl("domain", "remove", "KLMNO13579.com.melamela.app.Clip", "melamela.example").code == 65,
            "experiences still use the host")
        #expect(try clipctl("aasa", "www.melamela.example").out.contains("KLMNO13579.com.melamela.app.Clip"))
    }

    @Test func aasaCheckDecidesWithApplinksSemantics() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        #expect(
            try clipctl(
                "applinks", "set", "melamela.example", "--app", "com.melamela.app",
                "--components", #"[{"/":"/order/admin/*","exclude":true},{"/":"/order/*"}]"#
            ).code == 0)
        let match = try clipctl("aasa", "check", "https://melamela.example/order/12", "--app", "KLMNO13579.com.melamela.app")
        #expect(match.code == 0 && match.out == "match: details[0].components[1]\n")
        let excluded = try clipctl("aasa", "check", "https://melamela.example/order/admin/x", "--app", "KLMNO13579.com.melamela.app")
        #expect(excluded.code == 1 && excluded.out == "exclude: details[0].components[0]\n")
        #expect(try clipctl("aasa", "check", "https://melamela.example/menu", "--app", "KLMNO13579.com.melamela.app").code == 1)
        try clipctl.write("aasa.json", #"{"applinks":{"details":[{"appID":"ABCDE12345.com.x","paths":["NOT /private/*","*"]}]}}"#)
        let file = try clipctl(
            "aasa", "check", "https://any.example/private/1", "--app", "ABCDE12345.com.x", "--file", "aasa.json", "--json")
        #expect(try JSONParser.parse(file.out)["decision"] == "exclude")
        #expect(try clipctl("aasa", "check", "https://a.example/", "--app", "nope").code == 65)
        #expect(try clipctl("aasa", "check", "https://a.example/").code == 64, "--app is required")
        #expect(try clipctl("aasa", "brighteggcafe.example").code == 0, "aasa HOST still works beside aasa check")
        try clipctl.write("broken.json", #"{"applinks":{"details":[{"appID":"A.b","components":[{"comment":"all"},{"/":"/$(nope)"}]}]}}"#)
        let lint = try clipctl("aasa", "lint", "broken.json")
        #expect(lint.code == 1)
        #expect(lint.out.contains("error AASA142 applinks.details[0].components[1]./") && lint.out.contains("warning AASA190"))
        #expect(try clipctl("aasa", "lint", "melamela.example").code == 0, "the registry's own AASA has no error")
    }

    @Test func backupAndRestore() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let before = try clipctl("export").out
        #expect(try clipctl("backup", "snapshot.db").out == "backed up clips.db to snapshot.db\n")
        try clipctl.write("notes.txt", "keep me")
        let overwrite = try clipctl("backup", "notes.txt")
        #expect(overwrite.code == 65 && overwrite.err.contains("already exists"))
        #expect(try clipctl.read("notes.txt") == "keep me")
        #expect(try clipctl("remove", "1").code == 0)
        let bad = try clipctl("restore", "notes.txt")
        #expect(bad.code == 1 && bad.err.contains("not a readable SQLite database"))
        #expect(try clipctl("restore", "missing.db").code == 1)
        // A backup missing a migration row is refused by name, and the database is untouched.
        #expect(try clipctl("backup", "gap.db").code == 0)
        let sqlite = Process()  // Python's sqlite3 module (the crash test needs it too)
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        sqlite.arguments = [
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"DELETE FROM schema_migrations WHERE name = '0002_api_tokens'\"); c.commit()",
            clipctl.file("gap.db"),
        ]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
        let live = try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db")))
        let state = try clipctl.state()
        let gap = try clipctl("restore", "gap.db")
        #expect(
            gap.code == 1
                && gap.err
                    == "clipctl: gap.db is not a consistent Clip Registry backup: its migration history is inconsistent: 0002_api_tokens not recorded, though \(Self.latestMigration) is\n",
            "\(gap.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db"))) == live && (try clipctl.state()) == state)
        let restored = try clipctl("restore", "snapshot.db")
        #expect(restored.code == 0)
        let replaced = try #require(
            try FileManager.default.contentsOfDirectory(atPath: clipctl.directory.path).first { $0.hasPrefix("clips.db.replaced-") })
        #expect(
            restored.out
                == "restored clips.db from snapshot.db\n  the content replaced is kept in clips.db.replaced-\(replaced.dropFirst("clips.db.replaced-".count)) (restore it to undo; delete it when no longer needed)\n  API tokens kept as they are: 0 (tokens are the installation's, not the backup's)\n"
        )
        #expect(try clipctl("export").out == before, "the restore brings back the snapshot exactly")
        let missingDirectory = try clipctl("backup", "nowhere/x.db")
        #expect(
            missingDirectory.code == 1 && missingDirectory.err == "clipctl: cannot write nowhere/x.db: directory nowhere does not exist\n")
        #expect(try clipctl("--server", "http://127.0.0.1:1", "backup", "x.db").code == 64, "backup is local only")
    }

    /// Runs SQL on a database file with Python's sqlite3 module (as a hostile user would edit a backup).
    func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", path, sql,
        ]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    @Test func restoreKeepsTokensAndIdsAndRefusesUnreadableContent() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let admin = try clipctl("token", "create", "--admin", "--name", "ops").out.split(separator: "\n")[0]
        let leaked = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "leaked").out.split(separator: "\n")[0]
        #expect(try clipctl("backup", "old.db").code == 0)
        #expect(try clipctl("token", "revoke", "2").code == 0)
        #expect(try clipctl("token", "create", "--team", "ZZZZZ99999", "--name", "new").code == 0)
        #expect(
            try clipctl(
                "register", "https://bikesrental.example/late", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T", "--subtitle",
                "S"
            ).out.hasPrefix("registered experience 6:"))
        let tokens = try clipctl("token", "list").out
        let restored = try clipctl("restore", "old.db")
        #expect(
            restored.code == 0
                && restored.out.hasSuffix("  API tokens kept as they are: 3 (tokens are the installation's, not the backup's)\n"),
            "\(restored)")
        #expect(try clipctl("token", "list").out == tokens, "token 2 stays revoked, token 3 stays")
        #expect(
            try clipctl(
                "register", "https://bikesrental.example/after", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T",
                "--subtitle", "S"
            ).out.hasPrefix("registered experience 7:"),
            "experience 6 was handed out before the restore")
        #expect(!admin.isEmpty && !leaked.isEmpty)

        // A backup whose content the registry cannot read is refused by name; nothing changes.
        #expect(try clipctl("backup", "bad.db").code == 0)
        try sqlite(clipctl.file("bad.db"), "UPDATE advanced_experience SET url = 'ht!tp://??', host = '' WHERE id = 2")
        let live = try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db")))
        let state = try clipctl.state()
        let bad = try clipctl("restore", "bad.db")
        #expect(
            bad.code == 1
                && bad.err.hasPrefix("clipctl: bad.db has content this version cannot use (2 problems, first: experience 2: url: "),
            "\(bad.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db"))) == live && (try clipctl.state()) == state)
        #expect(try clipctl("list").code == 0)
    }

    @Test func backupRefusesMissingDatabasesAndTheDatabasesOwnNames() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let journal = try clipctl("backup", "clips.db-journal")
        #expect(
            journal.code == 65
                && journal.err
                    == "clipctl: clips.db-journal is the database's journal file (SQLite's name for it); choose another name for the backup\n"
        )
        #expect(try clipctl("--db", "./clips.db", "backup", "clips.db-wal").code == 65)
        #expect(!FileManager.default.fileExists(atPath: clipctl.file("clips.db-journal")))
        #expect(try clipctl("list").out.split(separator: "\n").count == 5)
        let typo = try clipctl("--db", "typo.db", "backup", "x.db")
        #expect(typo.code == 1 && typo.err == "clipctl: no database at typo.db\n" && typo.out.isEmpty)
        #expect(
            !FileManager.default.fileExists(atPath: clipctl.file("typo.db"))
                && !FileManager.default.fileExists(atPath: clipctl.file("x.db")))
        #expect(try clipctl("backup", "").code == 64)
        #expect(try clipctl("restore", "").code == 64)
    }

    @Test func headerImageIsValidatedAndStored() throws {
        let clipctl = try Clipctl()
        func png(_ w: Int, _ h: Int, colorType: UInt8) -> Data { Data(TestImages.png(width: w, height: h, colorType: colorType)) }
        try png(1800, 1200, colorType: 2).write(to: URL(fileURLWithPath: clipctl.file("ok.png")))
        try png(1800, 1200, colorType: 6).write(to: URL(fileURLWithPath: clipctl.file("alpha.png")))
        let alpha = try clipctl(
            "register", "https://a.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S", "--image", "alpha.png")
        #expect(alpha.code == 65 && alpha.err.contains("image.alpha"))
        let ok = try clipctl(
            "register", "https://a.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S", "--image", "ok.png",
            "--json")
        #expect(ok.code == 0)
        #expect(try JSONParser.parse(ok.out)["headerImage"]?.stringValue?.count == 64)
        // A file that only starts like a PNG is refused (no IDAT, no IEND, a wrong CRC).
        var truncated = png(1800, 1200, colorType: 2)
        truncated.removeLast(12)
        try truncated.write(to: URL(fileURLWithPath: clipctl.file("truncated.png")))
        let bad = try clipctl(
            "register", "https://c.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S", "--image",
            "truncated.png")
        #expect(bad.code == 65 && bad.err.contains("image.format"))
        // A 3×2 image's data under an IHDR of 30,000×20,000: the sides are checked before the data.
        try Data(TestImages.png(width: 3, height: 2, ihdrWidth: 30_000, ihdrHeight: 20_000)).write(
            to: URL(fileURLWithPath: clipctl.file("huge.png")))
        let huge = try clipctl(
            "register", "https://c.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S", "--image", "huge.png")
        #expect(huge.code == 65 && huge.err.contains("image.dimensions"))
        #expect(try clipctl("list").out.contains("c.example") == false)
        let missing = try clipctl(
            "register", "https://b.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S", "--image", "nope.png")
        #expect(missing.code == 1 && missing.err.contains("cannot read --image file nope.png"))
    }
}
