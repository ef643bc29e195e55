import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import StrictJSON
import TestSupport
import Testing

/// `clipctl serve` as a process, and `clipctl --server` against it: the same commands give the
/// same output and exit codes as on a local database (docs/application-layer.md#clipctl).
final class ServeProcess {
    let process = Process()
    let port: Int
    let clipctl: Clipctl

    /// `softDescriptorLimit`: started under that soft RLIMIT_NOFILE (`ulimit -Sn`, as systemd's 1024).
    init(
        _ clipctl: Clipctl, database: String, listen: String = "127.0.0.1:0", arguments: [String] = [], softDescriptorLimit: Int? = nil,
        wrapper: [String] = [], environment: [String: String] = [:]
    ) throws {
        self.clipctl = clipctl
        process.executableURL = Clipctl.binary
        process.arguments = ["--db", database, "serve", "--listen", listen, "--quiet"] + arguments
        // A command that runs clipctl (its path and arguments follow), such as a mount namespace.
        if let first = wrapper.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(wrapper.dropFirst()) + [Clipctl.binary.path] + process.arguments!
        }
        if let softDescriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -Sn \(softDescriptorLimit) && exec \"$0\" \"$@\"", Clipctl.binary.path] + process.arguments!
        }
        process.currentDirectoryURL = clipctl.directory
        // The App Store Connect tests' quick waits (AppStoreConnectProcessTests.prepare), for a server's apply too.
        process.environment = ProcessInfo.processInfo.environment.merging(
            clipctl.environment.filter { $0.key == "CLIP_ASC_WAIT_SCALE" }, uniquingKeysWith: { $1 }
        ).merging(environment, uniquingKeysWith: { $1 })
        let out = Pipe()
        process.standardOutput = out
        // The server's log (and a sanitizer's report, if any) stays beside the test's files.
        _ = FileManager.default.createFile(atPath: clipctl.file("serve-stderr.log"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: clipctl.file("serve-stderr.log")) ?? FileHandle.nullDevice
        try process.run()
        // The first line says where it listens: "serving DB on http://127.0.0.1:PORT".
        let text = out.firstLine()
        guard let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw Clipctl.CLIError(message: "serve printed \(text)")
        }
        self.port = port
    }

    /// SIGTERM: a graceful stop, exit 0. A server still running 20 s later is killed and the
    /// answer is -1, so a stop that does not happen fails the test instead of hanging the suite.
    func stop() -> Int32 {
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }

    /// A server on a fresh database (`served.db`), and a `clipctl` that sends every command to it with an admin token.
    static func withAdmin() throws -> (Clipctl, ServeProcess) {
        var remote = try Clipctl()
        let token = try remote("--db", "served.db", "token", "create", "--admin", "--name", "test").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = token
        return (remote, server)
    }
}

@Suite(.serialized) struct RemoteModeTests {
    @Test func theSameCommandsGiveTheSameOutputOverTheAPI() throws {
        let local = try Clipctl()
        try local.registerExampleBusinesses()

        let (remote, server) = try ServeProcess.withAdmin()
        try remote.registerExampleBusinesses()

        let commands: [[String]] = [
            ["list"], ["list", "--json"], ["list", "--host", "brighteggcafe.example"],
            ["resolve", "https://brighteggcafe.example/store/cupertino/menu", "--language", "fr", "--explain"],
            ["resolve", "https://brighteggcafe.example/stores", "--explain"],
            ["resolve", "https://melamela.example/order?x=1", "--json"],
            ["resolve", "http://melamela.example/order"],
            ["aasa", "brighteggcafe.example"], ["aasa", "brighteggcafe.example", "--json"], ["aasa", "nothing.example"],
            ["aasa", "Brighteggcafe.Example."], ["aasa", "brighteggcafe.example\u{200B}"],
            ["aasa", "check", "https://brighteggcafe.example/store/cupertino/menu", "--app", "ABCDE12345.com.example.bikes"],
            ["aasa", "lint", "brighteggcafe.example", "--json"],
            ["resolve", "https://melamela.example/order?x=1"], ["resolve", "https://nothing.example/", "--json"],
            ["resolve", "not a url"],
            ["banner", "https://melamela.example/order", "--app-argument", "https://melamela.example/o?a=1,2"],
            ["banner", "https://melamela.example/order", "--json"], ["banner", "https://nothing.example/"],
            ["export"], ["export", "--format", "csv"], ["clip", "list"], ["domain", "list"],
            // Codes: the routes give the bytes and the refusals clipctl gives on the database.
            ["code", "1"], ["code", "1", "--format", "ndef-hex"],
            ["code", "https://melamela.example/order?x=1", "--ecc", "H", "--size", "30mm"],
            ["code", "1", "--format", "png", "--size", "12", "-o", "one.png", "--json"], ["code", "1", "--format", "png"],
            ["code", "https://nowhere.example/"], ["code", "http://melamela.example/order"], ["code", "99", "--format", "ndef-hex"],
            ["code", "https://melamela.example/order\u{200B}"],
            ["code", "01"], ["code", "1", "--format", "ndef", "--ecc", "M"], ["code", "1", "--format", "gif"],
            ["code", "1", "--ecc", "Z"], ["code", "1", "--format", "ndef", "-o", "one.ndef", "--json"], ["code", "1", "--json"],
            // Catalog writes, each twice (the second changes nothing), and one for the wrong team.
            ["app", "set", "com.example.bikes", "--team", "ABCDE12345", "--name", "Bikes"],
            ["app", "set", "com.example.bikes", "--team", "ABCDE12345", "--name", "Bikes", "--json"],
            ["app", "set", "com.example.bikes", "--team", "FGHIJ67890", "--name", "Taken"],
            ["app", "set", "com.example.scooters", "--team", "ABCDE12345", "--app-store-id", "123"],
            ["app", "show", "com.example.scooters"],
            ["app", "set", "com.example.scooters", "--team", "ABCDE12345", "--no-app-store-id"], ["app", "list", "--json"],
            ["clip", "add", "ABCDE12345.com.example.scooters.Clip"], ["clip", "add", "ABCDE12345.com.example.scooters.Clip", "--json"],
            ["clip", "add", "FGHIJ67890.com.example.scooters.Other"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters", "--json"],
            ["default", "set", "ABCDE12345.com.example.trikes.Clip", "--action", "VIEW", "--subtitle", "fr-FR=Tricycles"],
            ["default", "show", "ABCDE12345.com.example.trikes.Clip"],
            // A locale twice, in any case: refused with every field error, nothing written.
            [
                "default", "set", "ABCDE12345.com.example.trikes.Clip", "--subtitle", "fr-FR=A", "--subtitle", "fr-fr=B", "--subtitle",
                "x=C",
            ],
            ["default", "set", "ABCDE12345.com.example.trikes.Clip", "--subtitle", "de-DE=A", "--subtitle", "de-DE=B", "--json"],
            // An unknown clip is not found for who sees every clip; an empty URL is no URL.
            ["list", "--clip", "ABCDE12345.com.nope.Clip"], ["list", "--clip", "com.nope.Clip", "--json"], ["resolve", ""],
            ["resolve", "", "--json"],
            ["domain", "add", "ABCDE12345.com.example.scooters.Clip", "scooters.example"],
            ["domain", "add", "ABCDE12345.com.example.scooters.Clip", "scooters.example", "--json"],
            ["domain", "share", "scooters.example", "--team", "FGHIJ67890"],
            ["domain", "share", "scooters.example", "--team", "FGHIJ67890", "--json"],
            ["domain", "unshare", "scooters.example", "--team", "FGHIJ67890"], ["domain", "owners", "--json"], ["domain", "owners"],
            ["domain", "share", "scooters.example", "--team", "FGHIJ67890"],
            ["domain", "unshare", "scooters.example", "--team", "FGHIJ67890", "--json"],
            ["domain", "unshare", "scooters.example", "--team", "FGHIJ67890"],  // again: nothing to end
            ["domain", "unshare", "scooters.example", "--team", "ABCDE12345"],  // the owner: refused
            // The default experience answers a URL of its host; misses and unresolvable URLs, explained or not.
            ["resolve", "https://scooters.example/ride", "--explain"], ["resolve", "https://scooters.example/ride", "--json", "--explain"],
            ["resolve", "https://nowhere.example/", "--json"], ["resolve", "https://nowhere.example/", "--explain"],
            ["resolve", "not a url", "--json"], ["resolve", "https://brighteggcafe.example/store/cupertino/menu", "--json", "--explain"],
            ["applinks", "set", "help.scooters.example", "--app", "com.example.scooters", "--components", #"[{"/":"/help/*"}]"#],
            ["applinks", "set", "help.scooters.example", "--app", "com.example.scooters", "--components", #"[{"/":"/help/*"}]"#, "--json"],
            ["applinks", "generate", "help.scooters.example", "on", "--json"],
            ["applinks", "webcredentials", "add", "login.scooters.example", "--app", "com.example.scooters"],
            ["applinks", "webcredentials", "add", "login.scooters.example", "--app", "com.example.scooters", "--json"],
            ["applinks", "settings", "help.scooters.example", "--defaults", #"{"caseSensitive":false}"#],
            ["applinks", "settings", "help.scooters.example", "--defaults", #"{"caseSensitive":false}"#, "--json"],
            ["applinks", "settings", "help.scooters.example", "--defaults", #"{"caseSensitive":false}"#],  // nothing to change
            ["applinks", "settings", "help.scooters.example"],
            ["applinks", "generate", "help.scooters.example", "on"], ["applinks", "generate", "help.scooters.example", "off", "--json"],
            ["applinks", "generate", "help.scooters.example", "off"],
            ["applinks", "remove", "help.scooters.example", "--app", "com.example.scooters"],
            ["applinks", "remove", "help.scooters.example", "--app", "com.example.scooters", "--json"],  // again: not found
            ["applinks", "webcredentials", "remove", "login.scooters.example", "--app", "com.example.scooters", "--json"],
            ["applinks", "webcredentials", "remove", "login.scooters.example", "--app", "com.example.scooters"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters"],
            ["default", "show", "ABCDE12345.com.example.scooters.Clip"],
            // The default experience's image: uploaded, then named by hash over the API; refusals alike.
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters", "--image", "apple.png"],
            ["default", "show", "ABCDE12345.com.example.scooters.Clip", "--json"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters", "--image", "alpha.png"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters", "--image", "empty.png"],
            ["default", "set", "ABCDE12345.com.example.scooters.Clip", "--subtitle", "en-US=Scooters, shown", "--json"],
            // A clip's App ID keeps its team over the API: team KLMNO13579's clip named with team
            // ABCDE12345's prefix is not found, never stripped to the bundle ID and acted on.
            ["domain", "add", "ABCDE12345.com.melamela.app.Clip", "fresh1.example"],
            ["domain", "remove", "ABCDE12345.com.melamela.app.Clip", "melamela.example"],
            ["clip", "show", "ABCDE12345.com.melamela.app.Clip"], ["default", "show", "ABCDE12345.com.melamela.app.Clip"],
            ["default", "remove", "ABCDE12345.com.melamela.app.Clip"], ["clip", "remove", "ABCDE12345.com.melamela.app.Clip"],
            ["default", "set", "ABCDE12345.com.melamela.app.Clip", "--subtitle", "en-US=Hijacked"],
            ["clip", "show", "KLMNO13579.com.melamela.app.Clip"], ["clip", "show", "com.melamela.app.Clip"],
            ["domain", "add", "KLMNO13579.com.melamela.app.Clip", "fresh2.example"],
            ["domain", "remove", "KLMNO13579.com.melamela.app.Clip", "fresh2.example"],
            ["token", "revoke", "999"], ["token", "revoke", "x"],
            // Webhooks (endpoint 1 added on each side below; its secret differs), change records and tokens' refusals.
            ["webhook", "list"], ["webhook", "list", "--json"], ["webhook", "enable", "1"], ["webhook", "enable", "1", "--json"],
            ["webhook", "deliveries", "1"], ["webhook", "deliveries", "1", "--json", "--limit", "5"], ["webhook", "deliveries", "99"],
            ["webhook", "deliveries", "1", "--limit", "1001"], ["webhook", "test", "x"], ["webhook", "enable", "0"],
            ["webhook", "add", "https://hooks.example.com/other", "--events", "nope"],
            ["webhook", "add", "https://hooks.example.com/other", "--events", "*", "--team", "abc"],
            ["webhook", "add", "https://hooks.example.com/in", "--events", "*"],  // the same URL again: a conflict
            ["webhook", "remove", "99"], ["webhook", "remove", "1"], ["webhook", "remove", "1", "--json"], ["webhook", "list", "--json"],
            ["changes", "--since", "x"], ["changes", "--limit", "0"], ["changes", "--limit", "10001"],
            ["token", "create", "--admin", "--team", "ABCDE12345", "--name", "x"], ["token", "create", "--team", "abc", "--name", "x"],
            ["token", "create", "--admin"], ["token", "revoke", "-1"],
            ["show", "https://BrightEggCafe.example/store/"], ["show", "99"], ["deactivate", "https://melamela.example/order"], ["list"],
            ["register", "http://x.example", "--clip", "nope", "--title", "", "--subtitle", "s"],
            [
                "register", "https://melamela.example/reservation/", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "T",
                "--subtitle", "S",
            ],
            ["update", "1", "--title", String(repeating: "x", count: 31)],
            // Header images: uploaded first over the API (POST /v1/images), then named by hash; the same
            // output, warnings and refusals as on the database.
            [
                "register", "https://melamela.example/photo", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "P", "--subtitle",
                "S", "--image", "apple.png",
            ],
            [
                "register", "https://melamela.example/small", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "P", "--subtitle",
                "S", "--image", "small.jpg", "--json",
            ],
            ["update", "3", "--image", "apple.png"], ["update", "3", "--image", "apple.png", "--json"],
            ["update", "3", "--image", "alpha.png"], ["update", "3", "--image", "empty.png"],
            ["update", "3", "--image", "small.jpg"], ["update", "3", "--image", "small.jpg", "--json"],
            [
                "register", "https://melamela.example/bad", "--clip", "KLMNO13579.com.melamela.app.Clip", "--title", "P", "--subtitle", "S",
                "--image", "lying.png",
            ],
            ["remove", "2"], ["list", "--json"],
            ["import", "-"],
            // One language changes one language; no-op writes make no version (docs/rules.md#updates-and-versions).
            ["update", "3", "--localization", "DE=Bright Egg|Unser Flaggschiff"], ["show", "3", "--json"],
            ["update", "3", "--remove-localization", "FR"], ["show", "3"],
            ["update", "3", "--localization", "EN=Bright Egg|Flagship"],
            ["deactivate", "4"], ["activate", "4"], ["activate", "4"], ["update", "4", "--title", "Order"], ["show", "4", "--json"],
            // The doctor over GET /v1/bulk: the same report, byte for byte, and the same exit code.
            ["doctor"], ["doctor", "--json"], ["doctor", "--host", "melamela.example", "--json"], ["doctor", "--host", "scooters.example"],
            ["doctor", "--host", "nowhere.example"], ["doctor", "--host", "not a host"],
        ]
        for c in [local, remote] {
            // An event no command here causes: no delivery is queued, which a server would try and a database not.
            #expect(try c.run(["webhook", "add", "https://hooks.example.com/in", "--events", "asc.testflight.applied"]).code == 0)
        }
        for c in [local, remote] {
            try Data(TestImages.png(width: 1800, height: 1200, grey: 3)).write(to: URL(fileURLWithPath: c.file("apple.png")))
            try Data(TestImages.jpeg(width: 300, height: 200)).write(to: URL(fileURLWithPath: c.file("small.jpg")))
            try Data(TestImages.png(width: 1800, height: 1200, colorType: 6)).write(to: URL(fileURLWithPath: c.file("alpha.png")))
            try Data().write(to: URL(fileURLWithPath: c.file("empty.png")))
            try Data(TestImages.png(width: 3, height: 2, ihdrWidth: 1800, ihdrHeight: 1200)).write(
                to: URL(fileURLWithPath: c.file("lying.png")))
        }
        let importInput = "{\"url\":\"https://new.example/a\",\"clip\":\"ABCDE12345.com.example.bikes.Clip\",\"title\":\"A\"}\n"
        for args in commands {
            let a = try local.run(args, stdin: args == ["import", "-"] ? importInput : nil)
            let b = try remote.run(args, stdin: args == ["import", "-"] ? importInput : nil)
            #expect(a.code == b.code, "\(args): exit \(a.code) locally, \(b.code) remotely: \(b.err)")
            #expect(Self.withoutTimes(a.out) == Self.withoutTimes(b.out), "\(args)")
            #expect(a.err == b.err, "\(args)")
        }
        // The same change records, action for action, with or without a server between.
        func history(_ c: Clipctl) throws -> [String] {
            let records = try JSONParser.parse(Array(try c.run(["changes", "--json", "--limit", "1000"]).out.utf8)).arrayValue ?? []
            // An image uploaded before the write (POST /v1/images) or carried by it is recorded alike.
            return records.compactMap { r in
                r["entity"] == "token"
                    ? nil : "\(r["action"]?.stringValue ?? "") \(r["entity"]?.stringValue ?? "") \(r["entityId"]?.stringValue ?? "")"
            }
        }
        #expect(try history(local) == history(remote))
        // What the commands above say, the same both ways (found by hostile QA, each differed or was wrong).
        for c in [local, remote] {
            let settings = try c.run(["applinks", "settings", "help.scooters.example", "--defaults", #"{"caseSensitive":false}"#])
            #expect(settings.code == 0 && settings.out == "nothing to change\n", "\(settings.out)")
            let same = try c.run(["applinks", "settings", "help.scooters.example", "--defaults", #"{"caseSensitive":false}"#, "--json"])
            #expect(try JSONParser.parse(Array(same.out.utf8))["changed"] == .bool(false), "\(same.out)")
            let unknown = try c.run(["list", "--clip", "ABCDE12345.com.nope.Clip"])
            #expect(unknown.code == 1 && unknown.err.contains("com.nope.Clip"), "\(unknown.err)")
            let small = try c.run(["update", "3", "--image", "small.jpg"])
            #expect(small.err.contains("300×200; Apple asks for 1800×1200"), "\(small.err)")
            #expect(try history(c).filter { $0.hasPrefix("update applinks-settings") }.count == 1, "one change, the first")
        }
        #expect(
            try remote.run(["changes", "--json", "--limit", "1000"]).out.contains("\"entity\": \"header-image\""), "an upload is recorded")

        // publish over GET /v1/bulk writes the same tree, to the same DIR (nginx.conf.sample names it), with the same output.
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("remote-publish-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: site) }
        let published = try local.run(["publish", site, "--json"])
        #expect(published.code == 0, "\(published.err)")
        let tree = try DoctorPublishTests.tree(site)
        try FileManager.default.removeItem(atPath: site)
        let remotelyPublished = try remote.run(["publish", site, "--json"])
        #expect(remotelyPublished.code == 0 && remotelyPublished.out == published.out && remotelyPublished.err == published.err)
        #expect(try DoctorPublishTests.tree(site) == tree && tree.count > 5, "\(tree.keys.sorted())")
        // Each AASA as the server serves it at /.well-known/.
        let hosts = tree.keys.filter { $0.hasSuffix("/.well-known/apple-app-site-association") }
        #expect(hosts.count >= 3)
        for path in hosts {
            let host = String(path.prefix { $0 != "/" })
            let served = try DoctorPublishTests.curl(port: server.port, host: host, path: "/.well-known/apple-app-site-association")
            #expect(served.status == 200 && Data(served.body.utf8) == tree[path], "\(host)")
        }
        #expect(try remote.run(["publish", site]).out == local.run(["publish", site]).out, "the text output too")
        // The team-crossing references above failed and wrote nothing, on either side.
        for c in [local, remote] {
            let failed = try c.run(["domain", "add", "ABCDE12345.com.melamela.app.Clip", "fresh3.example"])
            #expect(failed.code == 1 && failed.err.contains("belongs to another team"), "\(failed.err)")
            #expect(try !history(c).contains { $0.contains("fresh1.example") || $0.contains("Hijacked") })
            #expect(try c.run(["domain", "list"]).out.contains("melamela.example"))
        }
        let recent = try history(local).suffix(4)
        #expect(recent == ["remove experience 2", "update experience 3", "update experience 3", "activate experience 4"], "\(recent)")
        #expect(server.stop() == 0, "SIGTERM stops the server gracefully")
    }

    /// Timestamps differ between two databases; everything else must not.
    static func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("edAt\"") || line.hasPrefix("  created:") || line.hasPrefix("  updated:") ? "" : String(line)
        }.joined(separator: "\n")
    }

    /// Every write's `--json` is the object written with `notes` always present (possibly empty),
    /// local and remote alike: `app set` kept its notes, a repeated write says `[]`, and
    /// `webcredentials add` prints what it added rather than a bare acknowledgement.
    @Test func everyWritesJSONCarriesItsNotes() throws {
        let local = try Clipctl()
        var remote = try Clipctl()
        let created = try remote("--db", "served.db", "token", "create", "--admin", "--name", "test")
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        var outputs: [[String]] = []
        for c in [local, remote] {
            try c.registerExampleBusinesses()
            func write(_ args: [String]) throws -> JSONValue {
                let r = try c.run(args + ["--json"])
                #expect(r.code == 0, "\(args): \(r.err)")
                return try JSONParser.parse(Array(r.out.utf8))
            }
            let app = try write(["app", "set", "com.example.trikes", "--team", "ABCDE12345", "--name", "Trikes"])
            #expect(app["notes"] == ["created app com.example.trikes (team ABCDE12345)"], "\(app)")
            let again = try write(["app", "set", "com.example.trikes", "--team", "ABCDE12345", "--name", "Trikes"])
            #expect(again["notes"] == [], "\(again)")
            let update = try write(["update", "1", "--subtitle", "Ride in seconds"])
            #expect(update["subtitle"] == "Ride in seconds" && update["notes"] == [], "\(update)")
            let credentials = try write(["applinks", "webcredentials", "add", "Login.BikesRental.example", "--app", "com.example.bikes"])
            #expect(credentials["host"] == "login.bikesrental.example" && credentials["notes"] != nil, "\(credentials)")
            let links = ["applinks", "set", "bikesrental.example", "--app", "com.example.bikes", "--components", #"[{"/":"/rent/*"}]"#]
            _ = try write(links)
            #expect(try write(links)["notes"] == [])
            #expect(try write(["applinks", "generate", "bikesrental.example", "off"])["notes"] == [])
            let settings = try write(["applinks", "settings", "bikesrental.example", "--defaults", #"{"caseSensitive":false}"#])
            #expect(settings["defaults"] == ["caseSensitive": false] && settings["notes"] == [], "\(settings)")
            // Text: a repeated write that changes nothing says so.
            let subtitle = ["update", "1", "--subtitle", "Ride in seconds"]
            #expect(try c.run(subtitle).out == "nothing to change\n")
            #expect(try c.run(["update", "1", "--subtitle", "Ride on"]).out == "updated experience 1 (version 3)\n")
            let addCredentials = ["applinks", "webcredentials", "add", "login.bikesrental.example", "--app", "com.example.bikes"]
            #expect(try c.run(addCredentials).out == "nothing to change\n")
            let fresh = try c.run(["applinks", "webcredentials", "add", "id.bikesrental.example", "--app", "com.example.bikes"])
            #expect(fresh.out.hasPrefix("webcredentials of id.bikesrental.example updated\n"), "\(fresh.out)")
            outputs.append([app, again, update, credentials].map { JSONWriter.string($0, pretty: true) })
        }
        #expect(outputs[0].map(Self.withoutTimes) == outputs[1].map(Self.withoutTimes))
    }

    /// A refused write over `--server` writes nothing, even when the command sends more than one request
    /// (found by hostile QA: the clip of a refused `default set`, the image of a refused `register`, stayed).
    @Test func aRefusedCommandOfSeveralRequestsWritesNothingOnTheServer() throws {
        var remote = try Clipctl()
        let created = try remote("--db", "served.db", "token", "create", "--admin", "--name", "test")
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data(TestImages.png(width: 1800, height: 1200, grey: 9)).write(to: URL(fileURLWithPath: remote.file("card.png")))
        try remote.registerExampleBusinesses()
        let before = try remote.state()
        let long = String(repeating: "a", count: 300)
        let refusals = [
            ["default", "set", "NEWCL12345.com.new.Clip", "--subtitle", "en-US=\(long)", "--image", "card.png"],
            [
                "register", "https://zq.example/a", "--clip", "ZQZQZ12345.com.zq.Clip", "--title", "", "--subtitle", "b", "--image",
                "card.png",
            ],
            ["update", "1", "--title", "", "--image", "card.png"],
        ]
        for words in refusals {
            let refused = try remote.run(words)
            #expect(refused.code == 65, "\(words): \(refused.err)")
        }
        #expect(try remote.state() == before)
    }

    /// `changes` says on standard error where the rest begins (local and remote alike, --json too),
    /// and `token create --team` of a new team says it created the team and records it.
    @Test func changesSayWhereTheRestBeginsAndTokenCreationNotesItsTeam() throws {
        let local = try Clipctl()
        var remote = try Clipctl()
        let created = try remote("--db", "served.db", "token", "create", "--admin", "--name", "test")
        let server = try ServeProcess(remote, database: remote.file("served.db"))
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        for c in [local, remote] {
            let created = try c.run(["token", "create", "--team", "ZYXWV98765", "--name", "t"])
            #expect(created.code == 0 && created.err.contains("  created team ZYXWV98765"), "\(created.err)")
            #expect(created.out.split(separator: "\n").count == 1, "the secret alone on standard output")
            let again = try c.run(["token", "create", "--team", "ZYXWV98765", "--name", "t2", "--json"])
            #expect(
                try JSONParser.parse(Array(again.out.utf8))["notes"] == [],
                "every write's --json carries its notes, none here: \(again.out)")
            try c.registerExampleBusinesses()
        }
        // Local ids start after the remote's first token; compare the hints' shape and the records listed.
        for c in [local, remote] {
            let all = try c.run(["changes", "--json", "--limit", "1000"])
            let records = try JSONParser.parse(Array(all.out.utf8)).arrayValue ?? []
            #expect(all.err.isEmpty, "\(all.err)")
            #expect(records.contains { $0["entity"] == "team" && $0["entityId"] == "ZYXWV98765" && $0["action"] == "create" })
            let ids = records.compactMap { r -> Int64? in if case .integer(let n)? = r["id"] { n } else { nil } }
            let first = try c.run(["changes", "--limit", "2"])
            #expect(first.code == 0 && first.out.split(separator: "\n").count == 2)
            #expect(first.err == "more records follow: clipctl changes --since \(ids[1]) --limit 2\n", "\(first.err)")
            let json = try c.run(["changes", "--limit", "2", "--json"])
            let listed = try JSONParser.parse(Array(json.out.utf8)).arrayValue?.count
            #expect(json.err == "more records follow: clipctl changes --since \(ids[1]) --limit 2 --json\n" && listed == 2)
            // The last page says nothing more; neither does a page that ends exactly at the last record.
            let rest = try c.run(["changes", "--since", String(ids[ids.count - 3]), "--limit", "2"])
            #expect(rest.out.split(separator: "\n").count == 2 && rest.err.isEmpty, "\(rest.err)")
            let beyond = try c.run(["changes", "--since", String(ids[1]), "--limit", "1000"])
            #expect(beyond.err.isEmpty && beyond.out.split(separator: "\n").count == ids.count - 2)
        }
        #expect(server.stop() == 0)
    }

    @Test func anUnreachableServerExits69AndBadTokensExit1() throws {
        var clipctl = try Clipctl()
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:1"
        let down = try clipctl("list")
        #expect(down.code == 69 && down.err.contains("cannot reach the server"))
        let server = try ServeProcess(clipctl, database: clipctl.file("s.db"))
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        clipctl.environment["CLIP_TOKEN"] = "clip_1_" + String(repeating: "a", count: 64)
        let denied = try clipctl("list")
        #expect(denied.code == 1 && denied.err.contains("check --token"))
        #expect(try clipctl("resolve", "https://a.example/").code == 1, "public routes need no token")
        #expect(try clipctl("--server", "ftp://x", "list").code == 64)
        _ = server.stop()
    }

    /// A SIGTERM sent as soon as the server says where it listens stops it (the signal handlers
    /// are in place before that line; they were installed after it, and such a SIGTERM was lost).
    @Test func aSIGTERMRightAfterStartStopsTheServer() throws {
        let clipctl = try Clipctl()
        for _ in 0..<10 {
            let server = try ServeProcess(clipctl, database: clipctl.file("s.db"))
            #expect(server.stop() == 0)
        }
    }

    /// --listen takes a name (resolved) or a bracketed IPv6 literal.
    @Test func listenOnLocalhostAndIPv6() throws {
        let clipctl = try Clipctl()
        let token = try clipctl("--db", "s.db", "token", "create", "--admin", "--name", "t").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let named = try ServeProcess(clipctl, database: clipctl.file("s.db"), listen: "localhost:0")
        let r = try clipctl("--server", "http://localhost:\(named.port)", "--token", token, "list", "--json")
        #expect(r.code == 0 && r.out == "[]\n", "\(r.err)")
        #expect(named.stop() == 0)
        // IPv6 loopback, over a raw socket.
        let v6 = try ServeProcess(clipctl, database: clipctl.file("s.db"), listen: "[::1]:0")
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        // Never wait forever on the answer: the test fails instead of hanging the suite.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(v6.port).bigEndian)
        inet_pton(AF_INET6, "::1", &address.sin6_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        #expect(connected == 0)
        let request = Array("GET /healthz HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_WAITALL)) }
        #expect(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        #expect(v6.stop() == 0)
        let bare = try clipctl("serve", "--listen", "::1:8080")
        #expect(bare.code == 64 && bare.err.contains("brackets"))
    }

    /// A server that accepts and never answers: clipctl gives up after CLIP_TIMEOUT, exit 69.
    @Test func aSilentServerTimesOutWithExit69() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 8)  // the kernel completes connections; nobody ever answers
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        var clipctl = try Clipctl()
        clipctl.environment["CLIP_TIMEOUT"] = "1"
        let r = try clipctl("--server", "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))", "list")
        #expect(r.code == 69, "\(r.err)")
        #expect(r.err.contains("cannot reach the server"))
    }

    /// An explicit --db wins over CLIP_SERVER; an explicit --server with --db is a usage error.
    @Test func explicitDBOverridesClipServer() throws {
        var clipctl = try Clipctl()
        clipctl.environment["CLIP_SERVER"] = "http://127.0.0.1:9"
        let local = try clipctl("--db", "mine.db", "list")
        #expect(local.code == 0, "\(local.err)")
        #expect(try clipctl("list").code == 69)
        #expect(try clipctl("--db", "mine.db", "--server", "http://127.0.0.1:9", "list").code == 64)
    }
}
