import Foundation
import StrictJSON
import Testing

/// `clipctl verify`'s App Store Connect comparison and Apple's own verdict (issue 27), the built binary against the
/// fake App Store Connect (which checks every request against Apple's specification); the site and CDN answer
/// nothing here (port 1), so only the new parts differ between the cases.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct VerifyAppStoreConnectProcessTests {
    static let host = "bikesrental.example"
    static let nowhere = ["--allow-private-targets", "--site-url", "https://127.0.0.1:1/{host}", "--cdn-url", "https://127.0.0.1:1"]

    /// The output without libcurl's connect time ("after 0 ms"), which differs from one fetch to the next.
    static func stable(_ out: String) -> String {
        out.replacingOccurrences(of: #"after \d+ ms"#, with: "after N ms", options: .regularExpression)
    }

    /// Build 2's App Clip: Apple's cache status says BAD_HTTP_RESPONSE for the host, its debug status says valid.
    static func seedStatuses(_ fake: FakeASCProcess) throws {
        func status(_ id: String, valid: Bool, code: String?) -> JSONValue {
            var domain: [(key: String, value: JSONValue)] = [
                ("domain", .string(host)), ("isValid", .bool(valid)), ("lastUpdatedDate", "2026-11-27T10:00:00Z"),
            ]
            if let code { domain.append(("errorCode", .string(code))) }
            return [
                "type": "appClipDomainStatuses", "id": .string(id),
                "attributes": ["lastUpdatedDate": "2026-11-27T10:00:00Z", "domains": .array([.object(domain)])],
            ]
        }
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    status("status-cache", valid: false, code: "BAD_HTTP_RESPONSE"), status("status-debug", valid: true, code: nil),
                    [
                        "type": "buildBundles", "id": "bb-clip-2",
                        "attributes": ["bundleId": "com.example.bikes.Clip", "bundleType": "APP_CLIP"],
                        "relationships": ["appClipDomainCacheStatus": "status-cache", "appClipDomainDebugStatus": "status-debug"],
                    ],
                ]
            ])
    }

    @Test func bothPartsLocallyAndOverTheServerAndA404() throws {
        let (clipctl, fake) = try AppStoreConnectTestFlightProcessTests.setUp()
        try Self.seedStatuses(fake)
        let local = try clipctl.run(["verify", Self.host] + Self.nowhere)
        #expect(local.code == 1, "\(local.err)")
        for line in [
            "  asc        pending",
            "             2 changes pending: create https://bikesrental.example/new; update https://bikesrental.example/store",
            "             fix: run clipctl asc apply", "  apple      invalid",
            "             \(AppStoreConnectProcessTests.clip), build 2 (build-2)",
            "               cache (cache status, what devices get): invalid BAD_HTTP_RESPONSE, updated 2026-11-27T10:00:00Z",
            "               debug (debug status, Apple's fresh fetch): valid, updated 2026-11-27T10:00:00Z",
            "                 means: Apple's fetch of the site's file got an HTTP answer other than 200",
        ] {
            #expect(local.out.contains(line + "\n"), "\(line)\n\(local.out)")
        }
        #expect(local.out.contains("here: a different failure: the site answered unreachable"), "\(local.out)")
        let json = try JSONParser.parse(Array(try clipctl.run(["--json", "verify", Self.host] + Self.nowhere).out.utf8))
        let item = json["items"]?.arrayValue?.first
        #expect(item?["appStoreConnect"]?["pending"]?.arrayValue?.count == 2)
        let reading = item?["appleVerdict"]?["builds"]?.arrayValue?.first?["readings"]?.arrayValue?.first
        #expect(reading?["errorCode"] == "BAD_HTTP_RESPONSE" && reading?["source"] == "cache")

        // Over --server, with the key serve was started with: the same text.
        var environment = clipctl.environment.filter { $0.key.hasPrefix("ASC_") }
        environment["CLIP_ASC_WAIT_SCALE"] = "0.2"
        let server = try ServeProcess(
            clipctl, database: "clips.db",
            arguments: [
                "--allow-private-targets", "--aasa-site-url", "https://127.0.0.1:1/{host}", "--aasa-cdn-url", "https://127.0.0.1:1",
            ],
            environment: environment)
        defer { _ = server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let admin = try clipctl("token", "create", "--admin", "--name", "v").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let remote = try clipctl("--server", base, "--token", admin, "verify", Self.host)
        #expect(remote.code == 1 && Self.stable(remote.out) == Self.stable(local.out), "\(remote.out)\n\(remote.err)")

        // A team token: its own host's comparison; another team's host answers as a missing one does.
        _ = try clipctl(
            "register", "https://cafe.example/x", "--clip", "FGHIJ67890.com.example.cafe.Clip", "--title", "T", "--subtitle", "S")
        let team = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "t").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let own = try clipctl("--server", base, "--token", team, "verify", Self.host)
        #expect(Self.stable(own.out) == Self.stable(local.out), "\(own.out)\n\(own.err)")
        let other = try clipctl("--server", base, "--token", team, "verify", "cafe.example")
        let missing = try clipctl("--server", base, "--token", team, "verify", "nowhere.example")
        #expect(
            other.code == missing.code
                && other.err.replacingOccurrences(of: "cafe.example", with: "H")
                    == missing.err.replacingOccurrences(of: "nowhere.example", with: "H")
        )
        #expect(!other.out.contains("asc"))

        // The build bundle without statuses: App Store Connect answers 404, verify says there is none.
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    [
                        "type": "buildBundles", "id": "bb-clip-2",
                        "attributes": ["bundleId": "com.example.bikes.Clip", "bundleType": "APP_CLIP"],
                    ]
                ]
            ])
        let none = try clipctl.run(["verify", Self.host] + Self.nowhere)
        #expect(
            none.out.contains("  apple      no-status\n") && none.out.contains("cache (cache status, what devices get): no-status\n"),
            "\(none.out)")
        #expect(try fake.violations() == [])
    }

    /// App Store Connect refusing a read: both parts say it was not checked and why, the site and CDN are answered, and
    /// verify writes nothing; the same request twice answers the same.
    @Test func appStoreConnectFailingIsNotCheckedAndChangesNothing() throws {
        let (clipctl, fake) = try AppStoreConnectTestFlightProcessTests.setUp()
        try Self.seedStatuses(fake)
        let state = try clipctl.state()
        try fake.control(
            "POST", "/__fake/faults",
            ["faults": [["kind": "status", "status": 403, "code": "FORBIDDEN_ERROR", "path": "appClipDomainCacheStatus", "times": 2]]])
        let first = try clipctl.run(["verify", Self.host] + Self.nowhere)
        let second = try clipctl.run(["verify", Self.host] + Self.nowhere)
        #expect(first.code == 1 && Self.stable(first.out) == Self.stable(second.out), "\(first.err)")
        #expect(first.out.contains("  site       unreachable"), "\(first.out)")
        // The plan was read: only Apple's verdict is not checked.
        #expect(first.out.contains("  asc        pending\n"), "\(first.out)")
        #expect(
            first.out.contains("  apple      not-checked\n             not checked: App Store Connect could not be read"), "\(first.out)")
        #expect(try clipctl.state() == state)
        // The fault spent: both parts again.
        #expect(try clipctl.run(["verify", Self.host] + Self.nowhere).out.contains("  apple      invalid\n"))
        #expect(try fake.violations() == [])
    }

    /// No key: both parts say so, how to configure it, and the site and CDN are still answered.
    @Test func withoutAKeyVerifyStillAnswersTheSiteAndTheCDN() throws {
        var (clipctl, _) = try AppStoreConnectProcessTests.setUp()
        for name in ["ASC_KEY_ID", "ASC_ISSUER_ID", "ASC_PRIVATE_KEY_PATH"] { clipctl.environment[name] = nil }
        let r = try clipctl.run(["verify", Self.host] + Self.nowhere)
        #expect(r.code == 1, "the site is unreachable: \(r.err)")
        #expect(r.out.contains("  site       unreachable") && r.out.contains("  apple-cdn  unreachable"), "\(r.out)")
        #expect(r.out.contains("  asc        not-checked\n             not checked: no App Store Connect key is configured\n"), "\(r.out)")
        #expect(r.out.contains("fix: set ASC_KEY_ID, ASC_ISSUER_ID and ASC_PRIVATE_KEY_PATH for clipctl"))
    }

    /// As `serve` refuses an unusable --aasa-cdn-url: exit 64 before the database is touched.
    @Test func anUnusableURLOptionIsRefusedUpFront() throws {
        let clipctl = try Clipctl()
        _ = try clipctl("register", "https://a.example/x", "--clip", "ABCDE12345.com.a.Clip", "--title", "T", "--subtitle", "S")
        let state = try clipctl.state()
        for (option, value) in [
            ("--cdn-url", "garbage"), ("--cdn-url", "http://cdn.example/a"), ("--cdn-url", "https://cdn.example/a?x"),
            ("--site-url", "https://mirror.example/aasa"), ("--site-url", "ftp://{host}/x"), ("--site-url", "http://127.0.0.1:1/{host}"),
        ] {
            let r = try clipctl("verify", "a.example", option, value)
            #expect(r.code == 64 && r.err.contains("verify \(option)") && r.out.isEmpty, "\(option) \(value): \(r.err)")
        }
        #expect(try clipctl.state() == state)
    }
}
