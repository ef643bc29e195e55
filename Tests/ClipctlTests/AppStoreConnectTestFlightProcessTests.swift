import Foundation
import StrictJSON
import Testing

/// `clipctl asc testflight set|show|plan|apply` (issue 28), the built binary against the fake App Store Connect, which
/// checks every request against Apple's specification: the newest build's App Clip ends up offering exactly the chosen
/// URLs with the experiences' titles, however the apply is interrupted.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectTestFlightProcessTests {
    static let clip = AppStoreConnectProcessTests.clip

    /// Build 1 (older) and build 2 (newest), each with the app's and the App Clip's build bundles; build 2's App Clip
    /// already offers /stale, which nobody chose.
    static func seedBuilds(_ fake: FakeASCProcess) throws {
        var resources: [JSONValue] = []
        for n in ["1", "2"] {
            resources += [
                [
                    "type": "buildBundles", "id": .string("bb-app-\(n)"),
                    "attributes": ["bundleId": "com.example.bikes", "bundleType": "APP"],
                ],
                [
                    "type": "buildBundles", "id": .string("bb-clip-\(n)"),
                    "attributes": ["bundleId": "com.example.bikes.Clip", "bundleType": "APP_CLIP"],
                ],
                [
                    "type": "builds", "id": .string("build-\(n)"),
                    "attributes": ["version": .string(n), "uploadedDate": .string("2026-0\(n)-01T00:00:00Z"), "processingState": "VALID"],
                    "relationships": ["app": "6400000001", "buildBundles": [.string("bb-app-\(n)"), .string("bb-clip-\(n)")]],
                ],
            ]
        }
        resources += [
            ["type": "betaAppClipInvocationLocalizations", "id": "bl-stale", "attributes": ["locale": "en-US", "title": "Stale"]],
            [
                "type": "betaAppClipInvocations", "id": "inv-stale", "attributes": ["url": "https://bikesrental.example/stale"],
                "relationships": ["buildBundle": "bb-clip-2", "betaAppClipInvocationLocalizations": ["bl-stale"]],
            ],
        ]
        try fake.control("POST", "/__fake/seed", ["resources": .array(resources)])
    }

    /// What each App Clip build bundle offers now: bundle → URL → locale → title.
    static func invocations(_ fake: FakeASCProcess) throws -> [String: [String: [String: String]]] {
        let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        let titles = Dictionary(
            resources.filter { $0["type"]?.stringValue == "betaAppClipInvocationLocalizations" }.map {
                (
                    $0["id"]?.stringValue ?? "",
                    ($0["attributes"]?["locale"]?.stringValue ?? "", $0["attributes"]?["title"]?.stringValue ?? "")
                )
            }, uniquingKeysWith: { a, _ in a })
        var result: [String: [String: [String: String]]] = [:]
        for invocation in resources where invocation["type"]?.stringValue == "betaAppClipInvocations" {
            let bundle = invocation["relationships"]?["buildBundle"]?.stringValue ?? ""
            let url = invocation["attributes"]?["url"]?.stringValue ?? ""
            #expect(result[bundle]?[url] == nil, "\(bundle) offers \(url) twice")
            var byLocale: [String: String] = [:]
            for id in invocation["relationships"]?["betaAppClipInvocationLocalizations"]?.arrayValue ?? [] {
                if let (locale, title) = titles[id.stringValue ?? ""] { byLocale[locale] = title }
            }
            result[bundle, default: [:]][url] = byLocale
        }
        return result
    }

    static func setUp() throws -> (Clipctl, FakeASCProcess) {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        try seedBuilds(fake)
        #expect(try clipctl("asc", "link", clip).code == 0)
        return (clipctl, fake)
    }

    @Test func applyGivesTheNewestBuildTheChosenInvocationsAndASecondApplyOnlyReads() throws {
        let (clipctl, fake) = try Self.setUp()
        let set = try clipctl(
            "asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent", "https://bikesrental.example/store")
        #expect(set.code == 0, "\(set.err)")
        #expect(set.out.contains("1  https://bikesrental.example/rent  experience 1"))
        #expect(set.out.hasPrefix(try clipctl("asc", "testflight", "show", "com.example.bikes.Clip").out))

        let plan = try clipctl("asc", "testflight", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("clip \(Self.clip), build 2 (build-2)"))
        #expect(plan.out.contains("remove  https://bikesrental.example/stale  inv-stale"))
        #expect(plan.out.contains("en-US: \"Rent a bike\""))
        #expect(try clipctl("asc", "testflight", "plan", "--detailed-exitcode").code == 2)

        // Without --yes nothing is sent.
        let writes = try fake.writes()
        #expect(try clipctl("asc", "testflight", "apply").code == 64)
        #expect(try fake.writes() == writes)

        #expect(try clipctl("webhook", "add", "https://hooks.example.com/in", "--events", "asc.testflight.applied").code == 0)
        let applied = try clipctl("asc", "testflight", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(applied.out.contains("applied 3 change(s)"))
        // An asc.testflight.applied event for the endpoint that asked for it.
        let deliveries = try clipctl("webhook", "deliveries", "1", "--json")
        #expect(deliveries.out.contains("asc.testflight.applied"), "\(deliveries.out)")
        let expected = [
            "https://bikesrental.example/rent": ["en-US": "Rent a bike"], "https://bikesrental.example/store": ["en-US": "New title"],
        ]
        #expect(try Self.invocations(fake)["bb-clip-2"] == expected)
        #expect(try Self.invocations(fake)["bb-clip-1"] == nil)

        // Again: only reads.
        let before = try fake.writes()
        let again = try clipctl("asc", "testflight", "apply", "--yes")
        #expect(again.code == 0)
        #expect(again.out.contains("in sync: nothing to do"))
        #expect(try fake.writes() == before)

        // A locale added and a title changed: the localizations follow, the invocation stays.
        let edit = try clipctl("update", "1", "--title", "Rent an e-bike", "--localization", "FR=Louer un vélo|Déverrouillez")
        #expect(edit.code == 0, "\(edit.err)")
        #expect(try clipctl("asc", "testflight", "apply", "--yes").code == 0)
        #expect(
            try Self.invocations(fake)["bb-clip-2"]?["https://bikesrental.example/rent"] == [
                "en-US": "Rent an e-bike", "fr-FR": "Louer un vélo",
            ])

        // --build names an older build by its version.
        #expect(try clipctl("asc", "testflight", "apply", "--yes", "--build", "1").code == 0)
        #expect(
            try Self.invocations(fake)["bb-clip-1"]?.keys.sorted() == [
                "https://bikesrental.example/rent", "https://bikesrental.example/store",
            ])

        #expect(try fake.violations() == [])
    }

    /// `asc testflight status`: what each of the newest builds offers testers, newest first, read only.
    @Test func statusShowsWhatEachRecentBuildOffers() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent").code == 0)
        #expect(try clipctl("asc", "testflight", "apply", "--yes").code == 0)
        let writes = try fake.writes()
        let status = try clipctl("asc", "testflight", "status", "--builds", "2")
        #expect(status.code == 0, "\(status.err)")
        let newest = try #require(status.out.range(of: "clip \(Self.clip), build 2 (build-2)"))
        let older = try #require(status.out.range(of: "clip \(Self.clip), build 1 (build-1)"))
        #expect(newest.lowerBound < older.lowerBound, "newest first: \(status.out)")
        #expect(status.out[newest.upperBound..<older.lowerBound].contains("in sync: nothing to do"), "\(status.out)")
        #expect(status.out[older.upperBound...].contains("create  https://bikesrental.example/rent"), "\(status.out)")
        #expect(try fake.writes() == writes, "status only reads")
        let json = try clipctl("asc", "testflight", "status", "--builds", "1", "--json")
        #expect(json.code == 0 && json.out.contains("\"build-2\"") && !json.out.contains("\"build-1\""), "\(json.out)")
        #expect(try clipctl("asc", "testflight", "status", "--builds", "11").code == 65)
        #expect(try fake.violations() == [])
    }

    @Test func aURLThatStopsResolvingStopsTheApplyBeforeAnythingIsSent() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/new").code == 0)
        #expect(try clipctl("remove", "3").code == 0)
        #expect(try clipctl("asc", "testflight", "show", Self.clip).out.contains("PROBLEM: resolves to no active experience"))
        let writes = try fake.writes()
        let applied = try clipctl("asc", "testflight", "apply", "--yes")
        #expect(applied.code == 65, "\(applied.out)\(applied.err)")
        #expect(applied.err.contains("https://bikesrental.example/new"))
        #expect(try fake.writes() == writes)
        // Refusals when choosing: every field at once, nothing written.
        let refused = try clipctl(
            "asc", "testflight", "set", Self.clip, "https://bikesrental.example/new", "https://bikesrental.example/rent",
            "HTTPS://bikesrental.example/rent")
        #expect(refused.code == 65)
        #expect(refused.err.contains("url[0]") && refused.err.contains("url[2]"))
        #expect(try fake.violations() == [])
    }

    @Test func anApplyKilledOrAnsweredBadlyConvergesWithoutDuplicates() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(
            try clipctl(
                "asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent", "https://bikesrental.example/store",
                "https://bikesrental.example/new"
            ).code == 0)
        // kill -9 while the creates are answered slowly (each carried out first).
        try fake.inject([["kind": "stallAfter", "seconds": .double(0.5), "times": 100, "path": "betaAppClipInvocations$"]])
        let process = Process()
        process.executableURL = Clipctl.binary
        process.arguments = ["asc", "testflight", "apply", "--yes"]
        process.environment = clipctl.environment
        process.currentDirectoryURL = clipctl.directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.2)
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(wasRunning, "the apply had finished before the kill")
        try fake.inject([["kind": "stallAfter", "seconds": 0, "times": 0]])

        // Then one apply through a create that lands unanswered, a 500 after a localization landed, and a dropped DELETE.
        try fake.inject([
            ["kind": "dropAfter", "method": "POST", "path": "betaAppClipInvocations$", "times": 1],
            ["kind": "drop", "method": "DELETE", "path": "betaAppClipInvocations/", "times": 1],
        ])
        let applied = try clipctl("asc", "testflight", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.out)\(applied.err)")
        #expect(applied.out.contains("read back and went on: create https://bikesrental.example/"), "\(applied.out)")
        let held = try Self.invocations(fake)["bb-clip-2"] ?? [:]
        #expect(
            held.keys.sorted() == [
                "https://bikesrental.example/new", "https://bikesrental.example/rent", "https://bikesrental.example/store",
            ])
        let again = try clipctl("asc", "testflight", "apply", "--yes")
        #expect(again.out.contains("in sync: nothing to do"))
        #expect(try fake.violations() == [])
    }

    @Test func overTheAPIAnotherTeamsClipIsNotFound() throws {
        let (clipctl, _) = try Self.setUp()
        func token(_ arguments: String...) throws -> String {
            try clipctl.run(["token", "create"] + arguments).out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let adminToken = try token("--admin", "--name", "ci")
        let teamToken = try token("--team", "ZZZZZ99999", "--name", "other")
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        let base = "http://127.0.0.1:\(server.port)"
        let set = try clipctl(
            "--server", base, "--token", adminToken, "asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent")
        #expect(set.code == 0, "\(set.err)")
        #expect(set.out.contains("1  https://bikesrental.example/rent  experience 1"))
        let other = try clipctl("--server", base, "--token", teamToken, "asc", "testflight", "show", Self.clip)
        #expect(other.code != 0)
        #expect(other.err.contains("not found"), "\(other.err)")
        let tooMany = try clipctl(
            "--server", base, "--token", adminToken, "asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent",
            "https://bikesrental.example/rent")
        #expect(tooMany.code == 65, "\(tooMany.err)")
    }

    /// `GET /v1/asc/testflight/plan` and `POST /v1/asc/testflight/apply` (issue 28, "the same through the API"):
    /// `clipctl --server … asc testflight plan|apply` prints what it prints on the database, admin tokens only, nothing
    /// sent without --yes, the same apply twice only reads; a server without a key answers 503 (exit 69).
    @Test func planAndApplyOverTheServer() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent").code == 0)
        let local = try clipctl("asc", "testflight", "plan")
        let localJSON = try clipctl("asc", "testflight", "plan", "--json")
        let admin = try clipctl("token", "create", "--admin", "--name", "ci").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let team = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "team").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        var remote = clipctl
        for key in ["ASC_KEY_ID", "ASC_ISSUER_ID", "ASC_PRIVATE_KEY_PATH", "ASC_API_URL"] { remote.environment[key] = nil }
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = team
        let forbidden = try remote("asc", "testflight", "plan")
        #expect(forbidden.code == 1)
        #expect(forbidden.err.contains("this route needs an admin token"))

        remote.environment["CLIP_TOKEN"] = admin
        let plan = try remote("asc", "testflight", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out == local.out)
        #expect(try remote("asc", "testflight", "plan", "--json").out == localJSON.out)
        #expect(try remote("asc", "testflight", "plan", "--detailed-exitcode").code == 2)
        let writes = try fake.writes()
        let unconfirmed = try remote("asc", "testflight", "apply")
        #expect(unconfirmed.code == 64)
        #expect(unconfirmed.out == local.out, "the plan shown first")
        #expect(try fake.writes() == writes)

        let applied = try remote("asc", "testflight", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(applied.out.contains("applied 2 change(s)"), "\(applied.out)")
        #expect(try Self.invocations(fake)["bb-clip-2"] == ["https://bikesrental.example/rent": ["en-US": "Rent a bike"]])
        let before = try fake.writes()
        let again = try remote("asc", "testflight", "apply", "--yes", "--json")
        #expect(again.code == 0, "\(again.err)")
        #expect(try JSONParser.parse(Array(again.out.utf8))["applied"]?.arrayValue?.first?["done"] == .array([]))
        #expect(try fake.writes() == before)
        #expect(try clipctl("asc", "testflight", "plan").out.contains("in sync: nothing to do"))

        let keyless = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = keyless.stop() }
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(keyless.port)"
        let unavailable = try remote("asc", "testflight", "apply", "--yes")
        #expect(unavailable.code == 69)
        #expect(unavailable.err.contains("started without an App Store Connect key"))
        #expect(try fake.violations() == [])
    }
}
