import Foundation
import StrictJSON
import SystemCrypto
import TestSupport
import Testing

/// `clipctl asc apply|pull`, the built binary against the fake App Store Connect (scripts/fake-asc), which checks every
/// request against Apple's specification: ASC ends up holding exactly the registry's experiences, however the apply is
/// interrupted, and a pull brings ASC's experiences into the registry.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectSyncProcessTests {
    static let clip = AppStoreConnectProcessTests.clip

    /// The registry's active experiences: URL → title by language, the language in App Store Connect's form
    /// (the registry's `fr` is Apple's `FR`, docs/rules.md#languages).
    static func registry(_ clipctl: Clipctl) throws -> [String: [String: String]] {
        let list = try clipctl("--json", "list")
        var result: [String: [String: String]] = [:]
        for e in try JSONParser.parse(Array(list.out.utf8)).arrayValue ?? [] where e["status"]?.stringValue == "ACTIVE" {
            var cards = [(e["language"]?.stringValue ?? "en").uppercased(): e["title"]?.stringValue ?? ""]
            if case .object(let others)? = e["localizations"] {
                for (language, card) in others { cards[language.uppercased()] = card["title"]?.stringValue ?? "" }
            }
            result[e["url"]?.stringValue ?? ""] = cards
        }
        return result
    }

    /// `clipctl asc apply --yes` started in the background with `clipctl`'s environment, its output discarded.
    static func applyInTheBackground(_ clipctl: Clipctl) throws -> Process {
        let process = Process()
        process.executableURL = Clipctl.binary
        process.arguments = ["asc", "apply", "--yes"]
        process.environment = clipctl.environment
        process.currentDirectoryURL = clipctl.directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// `clipctl serve` on the test's database with the fake App Store Connect's key.
    static func serverWithKey(_ clipctl: Clipctl, _ fake: FakeASCProcess) throws -> ServeProcess {
        try ServeProcess(
            clipctl, database: clipctl.file("clips.db"),
            arguments: [
                "--asc-key-id", FakeASCProcess.keyID, "--asc-issuer-id", FakeASCProcess.issuerID, "--asc-key", clipctl.file("AuthKey.p8"),
                "--asc-url", fake.baseURL,
            ])
    }

    static func inSync(_ clipctl: Clipctl) throws -> Bool {
        let plan = try clipctl("asc", "plan", "--detailed-exitcode")
        return plan.code == 0
    }

    @Test func applyMakesASCHoldTheRegistrysExperiencesAndASecondApplySendsNothing() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)

        // Without --yes: the plan, a usage error, nothing sent.
        let writesBefore = try fake.writes()
        let dry = try clipctl("asc", "apply")
        #expect(dry.code == 64)
        #expect(dry.out.contains("pending: 1 create, 1 update"))
        #expect(dry.err.contains("run it again with --yes"))
        #expect(try fake.writes() == writesBefore)

        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(applied.out.contains("update https://bikesrental.example/store → exp-store"))
        #expect(applied.out.contains("create https://bikesrental.example/new → "))
        #expect(applied.out.contains("applied 2 change(s); the key has "))
        var expected = try Self.registry(clipctl)
        expected["https://bikesrental.example/old"] = ["EN": "Only there"]  // only in ASC: kept without --prune
        let held = try fake.experiences()
        #expect(held == expected, "\(held)")
        #expect(try Self.inSync(clipctl))
        #expect(try clipctl("asc", "status").out.contains("3 in-sync, 1 asc-only"))

        // The same apply again sends nothing.
        let writes = try fake.writes()
        let again = try clipctl("asc", "apply", "--yes")
        #expect(again.code == 0)
        #expect(again.out.contains("in sync: nothing to do"))
        #expect(try fake.writes() == writes)

        // A changed URL re-creates (link is create-only there); a deactivated experience is removed; --prune removes
        // what only ASC had.
        #expect(try clipctl("update", "3", "--url", "https://bikesrental.example/newer").code == 0)
        #expect(try clipctl("deactivate", "2").code == 0)
        let plan = try clipctl("asc", "plan", "--prune")
        #expect(plan.out.contains("recreate  3   https://bikesrental.example/newer"))
        #expect(plan.out.contains("link: https://bikesrental.example/new → https://bikesrental.example/newer"))
        let second = try clipctl("asc", "apply", "--yes", "--prune")
        #expect(second.code == 0, "\(second.err)")
        #expect(try fake.experiences() == Self.registry(clipctl))
        #expect(try Set(fake.experiences().keys) == ["https://bikesrental.example/rent", "https://bikesrental.example/newer"])
        #expect(try Self.inSync(clipctl))

        // Every push is a change record: who, what, App Store Connect's ids.
        let changes = try clipctl("--json", "changes", "--limit", "1000")
        let records = (try JSONParser.parse(Array(changes.out.utf8)).arrayValue ?? []).filter {
            $0["entity"]?.stringValue == "asc-experience"
        }
        // Removals first (the deactivated one, then what only ASC had), then the re-creation (remove, create).
        #expect(records.map { $0["action"]?.stringValue ?? "" } == ["update", "create", "remove", "remove", "remove", "create"])
        #expect(records.allSatisfy { $0["actor"]?.stringValue == "clipctl:tester" })
        #expect(records[1]["after"]?["ascExperienceId"]?.stringValue != nil)
        #expect(try fake.unusedImages().count <= 2)  // the images of the removed experiences, nothing reserved and left
        #expect(try fake.violations() == [])
    }

    /// `kill -9` at a random moment of an apply, twice, then an apply that finishes: ASC holds each experience once, and
    /// no more images are left unused than uploads were interrupted.
    @Test func anApplyKilledAtRandomMomentsIsFinishedByTheNextWithoutDuplicates() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        for n in 1...8 {
            #expect(
                try clipctl(
                    "register", "https://bikesrental.example/dock/\(n)", "--clip", Self.clip, "--title", "Dock \(n)", "--subtitle",
                    "Unlock one in seconds", "--image", "rent.png"
                ).code == 0)
        }
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        // Slow enough for a kill to land in the middle: every write waits a little.
        try fake.inject([["kind": "stall", "seconds": .double(0.15), "times": 10_000, "path": "appClipAdvancedExperience"]])
        var kills = 0
        for delay in [Double.random(in: 0.3...1.5), Double.random(in: 0.3...2.5)] {
            let process = try Self.applyInTheBackground(clipctl)
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
        }
        #expect(kills >= 1, "no apply was still running when killed")
        try fake.inject([["kind": "stall", "seconds": 0, "times": 0]])
        let finish = try clipctl("asc", "apply", "--yes")
        #expect(finish.code == 0, "\(finish.err)")
        var expected = try Self.registry(clipctl)
        expected["https://bikesrental.example/old"] = ["EN": "Only there"]
        #expect(try fake.experiences() == expected)
        #expect(try fake.unusedImages().count <= kills, "\(kills) kills")
        #expect(try Self.inSync(clipctl))
        // Every experience is recorded with its App Store Connect id, a create that landed before a kill included: one
        // create record each, and a change made there afterwards shows as drift.
        let changes = try JSONParser.parse(Array(try clipctl("--json", "changes", "--limit", "10000").out.utf8)).arrayValue ?? []
        let creates = changes.filter { $0["entity"]?.stringValue == "asc-experience" && $0["action"]?.stringValue == "create" }
        #expect(creates.count == 9, "8 docks and /new")
        #expect(Set(creates.compactMap { $0["entityId"]?.stringValue }).count == 9)
        let status = try JSONParser.parse(Array(try clipctl("--json", "asc", "status").out.utf8))
        #expect(
            (status["plans"]?.arrayValue?.first?["steps"]?.arrayValue ?? []).allSatisfy {
                ["in-sync", "asc-only"].contains($0["state"]?.stringValue)
            })
        #expect(try fake.violations() == [])
    }

    /// A 429 storm is waited out, 500s on a PATCH and a failed upload part are retried; ASC's entity error stops the
    /// apply with ASC's detail mapped to the registry's field, and leaves the registry as it was.
    @Test func faultsAreRetriedOrStopTheApplyWithTheFieldAtFault() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        try fake.inject([
            ["kind": "status", "status": 429, "retryAfter": 0, "rateLimit": "user-hour-lim:3600;user-hour-rem:0;", "times": 3],
            ["kind": "status", "status": 500, "method": "PATCH", "path": "appClipAdvancedExperiences/", "times": 2],
            ["kind": "uploadFailure", "times": 1],
        ])
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(try Self.inSync(clipctl))

        // ASC refuses an update: the field is named as the registry names it, and nothing here changes.
        #expect(try clipctl("update", "2", "--category", "FOOD_AND_DRINK").code == 0)
        let before = try clipctl.state() + clipctl("--json", "asc", "status").out
        try fake.inject([
            [
                "kind": "status", "status": 409, "method": "PATCH", "code": "ENTITY_ERROR.ATTRIBUTE.INVALID",
                "detail": "This category is not available for this experience", "pointer": "/data/attributes/businessCategory",
            ]
        ])
        let refused = try clipctl("asc", "apply", "--yes")
        #expect(refused.code == 65)
        #expect(refused.err.contains("category: This category is not available for this experience"), "\(refused.err)")
        #expect(refused.out.contains("stopped after 0 change(s), 1 left"))
        #expect(try clipctl.state() + clipctl("--json", "asc", "status").out == before)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        #expect(try Self.inSync(clipctl))

        // A budget spent for an hour is said at once, not waited for (exit 69); nothing else is sent meanwhile.
        #expect(try clipctl("update", "2", "--category", "BIKES").code == 0)
        try fake.inject([["kind": "status", "status": 429, "retryAfter": 3600, "method": "PATCH", "times": 1]])
        let started = Date()
        let spent = try clipctl("asc", "apply", "--yes")
        #expect(spent.code == 69)
        #expect(spent.err.contains("it asks to wait 3600 s"))
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try fake.violations() == [])
    }

    /// A removal that lands while its apply is killed before the answer: the next apply records it (a change record,
    /// the record gone) instead of leaving a record that points at nothing.
    @Test func aRemovalLandedByAKilledApplyIsRecordedByTheNext() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        #expect(try clipctl("remove", "3").code == 0)
        try fake.inject([["kind": "stallAfter", "method": "PATCH", "path": "appClipAdvancedExperiences", "seconds": 60]])
        func patches() throws -> Int {
            (try fake.control("GET", "/__fake/requests")["requests"]?.arrayValue ?? []).filter {
                $0["method"]?.stringValue == "PATCH" && $0["path"]?.stringValue?.hasPrefix("/v1/appClipAdvancedExperiences/") == true
            }.count
        }
        let before = try patches()
        let process = try Self.applyInTheBackground(clipctl)
        let deadline = Date().addingTimeInterval(30)
        func patched() throws -> Bool { try patches() > before }
        while try !patched(), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try patched(), "the removal's PATCH was sent")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(!(try clipctl("changes", "--limit", "1000").out.contains("remove ascExperience 3")))
        let next = try clipctl("asc", "apply", "--yes")
        #expect(next.code == 0, "\(next.err)")
        #expect(next.out.contains("experience 3: the removal an earlier apply sent had landed"))
        #expect(try clipctl("changes", "--limit", "1000").out.contains("remove ascExperience 3"))
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// A key with few requests left this hour: the apply stops before going under the reserve, and finishes later.
    @Test func theKeysHourlyBudgetIsLeftToOtherToolsAndTheApplyResumes() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let stopped = try clipctl("asc", "apply", "--yes", "--rate-reserve", "3590")
        #expect(stopped.code == 69)
        #expect(stopped.err.contains("requests left this hour and 3590 are kept for other tools"))
        #expect(try fake.writes() == 0)
        let finished = try clipctl("asc", "apply", "--yes", "--rate-reserve", "10")
        #expect(finished.code == 0, "\(finished.err)")
        #expect(try Self.inSync(clipctl))
    }

    /// The bikes app with its App Clip and `count` advanced experiences /dock/N (EN card, one shared processed header
    /// image App Store Connect serves), plus `extra` resources.
    static func seedForPull(_ fake: FakeASCProcess, image: [UInt8], count: Int, extra: [JSONValue] = []) throws {
        var resources: [JSONValue] = [
            [
                "type": "apps", "id": "6400000001",
                "attributes": ["bundleId": "com.example.bikes", "name": "Bikes", "primaryLocale": "en-US"],
            ],
            [
                "type": "appClips", "id": "clip-1", "attributes": ["bundleId": "com.example.bikes.Clip"],
                "relationships": ["app": "6400000001"],
            ],
            [
                "type": "appClipAdvancedExperienceImages", "id": "img-1", "bytesBase64": .string(Data(image).base64EncodedString()),
                "attributes": [
                    "fileName": "dock.png", "fileSize": .integer(Int64(image.count)),
                    "sourceFileChecksum": .string(Digest.hex(try Digest.md5(image))),
                    "assetDeliveryState": ["state": "COMPLETE"],
                    "imageAsset": ["templateUrl": .string(fake.baseURL + "/__image/img-1/{w}x{h}bb.{f}"), "width": 1800, "height": 1200],
                ],
            ],
        ]
        for n in 0..<count {
            resources.append([
                "type": "appClipAdvancedExperienceLocalizations", "id": .string("loc-\(n)"),
                "attributes": ["language": "EN", "title": .string("Dock \(n)"), "subtitle": "Unlock one in seconds"],
            ])
            resources.append([
                "type": "appClipAdvancedExperiences", "id": .string("exp-\(n)"),
                "attributes": [
                    "link": .string("https://bikesrental.example/dock/\(n)"), "isPoweredBy": false, "defaultLanguage": "EN",
                    "action": "OPEN",
                    "businessCategory": "BIKES", "status": "RECEIVED", "version": 1,
                ],
                "relationships": ["appClip": "clip-1", "localizations": [.string("loc-\(n)")], "headerImage": "img-1"],
            ])
        }
        try fake.control("POST", "/__fake/seed", ["resources": .array(resources + extra)])
    }

    static func pullSetUp(count: Int, fakeArguments: [String] = [], extra: [JSONValue] = []) throws -> (Clipctl, FakeASCProcess) {
        var clipctl = try Clipctl()
        let fake = try FakeASCProcess(folder: clipctl.directory, arguments: fakeArguments)
        try seedForPull(fake, image: TestImages.png(width: 1800, height: 1200, grey: 7), count: count, extra: extra)
        try clipctl.write("AuthKey.p8", FakeASCProcess.privateKeyPEM)
        #expect(chmod(clipctl.file("AuthKey.p8"), 0o600) == 0)
        clipctl.environment["ASC_KEY_ID"] = FakeASCProcess.keyID
        clipctl.environment["ASC_ISSUER_ID"] = FakeASCProcess.issuerID
        clipctl.environment["ASC_PRIVATE_KEY_PATH"] = clipctl.file("AuthKey.p8")
        clipctl.environment["ASC_API_URL"] = fake.baseURL
        #expect(try clipctl("clip", "add", Self.clip).code == 0)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        return (clipctl, fake)
    }

    /// A pull into an empty registry adopts ASC's experiences with their header images; the plan then says in sync. A
    /// value this registry does not know is reported and that experience left in ASC as it is.
    @Test func aPullIntoAnEmptyRegistryAdoptsWhatASCHasAndThePlanIsInSync() throws {
        let teleport: [JSONValue] = [
            [
                "type": "appClipAdvancedExperienceLocalizations", "id": "loc-t",
                "attributes": ["language": "EN", "title": "Beam me", "subtitle": "Up"],
            ],
            [
                "type": "appClipAdvancedExperiences", "id": "exp-t",
                "attributes": [
                    "link": "https://bikesrental.example/teleport", "isPoweredBy": false, "defaultLanguage": "EN", "action": "TELEPORT",
                    "status": "RECEIVED",
                ],
                "relationships": ["appClip": "clip-1", "localizations": ["loc-t"], "headerImage": "img-1"],
            ],
        ]
        let (clipctl, fake) = try Self.pullSetUp(count: 3, fakeArguments: ["--no-response-check"], extra: teleport)
        let pulled = try clipctl("asc", "pull")
        #expect(pulled.code == 0, "\(pulled.err)")
        #expect(pulled.out.contains("adopted https://bikesrental.example/dock/0 as experience 1"))
        #expect(pulled.out.contains("App Store Connect sent action TELEPORT, unknown to this registry"))
        #expect(pulled.out.contains("3 adopted, 0 in sync, 0 differ"))
        let shown = try JSONParser.parse(Array(try clipctl("--json", "show", "1").out.utf8))
        #expect(shown["title"]?.stringValue == "Dock 0")
        #expect(shown["category"]?.stringValue == "BIKES")
        #expect(shown["headerImage"]?.stringValue?.count == 64)
        #expect(try Self.inSync(clipctl))
        // Pulling again changes nothing.
        let state = try clipctl.state()
        let again = try clipctl("asc", "pull")
        #expect(again.code == 0)
        #expect(again.out.contains("0 adopted, 3 in sync, 0 differ"))
        #expect(try clipctl.state() == state)
        #expect(try fake.violations() == [])
    }

    /// A card edited in ASC's web pages shows as drift; a pull reports the difference and overwrites nothing until a side
    /// is preferred.
    @Test func aChangeMadeInASCIsDriftAndAPullSettlesItOnlyWhenASideIsPreferred() throws {
        let (clipctl, fake) = try Self.pullSetUp(count: 2)
        #expect(try clipctl("asc", "pull").code == 0)
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    [
                        "type": "appClipAdvancedExperienceLocalizations", "id": "loc-1",
                        "attributes": ["language": "EN", "title": "Edited in ASC", "subtitle": "Unlock one in seconds"],
                    ]
                ]
            ])
        let status = try clipctl("asc", "status")
        #expect(status.out.contains("drifted  2   https://bikesrental.example/dock/1  exp-1"))
        let doctor = try clipctl("doctor")
        #expect(doctor.code == 0, "drift is a warning")
        #expect(doctor.out.contains("warning asc.drift https://bikesrental.example/dock/1: changed in App Store Connect (exp-1)"))
        var keyless = clipctl
        keyless.environment["ASC_KEY_ID"] = nil
        keyless.environment["ASC_PRIVATE_KEY_PATH"] = nil
        #expect(try keyless("doctor").out.contains("info asc.notChecked App Store Connect: clips are linked to App Store Connect"))
        let before = try clipctl.state()
        let reported = try clipctl("asc", "pull")
        #expect(reported.code == 2)
        #expect(reported.out.contains("localizations.EN.title: registry Dock 1, App Store Connect Edited in ASC"))
        #expect(reported.err.contains("--prefer asc"))
        #expect(try clipctl.state() == before)

        // Keep ours: recorded as seen, so the plan now pushes our title without calling it drift.
        // Said as what happened, not as "differ" (issue 24).
        let kept = try clipctl("asc", "pull", "--prefer", "registry")
        #expect(kept.code == 0)
        #expect(
            kept.out.contains("kept the registry's (asc apply pushes it): experience 2 https://bikesrental.example/dock/1"), "\(kept.out)")
        #expect(kept.out.contains(", 1 kept the registry's\n"), "\(kept.out)")
        #expect(!kept.out.contains("differ"), "\(kept.out)")
        let plan = try clipctl("asc", "plan")
        #expect(plan.out.contains("localizations.EN.title: Edited in ASC → Dock 1"))
        #expect(!plan.out.contains("changed in App Store Connect"))
        // Take theirs: the registry's card becomes ASC's, and both sides agree.
        let taken = try clipctl("asc", "pull", "--prefer", "asc")
        #expect(taken.code == 0, "\(taken.err)")
        #expect(try JSONParser.parse(Array(try clipctl("--json", "show", "2").out.utf8))["title"]?.stringValue == "Edited in ASC")
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// 500 experiences across pages of 50: pulled, in sync, and one change pushed.
    @Test func fiveHundredExperiencesAcrossPages() throws {
        let (clipctl, fake) = try Self.pullSetUp(count: 500, fakeArguments: ["--page-size", "50"])
        let pulled = try clipctl("asc", "pull")
        #expect(pulled.code == 0, "\(pulled.err)")
        #expect(pulled.out.contains("500 adopted, 0 in sync, 0 differ"))
        #expect(try Self.inSync(clipctl))
        #expect(try clipctl("update", "https://bikesrental.example/dock/250", "--title", "Dock two-fifty").code == 0)
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(applied.out.contains("applied 1 change(s)"))
        #expect(try fake.experiences()["https://bikesrental.example/dock/250"] == ["EN": "Dock two-fifty"])
        #expect(try fake.experiences().count == 500)
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// `/v1/asc` on a server started with a key, driven by `clipctl --server … asc`: admin tokens only, the same plan as
    /// on the database, an apply that needs --yes, one apply at a time, and a server without a key says so.
    @Test func planAndApplyOverTheServer() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let local = try clipctl("asc", "plan")
        let admin = try clipctl("token", "create", "--admin", "--name", "sync").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let team = try clipctl("token", "create", "--team", "ABCDE12345", "--name", "team").out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try Self.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        var remote = clipctl
        for key in ["ASC_KEY_ID", "ASC_ISSUER_ID", "ASC_PRIVATE_KEY_PATH", "ASC_API_URL"] { remote.environment[key] = nil }
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = team
        let forbidden = try remote("asc", "plan")
        #expect(forbidden.code == 1)
        #expect(forbidden.err.contains("this route needs an admin token"))
        remote.environment["CLIP_TOKEN"] = admin
        let plan = try remote("asc", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out == local.out)
        let writes = try fake.writes()
        #expect(try remote("asc", "apply").code == 64)
        #expect(try fake.writes() == writes)

        // A slow apply: a second one sent meanwhile is refused, not run twice. The stall outlasts both attempts
        // below even under ThreadSanitizer (at 1 s, the first apply once finished before the local one ran).
        try fake.inject([["kind": "stall", "seconds": 5, "times": 1, "method": "POST", "path": "appClipAdvancedExperiences$"]])
        let first = try Self.applyInTheBackground(remote)
        var second: Clipctl.Result?
        var onTheDatabase: Clipctl.Result?
        for _ in 0..<40 {
            Thread.sleep(forTimeInterval: 0.05)
            let attempt = try remote("asc", "apply", "--yes")
            if attempt.err.contains("an App Store Connect apply is running") {
                second = attempt
                // clipctl on the database itself, while the server applies: refused too (a lock beside the database).
                onTheDatabase = try clipctl("asc", "apply", "--yes")
                break
            }
        }
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        // One exit code for one situation, over --server as on the database (issue 24).
        #expect(second?.code == 69)
        #expect(onTheDatabase?.code == 69)
        #expect(onTheDatabase?.err.contains("is running on this database") == true)
        #expect(try Self.inSync(clipctl))
        var expected = try Self.registry(clipctl)
        expected["https://bikesrental.example/old"] = ["EN": "Only there"]
        #expect(try fake.experiences() == expected)

        // What ASC would refuse is refused by the server before anything is sent (422, with the fix).
        #expect(
            try clipctl("register", "https://bikesrental.example/plain", "--clip", Self.clip, "--title", "Plain", "--subtitle", "No image")
                .code == 0)
        let refused = try remote("asc", "apply", "--yes")
        #expect(refused.code == 65)
        #expect(refused.err.contains("headerImage.required"))
        #expect(try fake.experiences()["https://bikesrental.example/plain"] == nil)
        #expect(try fake.violations() == [])

        // A server without a key answers 503 and says how to give it one.
        let keyless = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = keyless.stop() }
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(keyless.port)"
        let unavailable = try remote("asc", "plan")
        #expect(unavailable.code == 69)
        #expect(unavailable.err.contains("started without an App Store Connect key"))
    }

    /// The default experience goes on the App Store version being edited: created with its locales and header images,
    /// then changed (a subtitle, an image, a locale fewer); without such a version the plan says what to do.
    @Test func theDefaultExperienceGoesOnTheVersionBeingEdited() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("remove", "3").code == 0)
        #expect(try clipctl("update", "2", "--title", "Old title").code == 0)
        #expect(
            try clipctl(
                "default", "set", Self.clip, "--action", "VIEW", "--subtitle", "en-US=Rent a bike", "--subtitle", "de-DE=Fahrrad leihen",
                "--image", "rent.png"
            ).code == 0)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let none = try clipctl("asc", "plan")
        #expect(none.out.contains("default experience (no App Store version being edited): nothing"))
        #expect(none.out.contains("create the next version there, then apply again"))
        #expect(try Self.inSync(clipctl))

        try Self.seedLiveAndEditedVersions(fake)
        let plan = try clipctl("asc", "plan")
        #expect(plan.out.contains("default experience (App Store version 1.1): create"))
        #expect(plan.out.contains("localizations.de-DE.subtitle: none → Fahrrad leihen"))
        #expect(plan.out.contains("pending: default experience create"))
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(try Self.inSync(clipctl))
        func defaults() throws -> [String: String] {
            let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
            var result: [String: String] = [:]
            for r in resources where r["type"]?.stringValue == "appClipDefaultExperienceLocalizations" {
                let image = r["relationships"]?["appClipHeaderImage"]?.stringValue
                result[r["attributes"]?["locale"]?.stringValue ?? "?"] =
                    (r["attributes"]?["subtitle"]?.stringValue ?? "") + (image == nil ? "" : " +image")
            }
            return result
        }
        #expect(try defaults() == ["en-US": "Rent a bike +image", "de-DE": "Fahrrad leihen +image"])

        // A subtitle and the image change, a locale goes: the same default experience, changed in place.
        try clipctl.write("other.png", "")
        try Data(TestImages.png(width: 1800, height: 1200, grey: 200)).write(to: URL(fileURLWithPath: clipctl.file("other.png")))
        #expect(
            try clipctl("default", "set", Self.clip, "--action", "VIEW", "--subtitle", "en-US=Ride today", "--image", "other.png").code == 0
        )
        // The hourly budget is kept for the default experience's step too: stopped before it sends anything.
        let writesBefore = try fake.writes()
        let budget = try clipctl("asc", "apply", "--yes", "--rate-reserve", "3590")
        #expect(budget.code == 69, "\(budget.err)")
        #expect(budget.err.contains("are kept for other tools"))
        #expect(try fake.writes() == writesBefore)
        let changed = try clipctl("asc", "apply", "--yes")
        #expect(changed.code == 0, "\(changed.err)")
        #expect(changed.out.contains("update default experience, App Store version 1.1"))
        #expect(try defaults() == ["en-US": "Ride today +image"])
        #expect(try Self.inSync(clipctl))
        let records = try clipctl("changes", "--limit", "1000").out
        #expect(records.contains("update ascDefaultExperience \(Self.clip)"))

        // A pull into a registry without a default experience takes this one.
        #expect(try clipctl("default", "remove", Self.clip).code == 0)
        let pulled = try clipctl("asc", "pull")
        #expect(pulled.code == 0, "\(pulled.err)")
        #expect(pulled.out.contains("default experience: adopted"))
        #expect(try clipctl("default", "show", Self.clip).out.contains("Ride today"))
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// A server waiting out App Store Connect's Retry-After stops when told to (SIGTERM): the apply ends at the drain
    /// deadline, sends nothing more, and the next apply finishes the job.
    @Test func aServerWaitingOnAppStoreConnectStillStopsOnSIGTERM() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let admin = try clipctl("token", "create", "--admin", "--name", "sync").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try Self.serverWithKey(clipctl, fake)
        try fake.inject([["kind": "status", "status": 429, "retryAfter": 100, "method": "PATCH", "times": 1]])
        var remote = clipctl
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = admin
        let apply = try Self.applyInTheBackground(remote)
        Thread.sleep(forTimeInterval: 2)  // the PATCH is refused and the server waits 100 s
        let writes = try fake.writes()
        let stopped = Date()
        #expect(server.stop() == 0, "stopped gracefully")
        #expect(Date().timeIntervalSince(stopped) < 18)
        apply.waitUntilExit()
        #expect(apply.terminationStatus != 0)
        #expect(try fake.writes() == writes, "nothing sent after the stop")
        let finished = try clipctl("asc", "apply", "--yes")
        #expect(finished.code == 0, "\(finished.err)")
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// The app's live version 1.0 and version 1.1 being edited, in the fake.
    static func seedLiveAndEditedVersions(_ fake: FakeASCProcess) throws {
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    [
                        "type": "appStoreVersions", "id": "ver-1",
                        "attributes": ["versionString": "1.0", "platform": "IOS", "appVersionState": "READY_FOR_DISTRIBUTION"],
                        "relationships": ["app": "6400000001"],
                    ],
                    [
                        "type": "appStoreVersions", "id": "ver-2",
                        "attributes": ["versionString": "1.1", "platform": "IOS", "appVersionState": "PREPARE_FOR_SUBMISSION"],
                        "relationships": ["app": "6400000001"],
                    ],
                ]
            ])
    }
}
