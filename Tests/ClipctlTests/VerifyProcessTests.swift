import Foundation
import StrictJSON
import Testing

/// `clipctl verify` against local stand-ins started here: an HTTPS site (nginx, a test CA made by openssl)
/// and a stand-in for Apple's CDN. FoundationNetworking trusts only the system's CA file, so clipctl runs in
/// a mount namespace where the test CA is bound over it (`unshare -m`), leaving the machine's store alone.
@Suite(.serialized) struct VerifyProcessTests {
    static let canRun: Bool = {
        guard DoctorPublishTests.nginx != nil, FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "/bin/true"]
        return (try? ProcessRunner.run(probe).code) == 0
    }()

    final class StandIns {
        let clipctl: Clipctl
        let port: Int
        let nginx = Process()
        var namespace: [String] {
            [
                "/usr/bin/unshare", "-m", "/bin/sh", "-c",
                "mount --bind \(clipctl.file("tls/ca.pem")) /etc/ssl/certs/ca-certificates.crt && exec \"$0\" \"$@\"",
            ]
        }
        var siteURL: String { "https://127.0.0.1:\(port)/site/{host}/.well-known/apple-app-site-association" }
        var cdnURL: String { "https://127.0.0.1:\(port)/cdn" }

        init(_ clipctl: Clipctl) throws {
            self.clipctl = clipctl
            port = try DoctorPublishTests.freePort()
            let tls = clipctl.file("tls")
            try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
            try clipctl.write("tls/ext.cnf", "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
            for args in [
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(tls)/ca.key", "-out", "\(tls)/ca.pem", "-days", "2",
                    "-subj", "/CN=verify test CA",
                ],
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(tls)/site.key", "-out", "\(tls)/site.csr", "-subj",
                    "/CN=127.0.0.1",
                ],
                [
                    "x509", "-req", "-in", "\(tls)/site.csr", "-CA", "\(tls)/ca.pem", "-CAkey", "\(tls)/ca.key", "-CAcreateserial", "-out",
                    "\(tls)/site.pem", "-days", "2", "-extfile", "\(tls)/ext.cnf",
                ],
            ] {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                p.arguments = args
                let r = try ProcessRunner.run(p)
                guard r.code == 0 else { throw Clipctl.CLIError(message: "openssl \(args[0]): \(String(decoding: r.err, as: UTF8.self))") }
            }
            let run = clipctl.file("nginx")
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
            let file = "/.well-known/apple-app-site-association"
            try clipctl.write(
                "nginx/nginx.conf",
                DoctorPublishTests.nginxConfiguration(
                    run: run,
                    http: """
                        types { }
                        default_type application/json;
                        server {
                            listen 127.0.0.1:\(port) ssl;
                            ssl_certificate \(tls)/site.pem;
                            ssl_certificate_key \(tls)/site.key;
                            root \(clipctl.directory.path)/www;
                            location = /site/redirect.example\(file) { return 301 https://www.redirect.example\(file); }
                            location = /site/botblock.example\(file) { if ($http_user_agent ~ "AASA-Bot") { return 403; } }
                            location = /site/html.example\(file) { default_type text/html; }
                            location = /site/texthtml.example\(file) { default_type text/html; }
                            location /cdn/ { add_header Apple-Failure-Reason "SWCERR00101 Bad HTTP Response: 404 Not Found" always; }
                        }
                        """))
            chmod(clipctl.directory.path, 0o755)
            nginx.executableURL = URL(fileURLWithPath: DoctorPublishTests.nginx!)
            nginx.arguments = ["-e", "\(run)/error.log", "-p", run, "-c", "\(run)/nginx.conf"]
            try nginx.run()
            // Ready once it accepts a connection.
            for _ in 0..<100 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                close(fd)
                if connected == 0 { break }
                usleep(50_000)
            }
        }

        deinit {
            nginx.terminate()
            nginx.waitUntilExit()
        }

        func serve(site host: String, _ text: String) throws { try put("www/site/\(host)/.well-known/apple-app-site-association", text) }
        func serve(cdn host: String, _ text: String) throws { try put("www/cdn/\(host)", text) }

        func put(_ path: String, _ text: String) throws {
            let url = clipctl.directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            chmod(url.path, 0o644)
            var dir = url.deletingLastPathComponent()
            while dir.path.count > clipctl.directory.path.count {
                chmod(dir.path, 0o755)
                dir = dir.deletingLastPathComponent()
            }
        }

        /// clipctl in the namespace that trusts the test CA.
        func verify(_ arguments: [String]) throws -> Clipctl.Result {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: namespace[0])
            p.arguments = Array(namespace.dropFirst()) + [Clipctl.binary.path] + arguments
            p.environment = clipctl.environment
            p.currentDirectoryURL = clipctl.directory
            return Clipctl.Result(try ProcessRunner.run(p))
        }
    }

    static let hosts = [
        "good.example", "fresh.example", "old.example", "redirect.example", "botblock.example", "html.example", "large.example",
        "texthtml.example",
    ]

    /// Registers a clip on every host, then a second clip on good.example whose association the CDN copy lacks.
    static func standIns() throws -> StandIns {
        let clipctl = try Clipctl()
        let sites = try StandIns(clipctl)
        for (i, host) in hosts.enumerated() {
            let r = try clipctl(
                "register", "https://\(host)/x", "--clip", "ABCDE12345.com.shop\(i).app.Clip", "--title", "T", "--subtitle", "S")
            try #require(r.code == 0, "\(r.err)")
        }
        let old = try clipctl("aasa", "good.example").out
        let oldOther = try clipctl("aasa", "old.example").out
        try #require(try clipctl("clip", "add", "ABCDE12345.com.shop9.app.Clip").code == 0)
        try #require(try clipctl("domain", "add", "ABCDE12345.com.shop9.app.Clip", "good.example").code == 0)
        try #require(try clipctl("clip", "add", "ABCDE12345.com.shop10.app.Clip").code == 0)
        try #require(try clipctl("domain", "add", "ABCDE12345.com.shop10.app.Clip", "old.example").code == 0)
        for host in hosts { try sites.serve(site: host, try clipctl("aasa", host).out) }
        try sites.serve(site: "old.example", oldOther)
        try sites.serve(site: "html.example", "<html><body>502 Bad Gateway</body></html>")
        try sites.serve(site: "large.example", "{\"pad\":\"" + String(repeating: "x", count: 200 * 1024) + "\"}")
        try sites.serve(cdn: "good.example", old)
        try sites.serve(cdn: "fresh.example", try clipctl("aasa", "fresh.example").out)
        return sites
    }

    func verdicts(_ out: String) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for item in (try? JSONParser.parse(out))?["items"]?.arrayValue ?? [] {
            found[item["host"]?.stringValue ?? ""] = item["checks"]?.arrayValue?.compactMap { $0["verdict"]?.stringValue }
        }
        return found
    }

    @Test(.enabled(if: canRun)) func everyCaseHasItsVerdictAndAFix() throws {
        let sites = try Self.standIns()
        let local = ["--allow-private-targets", "--site-url", sites.siteURL, "--cdn-url", sites.cdnURL]
        let fresh = try sites.verify(["verify", "fresh.example", "--explain"] + local)
        #expect(fresh.code == 0, "\(fresh.out) \(fresh.err)")
        #expect(fresh.out.hasPrefix("fresh.example: ok\n"), "\(fresh.out)")
        #expect(fresh.out.contains("applinks:fresh.example?mode=developer") && fresh.out.contains("?mode=developer+managed"))
        #expect(fresh.out.contains("developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.associated-domains"))

        let all = try sites.verify(["--json", "verify"] + local)
        #expect(all.code == 1, "\(all.err)")
        let v = verdicts(all.out)
        #expect(v["good.example"] == ["ok", "differs"], "\(all.out)")
        #expect(v["old.example"] == ["differs", "not-cached"])
        #expect(v["redirect.example"]?.first == "redirect")
        #expect(v["botblock.example"]?.first == "blocked-bot")
        #expect(v["html.example"]?.first == "not-json")
        #expect(v["large.example"]?.first == "too-large")
        #expect(v["texthtml.example"]?.first == "wrong-content-type")

        let text = try sites.verify(["verify", "good.example", "old.example", "redirect.example", "botblock.example"] + local)
        #expect(text.code == 1)
        #expect(text.out.contains("appclips.apps ABCDE12345.com.shop9.app.Clip: in the registry, not served"), "\(text.out)")
        #expect(text.out.contains("lacks 1 change made since "), "\(text.out)")
        #expect(text.out.contains("Apple-Failure-Reason: SWCERR00101"))
        #expect(text.out.contains("HTTP 301 to https://www.redirect.example/.well-known/apple-app-site-association"))
        #expect(text.out.contains("HTTP 403 to AASA-Bot/1.0.0, HTTP 200 to a browser"))

        // Over --server: the server's rules, the same text.
        let server = try ServeProcess(
            sites.clipctl, database: "clips.db",
            arguments: ["--allow-private-targets", "--aasa-site-url", sites.siteURL, "--aasa-cdn-url", sites.cdnURL],
            wrapper: sites.namespace)
        defer { _ = server.stop() }
        let token = try sites.clipctl("token", "create", "--admin", "--name", "v").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let remote = try sites.verify([
            "--server", "http://127.0.0.1:\(server.port)", "--token", token, "verify", "good.example", "old.example", "redirect.example",
            "botblock.example",
        ])
        #expect(remote.code == 1 && remote.out == text.out, "\(remote.out) \(remote.err)")
        let local2 = try sites.verify(["--server", "http://127.0.0.1:\(server.port)", "--token", token, "verify", "--cdn-url", "https://x"])
        #expect(local2.code == 64 && local2.err.contains("--cdn-url applies to a database"))
    }

    @Test(.enabled(if: canRun)) func waitHoldsUntilTheCDNServesTheRegistrysFile() throws {
        let sites = try Self.standIns()
        let local = ["--allow-private-targets", "--site-url", sites.siteURL, "--cdn-url", sites.cdnURL]
        let late = try sites.verify(["verify", "good.example", "--wait", "--wait-intervals", "0.2", "--timeout", "1s"] + local)
        #expect(
            late.code == 1 && late.err.contains("checking again in 0.2 s") && late.err.hasSuffix("not there before --timeout\n"),
            "\(late.err)")
        // The CDN stand-in catches up while clipctl waits.
        let current = try sites.clipctl("aasa", "good.example").out
        let cdnFile = sites.clipctl.file("www/cdn/good.example")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { try? Data(current.utf8).write(to: URL(fileURLWithPath: cdnFile)) }
        let caught = try sites.verify(["verify", "good.example", "--wait", "--wait-intervals", "0.3", "--timeout", "60s"] + local)
        #expect(caught.code == 0 && caught.out.hasPrefix("good.example: ok\n"), "\(caught.out) \(caught.err)")
        #expect(try sites.verify(["verify", "--wait", "--timeout", "soon"] + local).code == 64)
        // Refused before anything is fetched, and without --wait the wait's options are refused too.
        for args in [["--wait", "--timeout", "1e3s"], ["--wait", "--timeout", "0x10s"], ["--timeout", "1h"], ["--wait-intervals", "1"]] {
            let r = try sites.verify(["verify", "good.example"] + args + local)
            #expect(r.code == 64 && r.out.isEmpty, "\(args): \(r.out) \(r.err)")
        }
    }

    @Test(.enabled(if: canRun)) func privateAddressesAreRefusedUnlessAllowed() throws {
        let sites = try Self.standIns()
        let state = try sites.clipctl.state()
        let r = try sites.verify(["--json", "verify", "fresh.example", "--site-url", sites.siteURL, "--cdn-url", sites.cdnURL])
        #expect(r.code == 1)
        #expect(verdicts(r.out)["fresh.example"] == ["refused", "refused"], "\(r.out)")
        #expect(r.out.contains("127.0.0.1 is a loopback address"))
        #expect(try sites.clipctl.state() == state)
        let meta = try sites.verify([
            "verify", "fresh.example", "--site-url", "https://169.254.169.254/{host}", "--cdn-url", "https://[::1]/x",
        ])
        #expect(meta.out.contains("link-local") && meta.out.contains("loopback"), "\(meta.out)")
        // A URL no host makes fetchable is refused up front, as serve refuses it (exit 64).
        let plain = try sites.verify(["verify", "fresh.example", "--allow-private-targets", "--site-url", "http://127.0.0.1:1/{host}"])
        // It names the value given, not the sample host it was tried with (found by hostile QA).
        #expect(plain.code == 64 && plain.err.contains("http://127.0.0.1:1/{host} is not an https URL"), "\(plain.err)")
    }

    /// QA: `serve --aasa-cdn-url garbage` started and every verify was refused later. Now a usage error naming the
    /// option, before the database is touched.
    @Test func serveRefusesAnUnusableCDNOrSiteURL() throws {
        let clipctl = try Clipctl()
        _ = try clipctl("register", "https://a.example/x", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S")
        let state = try clipctl.state()
        for (option, value) in [
            ("--aasa-cdn-url", "garbage"), ("--aasa-cdn-url", "http://cdn.example/a"), ("--aasa-cdn-url", "https://cdn.example/a?x"),
            ("--aasa-site-url", "https://mirror.example/aasa"), ("--aasa-site-url", "ftp://{host}/x"),
            ("--aasa-site-url", "https://{host}\u{200B}/x"),
        ] {
            let r = try clipctl("serve", "--listen", "127.0.0.1:0", option, value)
            #expect(r.code == 64 && r.err.contains("serve \(option)") && !r.err.contains("webhook"), "\(option) \(value): \(r.err)")
        }
        for (name, value) in [
            ("CLIP_AASA_WATCH_SCHEDULE", "soon"), ("CLIP_AASA_WATCH_SCHEDULE", "60,,1"), ("CLIP_AASA_WATCH_FOR", "3 days"),
        ] {
            var watched = clipctl
            watched.environment[name] = value
            let r = try watched("serve", "--listen", "127.0.0.1:0")
            #expect(r.code == 64 && r.err.contains(name), "\(name)=\(value): \(r.err)")
        }
        // QA: 0.001 was taken, and the watch then checked a customer's site about 15 times a second for 72 hours; the
        // options say the same as the variables, and win over them.
        for (option, value) in [
            ("--aasa-watch-schedule", "0.001"), ("--aasa-watch-schedule", "60,0.5"), ("--aasa-watch-for", "soon"),
            ("--aasa-watch-schedule", "0x10"), ("--aasa-watch-schedule", "1e1"), ("--aasa-watch-schedule", "+5"),
        ] {
            var watched = clipctl
            watched.environment["CLIP_AASA_WATCH_SCHEDULE"] = "60"
            let r = try watched("serve", "--listen", "127.0.0.1:0", option, value)
            #expect(r.code == 64 && r.err.contains("serve \(option)"), "\(option) \(value): \(r.err)")
        }
        // The option wins over the variable: a server with a variable it would refuse starts.
        let server = try ServeProcess(
            clipctl, database: "clips.db", arguments: ["--aasa-watch-schedule", "off"], environment: ["CLIP_AASA_WATCH_SCHEDULE": "0.001"])
        #expect(server.stop() == 0)
        #expect(try clipctl.state() == state)
    }

    /// QA: a site and CDN that accept connections and never answer held the server 3 × its timeout (45 s), past
    /// clipctl's 30 s default, exit 69. Now the host's fetches run at once and end by its 20 s deadline: exit 1 with
    /// `unreachable`, under the default CLIP_TIMEOUT, although the server's request timeout is 25 s.
    @Test func aSilentSiteIsAnsweredWithinTheClientsDefaultTimeout() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 64)  // the kernel completes connections; nobody ever answers
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let silent = "https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        var clipctl = try Clipctl()
        clipctl.environment["CLIP_TIMEOUT"] = nil
        _ = try clipctl("register", "https://quiet.example/x", "--clip", "ABCDE12345.com.q.Clip", "--title", "T", "--subtitle", "S")
        let server = try ServeProcess(
            clipctl, database: "clips.db",
            arguments: [
                "--allow-private-targets", "--webhook-timeout", "25", "--aasa-site-url", silent + "/{host}", "--aasa-cdn-url", silent,
            ])
        defer { _ = server.stop() }
        let token = try clipctl("token", "create", "--admin", "--name", "v").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let started = Date()
        let r = try clipctl("--server", "http://127.0.0.1:\(server.port)", "--token", token, "--json", "verify", "quiet.example")
        let took = Date().timeIntervalSince(started)
        #expect(r.code == 1, "\(r.err)")
        #expect(verdicts(r.out)["quiet.example"] == ["unreachable", "unreachable"], "\(r.out)")
        #expect(took < 28, "\(took) s")
    }

    /// End to end with short intervals: serve's watch follows a change to the site and the CDN stand-in, and says
    /// so in verify's answer, /metrics and an `aasa.propagated` delivery.
    @Test(.enabled(if: canRun)) func serveFollowsAChangeToTheSiteAndTheCDN() throws {
        let sites = try Self.standIns()
        let clipctl = sites.clipctl
        #expect(
            try clipctl(
                "webhook", "add", "http://127.0.0.1:9/hook", "--events", "aasa.propagated", "--allow-private-targets"
            ).code == 0)
        let server = try ServeProcess(
            clipctl, database: "clips.db",
            arguments: ["--allow-private-targets", "--aasa-site-url", sites.siteURL, "--aasa-cdn-url", sites.cdnURL],
            wrapper: sites.namespace, environment: ["CLIP_AASA_WATCH_SCHEDULE": "1"])
        defer { _ = server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let token = try clipctl("token", "create", "--admin", "--name", "v").out.trimmingCharacters(in: .whitespacesAndNewlines)
        // The watch's first pass takes the files as they are; the change comes after it.
        Thread.sleep(forTimeInterval: 1)
        #expect(try clipctl("domain", "add", "ABCDE12345.com.shop9.app.Clip", "fresh.example").code == 0)
        let file = try clipctl("aasa", "fresh.example").out
        Thread.sleep(forTimeInterval: 0.5)
        try sites.serve(site: "fresh.example", file)
        Thread.sleep(forTimeInterval: 1.5)
        try sites.serve(cdn: "fresh.example", file)
        var state: JSONValue?
        for _ in 0..<60 {
            let r = try clipctl("--server", base, "--token", token, "--json", "verify", "fresh.example")
            state = (try? JSONParser.parse(r.out))?["items"]?.arrayValue?.first?["propagation"]
            if case .integer? = state?["appleCDNDelaySeconds"] { break }
            Thread.sleep(forTimeInterval: 0.3)
        }
        guard case .integer(let site)? = state?["siteDelaySeconds"], case .integer(let cdn)? = state?["appleCDNDelaySeconds"] else {
            Issue.record("not propagated: \(String(describing: state))")
            return
        }
        #expect(site <= cdn && cdn >= 1, "site \(site) s, CDN \(cdn) s")
        let text = try clipctl("--server", base, "--token", token, "verify", "fresh.example")
        #expect(text.out.contains("watch      changed ") && text.out.contains("apple-cdn after \(cdn) s"), "\(text.out)")
        let unchanged = try clipctl("--server", base, "--token", token, "--json", "verify", "good.example")
        #expect(!unchanged.out.contains("\"changedAt\""), "a host that did not change while watched has no state")
        let metrics = String(decoding: try Data(contentsOf: URL(string: base + "/metrics")!), as: UTF8.self)
        #expect(metrics.contains("clipregistry_aasa_propagation_delay_seconds_count{where=\"apple-cdn\"} 1"), "\(metrics)")
        let deliveries = try clipctl("webhook", "deliveries", "1").out
        #expect(deliveries.components(separatedBy: "aasa.propagated").count - 1 == 2, "\(deliveries)")
    }
}
