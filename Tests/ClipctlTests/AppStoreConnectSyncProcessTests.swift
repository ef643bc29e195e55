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

    /// The registry's active experiences: URL → title in the default language.
    static func registry(_ clipctl: Clipctl) throws -> [String: [String: String]] {
        let list = try clipctl("--json", "list")
        var result: [String: [String: String]] = [:]
        for e in try JSONParser.parse(Array(list.out.utf8)).arrayValue ?? [] where e["status"]?.stringValue == "ACTIVE" {
            var cards = [e["language"]?.stringValue ?? "EN": e["title"]?.stringValue ?? ""]
            if case .object(let others)? = e["localizations"] {
                for (language, card) in others { cards[language] = card["title"]?.stringValue ?? "" }
            }
            result[e["url"]?.stringValue ?? ""] = cards
        }
        return result
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
            let process = Process()
            process.executableURL = Clipctl.binary
            process.arguments = ["asc", "apply", "--yes"]
            process.environment = clipctl.environment
            process.currentDirectoryURL = clipctl.directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
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
        #expect(refused.code == 1)
        #expect(refused.err.contains("category: This category is not available for this experience [ENTITY_ERROR.ATTRIBUTE.INVALID]"))
        #expect(refused.out.contains("stopped after 0 change(s), 1 left"))
        #expect(try clipctl.state() + clipctl("--json", "asc", "status").out == before)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        #expect(try Self.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// An upload whose bytes arrive damaged (the commit's MD5 does not match) is finished by the next apply with the
    /// same reservation; an image ASC fails to process is left (there is no DELETE) and said, and a new one is made.
    @Test func aDamagedUploadResumesOnItsReservationAndAFailedImageIsReplaced() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("remove", "2").code == 0)
        try fake.inject([["kind": "corruptUpload", "times": 1]])
        let damaged = try clipctl("asc", "apply", "--yes")
        #expect(damaged.code == 1)
        #expect(damaged.err.contains("headerImage: The checksum "))
        let resumed = try clipctl("asc", "apply", "--yes")
        #expect(resumed.code == 0, "\(resumed.err)")
        #expect(try fake.unusedImages() == [])

        #expect(
            try clipctl(
                "register", "https://bikesrental.example/late", "--clip", Self.clip, "--title", "Late", "--subtitle", "Still here",
                "--image", "rent.png"
            ).code == 0)
        try fake.inject([["kind": "assetFailed", "times": 1]])
        let failed = try clipctl("asc", "apply", "--yes")
        #expect(failed.code == 1)
        #expect(failed.err.contains("IMAGE_INCORRECT_DIMENSIONS"))
        let replaced = try clipctl("asc", "apply", "--yes")
        #expect(replaced.code == 0, "\(replaced.err)")
        #expect(replaced.out.contains("is left unused (App Store Connect has no DELETE for it)"))
        #expect(try fake.unusedImages().count == 1)
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
}
