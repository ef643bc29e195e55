import Foundation
import StrictJSON
import Testing

/// `applinks generate`, `doctor` and `publish`, run as a user would.
@Suite(.serialized) struct DoctorPublishTests {
    /// An nginx configuration that runs as a test's own process, everything under `run`: the `http`
    /// block's own lines given. Workers started by root drop to nobody, who must be able to read the files.
    static func nginxConfiguration(run: String, http: String) -> String {
        """
        \(getuid() == 0 ? "user nobody nogroup;" : "")
        daemon off;
        worker_processes 1;
        pid \(run)/nginx.pid;
        error_log \(run)/error.log warn;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(run)/body;
            proxy_temp_path \(run)/proxy;
            fastcgi_temp_path \(run)/fastcgi;
            uwsgi_temp_path \(run)/uwsgi;
            scgi_temp_path \(run)/scgi;
        \(http)
        }
        """
    }

    static let clip = "ABCDE12345.com.shop.app.Clip"

    func registerShop(_ clipctl: Clipctl) throws {
        for (url, title) in [
            ("https://shop.example/order", "Order"), ("https://shop.example/store/12", "Store 12"),
            ("https://shop.example/rent?id=4", "Rent"),
        ] {
            let r = try clipctl("register", url, "--clip", Self.clip, "--title", title, "--subtitle", "Tap to start")
            try #require(r.code == 0, "\(r.err)")
        }
        try #require(try clipctl("app", "set", "com.shop.app", "--team", "ABCDE12345", "--app-store-id", "123456789").code == 0)
        try #require(try clipctl("default", "set", Self.clip, "--subtitle", "en-US=Order ahead").code == 0)
    }

    @Test func generatedApplinksOpenEveryExperienceURLInTheFullApp() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let app = "ABCDE12345.com.shop.app"
        #expect(try clipctl("aasa", "check", "https://shop.example/store/12/menu", "--app", app).code == 1)
        let on = try clipctl("applinks", "generate", "shop.example", "on")
        #expect(on.code == 0, "\(on.err)")
        for url in ["https://shop.example/order", "https://shop.example/store/12/menu", "https://shop.example/rent?id=4&utm_source=qr"] {
            let r = try clipctl("aasa", "check", url, "--app", app)
            #expect(r.code == 0 && r.out.hasPrefix("match: details[0].components["), "\(url): \(r.out)")
        }
        #expect(try clipctl("aasa", "lint", "shop.example").out == "no problems\n")
        // A later experience is covered at once; an exclude rule of the app is reported.
        try #require(
            try clipctl("register", "https://shop.example/help", "--clip", Self.clip, "--title", "Help", "--subtitle", "Ask us").code == 0)
        #expect(try clipctl("aasa", "check", "https://shop.example/help", "--app", app).code == 0)
        try #require(
            try clipctl("applinks", "set", "shop.example", "--app", "com.shop.app", "--components", #"[{"/":"/help/*","exclude":true}]"#)
                .code == 0)
        let checked = try clipctl("--json", "applinks", "generate", "shop.example", "on")
        #expect(checked.code == 1)
        let unmatched = try JSONParser.parse(checked.out)["unmatched"]?.arrayValue ?? []
        #expect(unmatched.map { $0["url"]?.stringValue } == ["https://shop.example/help"])
        #expect(unmatched.first?["rule"]?.stringValue == "details[0].components[0]")
        let off = try clipctl("applinks", "generate", "shop.example", "off")
        #expect(off.code == 0)
        #expect(try clipctl("aasa", "check", "https://shop.example/order", "--app", app).code == 1)
        #expect(try clipctl("applinks", "generate", "shop.example", "maybe").code == 64)
    }

    @Test func doctorFindsMistakesSaysHowToFixThemAndExitsOneOnErrors() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let healthy = try clipctl("doctor")
        #expect(healthy.code == 0 && healthy.out == "no problems found\n", "\(healthy.out)")

        // Warnings only: exit 0.
        try #require(
            try clipctl("register", "https://h2.example/a~b", "--clip", Self.clip, "--title", "A title over eighteen", "--subtitle", "Go")
                .code == 0)
        let warned = try clipctl("doctor")
        #expect(warned.code == 0)
        #expect(warned.out.contains("warning title-length https://h2.example/a~b: the en title is 21 characters"))
        #expect(
            warned.out.contains("warning app-clip-code https://h2.example/a~b: cannot be encoded in an App Clip Code: the host has '2'"))
        #expect(warned.out.hasSuffix("0 error(s), 2 warning(s)\n"))

        // An error: the generated applinks cannot open an experience URL.
        try #require(
            try clipctl("applinks", "set", "shop.example", "--app", "com.shop.app", "--components", #"[{"/":"/order/*","exclude":true}]"#)
                .code == 0)
        _ = try clipctl("applinks", "generate", "shop.example", "on")
        let failed = try clipctl("--json", "doctor")
        #expect(failed.code == 1)
        let report = try JSONParser.parse(failed.out)
        #expect(report["errors"] == 1)
        let first = report["findings"]?.arrayValue?.first
        #expect(first?["code"]?.stringValue == "applinks-miss" && first?["subject"]?.stringValue == "https://shop.example/order")
        #expect(first?["fix"]?.stringValue?.contains("clipctl applinks set shop.example --app com.shop.app") == true)

        // --host narrows the checks to one host.
        let narrowed = try clipctl("doctor", "--host", "h2.example")
        #expect(narrowed.code == 0 && !narrowed.out.contains("shop.example/order"))
        // Over --server too (RemoteModeTests compares the reports); a server that is not there exits 69, as every command does.
        let unreachable = try clipctl("doctor", "--server", "http://127.0.0.1:9")
        #expect(unreachable.code == 69 && unreachable.err.contains("cannot reach the server"), "\(unreachable.err)")
        let badHost = try clipctl("doctor", "--host", "not a host")
        #expect(badHost.code == 65 && badHost.err.contains("host"), "\(badHost.err)")
    }

    @Test func publishWritesDeterministicFilesAndReplacesOnlyItsOwnDirectory() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let site = clipctl.file("site")
        let first = try clipctl("publish", "site")
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out.hasPrefix("published 1 AASA file(s) and 3 banner snippet(s) to \(site)"))
        let aasa = try clipctl("aasa", "shop.example").out
        #expect(try clipctl.read("site/shop.example/.well-known/apple-app-site-association") == aasa)
        #expect(
            try clipctl.read("site/shop.example/banners/1.html").contains(
                #"<meta name="apple-itunes-app" content="app-id=123456789, app-clip-bundle-id=com.shop.app.Clip, app-clip-display=card">"#))
        let index = try JSONParser.parse(Array(try clipctl.read("site/index.json").utf8))
        #expect(index["hosts"] == ["shop.example"])
        let before = try Self.tree(site)
        #expect(before.count == 6)
        for entry in index["files"]?.arrayValue ?? [] {
            let path = entry["path"]?.stringValue ?? ""
            #expect(entry["bytes"] == .integer(Int64(before[path]?.count ?? -1)), "\(path)")
        }

        // Same data, same bytes; a removed experience's banner disappears with the swap.
        #expect(try clipctl("publish", "site").code == 0)
        #expect(try Self.tree(site) == before)
        try #require(try clipctl("remove", "https://shop.example/order").code == 0)
        #expect(try clipctl("publish", "site").code == 0)
        let after = try Self.tree(site)
        #expect(after["shop.example/banners/1.html"] == nil && after["shop.example/banners/2.html"] != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: clipctl.directory.path).filter { $0.contains("publishing") } == [])

        // Somebody else's directory is refused and left untouched.
        try FileManager.default.createDirectory(atPath: clipctl.file("mine"), withIntermediateDirectories: true)
        try clipctl.write("mine/notes.txt", "keep me")
        let refused = try clipctl("publish", "mine")
        #expect(refused.code == 65 && refused.err.contains("was not written by clipctl publish"))
        #expect(try clipctl.read("mine/notes.txt") == "keep me")
        #expect(try clipctl("publish", "site", "--nginx-listen", "80; include /etc/passwd").code == 64)
        try clipctl.write("plain.txt", "a file")
        #expect(try clipctl("publish", "plain.txt").code == 65)
        #expect(try clipctl.read("plain.txt") == "a file")
    }

    @Test func publishNeverDeletesWhatItDidNotWriteNorTheDatabase() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let first = try clipctl("publish", "site")
        try #require(first.code == 0, "\(first.err)")
        #expect(first.out.contains("  added:   index.json\n") && first.out.hasSuffix("  0 file(s) unchanged\n"), "\(first.out)")
        let index = try JSONParser.parse(Array(try clipctl.read("site/index.json").utf8))
        #expect(index["format"] == "clip-registry-publish" && index["formatVersion"] == 1)
        // The same command twice: nothing changes, and it says so.
        let again = try clipctl("publish", "site")
        #expect(
            again.code == 0 && !again.out.contains("added:") && !again.out.contains("changed:")
                && again.out.hasSuffix("  6 file(s) unchanged\n"), "\(again.out)")
        let site = clipctl.file("site")
        let published = try Self.tree(site)

        // Files publish did not write, or that changed since, are listed and nothing is touched.
        try clipctl.write("site/cert.pem", "my certificate")
        try FileManager.default.createDirectory(atPath: clipctl.file("site/logs"), withIntermediateDirectories: true)
        try clipctl.write("site/nginx.conf.sample", try clipctl.read("site/nginx.conf.sample") + "# my edit\n")
        try FileManager.default.createSymbolicLink(atPath: clipctl.file("site/shop.example/latest"), withDestinationPath: "/etc")
        let edited = try Self.tree(site)
        let refused = try clipctl("publish", "site")
        #expect(refused.code == 65)
        #expect(
            refused.err.contains("cert.pem (not listed in index.json)") && refused.err.contains("logs (a folder publish did not make)")
                && refused.err.contains("nginx.conf.sample (changed since it was published)")
                && refused.err.contains("shop.example/latest (not a regular file)"), "\(refused.err)")
        #expect(try Self.tree(site) == edited && FileManager.default.fileExists(atPath: clipctl.file("site/logs")))
        try FileManager.default.removeItem(atPath: clipctl.file("site/cert.pem"))
        try FileManager.default.removeItem(atPath: clipctl.file("site/logs"))
        try FileManager.default.removeItem(atPath: clipctl.file("site/shop.example/latest"))
        try clipctl.write("site/nginx.conf.sample", String(decoding: published["nginx.conf.sample"]!, as: UTF8.self))

        // What changed is listed, on stdout and in --json.
        try #require(try clipctl("remove", "https://shop.example/order").code == 0)
        let changed = try clipctl("--json", "publish", "site")
        let report = try JSONParser.parse(changed.out)
        #expect(
            report["added"] == [] && report["changed"] == ["index.json"] && report["removed"] == ["shop.example/banners/1.html"]
                && report["unchanged"] == 4, "\(changed.out)")

        // Any index.json is not enough: only ours (the format of an earlier version included).
        try FileManager.default.createDirectory(atPath: clipctl.file("theirs"), withIntermediateDirectories: true)
        try clipctl.write("theirs/index.json", #"{"files":[],"hosts":[]}"#)
        try clipctl.write("theirs/page.html", "<p>hi</p>")
        let theirs = try clipctl("publish", "theirs")
        #expect(
            theirs.code == 65 && theirs.err.contains("was not written by clipctl publish") && theirs.err.contains("page.html"),
            "\(theirs.err)")
        #expect(try clipctl.read("theirs/page.html") == "<p>hi</p>")

        // A symbolic link to a published folder publishes into it; the link stays.
        try FileManager.default.createSymbolicLink(atPath: clipctl.file("current"), withDestinationPath: "site")
        let linked = try clipctl("publish", "current")
        #expect(linked.code == 0 && linked.out.contains("to \(site)\n"), "\(linked.out) \(linked.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: clipctl.file("current")) == "site")

        // Never the database's folder or one above it, however it is named.
        let database = try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db")))
        let state = try clipctl.state()
        try FileManager.default.createSymbolicLink(atPath: clipctl.file("here"), withDestinationPath: clipctl.directory.path)
        try FileManager.default.createDirectory(atPath: clipctl.file("sub"), withIntermediateDirectories: true)
        for dir in [".", "..", "here", clipctl.directory.path, "sub/.."] {
            let r = try clipctl("publish", dir)
            #expect(r.code == 65 && r.err.contains("holds the database clips.db"), "publish \(dir): \(r.err)")
        }
        var elsewhere = clipctl
        elsewhere.environment["CLIP_DB"] = clipctl.file("sub/other.db")
        #expect(try elsewhere("publish", "sub").err.contains("holds the database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db"))) == database && (try clipctl.state()) == state)
        #expect(try FileManager.default.contentsOfDirectory(atPath: clipctl.directory.path).filter { $0.contains("publishing") } == [])
    }

    @Test(.enabled(if: DoctorPublishTests.nginx != nil || ProcessInfo.processInfo.environment["CLIP_REQUIRE_NGINX"] == "1"))
    func nginxServesThePublishedDirectoryWithTheSampleConfiguration() throws {
        let nginx = try #require(Self.nginx, "nginx is required (scripts/setup installs nginx-light)")
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        try #require(
            try clipctl(
                "register", "https://cafe.example/menu", "--clip", "FGHIJ67890.com.cafe.app.Clip", "--title", "Menu", "--subtitle", "Today"
            ).code == 0)
        let port = try Self.freePort()
        try #require(try clipctl("publish", "site", "--nginx-listen", "127.0.0.1:\(port)").code == 0)
        let run = clipctl.file("nginx")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        try clipctl.write("nginx/nginx.conf", Self.nginxConfiguration(run: run, http: "include \(clipctl.file("site"))/nginx.conf.sample;"))
        chmod(clipctl.directory.path, 0o755)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: nginx)
        server.arguments = ["-e", "\(run)/error.log", "-p", run, "-c", "\(run)/nginx.conf"]
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }

        let expected = try clipctl("aasa", "shop.example").out
        var answer = try Self.curl(port: port, host: "shop.example", path: "/.well-known/apple-app-site-association")
        for _ in 0..<50 where answer.status == 0 {
            usleep(100_000)
            answer = try Self.curl(port: port, host: "shop.example", path: "/.well-known/apple-app-site-association")
        }
        #expect(answer.status == 200, "\((try? String(contentsOfFile: "\(run)/error.log", encoding: .utf8)) ?? "")")
        #expect(answer.headers.contains("content-type: application/json\r"))
        #expect(answer.body == expected)
        #expect(
            try Self.curl(port: port, host: "cafe.example", path: "/.well-known/apple-app-site-association").body
                == (try clipctl("aasa", "cafe.example").out))
        // Nothing else is served, and nothing redirects.
        #expect(try Self.curl(port: port, host: "shop.example", path: "/.well-known").status == 404)
        #expect(try Self.curl(port: port, host: "shop.example", path: "/banners/2.html").status == 404)
        #expect(try Self.curl(port: port, host: "unknown.example", path: "/.well-known/apple-app-site-association").status == 404)
    }

    static var nginx: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Every file under `root` by relative path.
    static func tree(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = FileManager.default.contents(atPath: "\(root)/\(path)")
            }
        }
        return files
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// curl, a real HTTP client, that never follows redirects: status 0 when nothing answers.
    static func curl(port: Int, host: String, path: String) throws -> (status: Int, headers: String, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        let headers = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headers) }
        process.arguments = [
            "-s", "-D", headers, "--max-time", "5", "--resolve", "\(host):\(port):127.0.0.1", "http://\(host):\(port)\(path)",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let body = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let head = ((try? String(contentsOfFile: headers, encoding: .utf8)) ?? "").lowercased()
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, String(decoding: body, as: UTF8.self))
    }
}
