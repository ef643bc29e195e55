import Foundation
import StrictJSON
import TestSupport
import Testing

/// `clipctl asc apply` through App Store Connect's bad days (issue 24): an ambiguous or failed answer is read back and
/// the apply goes on, so one run converges; it costs at most 5 requests per new experience with an image; a failure
/// that persists stops it saying what is left. Against the fake, which checks every request against Apple's schema.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectConvergenceTests {
    static let clip = AppStoreConnectProcessTests.clip

    /// Registers /dock/1…/dock/`count` with the test image.
    static func registerDocks(_ clipctl: Clipctl, _ range: ClosedRange<Int>) throws {
        for n in range {
            let r = try clipctl(
                "register", "https://bikesrental.example/dock/\(n)", "--clip", clip, "--title", "Dock \(n)", "--subtitle",
                "Unlock one in seconds", "--image", "rent.png")
            #expect(r.code == 0, "\(r.err)")
        }
    }

    /// The requests the fake saw: method and path.
    static func requests(_ fake: FakeASCProcess) throws -> [(method: String, path: String)] {
        (try fake.control("GET", "/__fake/requests")["requests"]?.arrayValue ?? []).map {
            ($0["method"]?.stringValue ?? "", $0["path"]?.stringValue ?? "")
        }
    }

    @Test func anApplyThroughEveryKindOfFaultAfterAKillConvergesInOneRunWithoutDuplicates() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        try Self.registerDocks(clipctl, 1...12)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)

        // kill -9 in the middle of an apply whose writes are slow.
        try fake.inject([["kind": "stall", "seconds": .double(0.2), "times": 10_000, "path": "appClipAdvancedExperience"]])
        let killed = try AppStoreConnectSyncProcessTests.applyInTheBackground(clipctl)
        Thread.sleep(forTimeInterval: Double.random(in: 0.8...2.0))
        let wasRunning = killed.isRunning
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        #expect(wasRunning, "the apply had finished before the kill")
        try fake.inject([["kind": "stall", "seconds": 0, "times": 0]])

        // Then one apply through every fault the fake knows but a stall (a timeout: the client's tests).
        try fake.inject([
            // The first reading fails past the client's 4 attempts: read again by the apply.
            ["kind": "status", "status": 500, "method": "GET", "path": "appClipAdvancedExperiences$", "times": 5],
            ["kind": "drop", "method": "POST", "path": "appClipAdvancedExperiences$", "times": 1],
            ["kind": "dropAfter", "method": "POST", "path": "appClipAdvancedExperiences$", "times": 1],
            ["kind": "statusAfter", "status": 500, "method": "POST", "path": "appClipAdvancedExperiences$", "times": 1],
            ["kind": "status", "status": 500, "method": "POST", "path": "appClipAdvancedExperienceImages$", "times": 1],
            ["kind": "statusAfter", "status": 502, "method": "POST", "path": "appClipAdvancedExperienceImages$", "times": 1],
            ["kind": "statusAfter", "status": 503, "method": "PATCH", "path": "appClipAdvancedExperienceImages/", "times": 1],
            ["kind": "dropAfter", "method": "PATCH", "path": "appClipAdvancedExperiences/", "times": 1],
            ["kind": "status", "status": 429, "retryAfter": 0, "times": 2],
            ["kind": "uploadFailure", "times": 2],
            ["kind": "corruptUpload", "times": 1],
            ["kind": "assetFailed", "times": 1],
            ["kind": "unauthorized", "method": "GET", "times": 1],
            ["kind": "drop", "method": "GET", "path": "appClipAdvancedExperienceImages/", "times": 1],
        ])
        let started = Date()
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.out)\n\(applied.err)")
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(applied.out.contains("read back and went on: create https://bikesrental.example/"), "\(applied.out)")
        #expect(applied.out.contains("requests: "))

        var expected = try AppStoreConnectSyncProcessTests.registry(clipctl)
        expected["https://bikesrental.example/old"] = ["EN": "Only there"]
        #expect(try fake.experiences() == expected)  // each link once (experiences() flags a second)
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        // One create record per experience, the ones that landed behind a fault included.
        let changes = try JSONParser.parse(Array(try clipctl("--json", "changes", "--limit", "10000").out.utf8)).arrayValue ?? []
        let creates = changes.filter { $0["entity"]?.stringValue == "asc-experience" && $0["action"]?.stringValue == "create" }
        #expect(creates.count == 13, "12 docks and /new")
        #expect(Set(creates.compactMap { $0["entityId"]?.stringValue }).count == 13)
        // No POST sent twice by the transport, none without its body: the fake found nothing against the schema.
        #expect(try fake.violations() == [])
        #expect(try clipctl("asc", "apply", "--yes").out.contains("in sync: nothing to do"))
    }

    @Test func aNewExperienceWithAnImageCostsAtMostFiveRequestsAndNothingToDoCostsOne() throws {
        var clipctl = try Clipctl()
        // Pages as large as App Store Connect's (200) and one upload part per image, as ASC offers for an image this size.
        let fake = try FakeASCProcess(folder: clipctl.directory, arguments: ["--page-size", "200", "--part-size", "1048576"])
        try AppStoreConnectProcessTests.prepare(&clipctl, fake)
        try Self.registerDocks(clipctl, 1...20)
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let before = try Self.requests(fake).count
        let applied = try clipctl("--json", "asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        let sent = try Self.requests(fake).dropFirst(before)
        let perExperience = sent.filter { !($0.method == "GET" && $0.path.hasPrefix("/v1/appClips/")) }
        // 20 docks and /new are created, /store updated (one PATCH): reserve, part, commit, one poll, create each.
        let perNew = try AppStoreConnectBudgetProcessTests.documented("new experience with its header image")
        #expect(perExperience.count <= 21 * perNew + 1, "\(perExperience.map { "\($0.method) \($0.path)" })")
        #expect(!sent.contains { $0.method == "GET" && $0.path.hasPrefix("/v1/appClipAdvancedExperiences/") }, "no read back")
        let report = try JSONParser.parse(Array(applied.out.utf8))["applied"]?.arrayValue?.first
        #expect(report?["requests"]?["total"] == .integer(Int64(sent.count)), "\(applied.out)")
        #expect(report?["requests"]?["byKind"]?["create"] == .integer(21))
        #expect(report?["requests"]?["byKind"]?["image-poll"] == .integer(21))

        let again = try clipctl("asc", "apply", "--yes")
        #expect(again.out.contains("in sync: nothing to do"))
        #expect(again.out.contains("requests: 1 read (1 in all)"), "\(again.out)")
        #expect(try Self.requests(fake).count == before + sent.count + 1)
        #expect(try fake.violations() == [])
    }

    /// A step that keeps failing stops the apply after its bounded tries, saying what is left; the next run finishes.
    @Test func aFailureThatPersistsStopsTheApplyAndSaysWhatIsLeft() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        try fake.inject([["kind": "status", "status": 500, "method": "POST", "path": "appClipAdvancedExperiences$", "times": 5]])
        let started = Date()
        let stopped = try clipctl("asc", "apply", "--yes")
        #expect(stopped.code == 1)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(stopped.out.contains("  left: create https://bikesrental.example/new"), "\(stopped.out)")
        #expect(stopped.out.contains("stopped after 1 change(s), 1 left"), "\(stopped.out)")
        #expect(stopped.err.contains("POST /v1/appClipAdvancedExperiences got no usable answer (HTTP 500)"))
        let creates = try Self.requests(fake).filter { $0.method == "POST" && $0.path == "/v1/appClipAdvancedExperiences" }
        #expect(creates.count == 5, "five tries of the same step")
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// The same through `POST /v1/asc/apply`: the report carries what was read back and the requests by kind.
    @Test func theServersApplyConvergesAndCountsItsRequests() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        let admin = try clipctl("token", "create", "--admin", "--name", "sync").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try AppStoreConnectSyncProcessTests.serverWithKey(clipctl, fake)
        defer { _ = server.stop() }
        var remote = clipctl
        for key in ["ASC_KEY_ID", "ASC_ISSUER_ID", "ASC_PRIVATE_KEY_PATH", "ASC_API_URL"] { remote.environment[key] = nil }
        remote.environment["CLIP_SERVER"] = "http://127.0.0.1:\(server.port)"
        remote.environment["CLIP_TOKEN"] = admin
        try fake.inject([
            ["kind": "dropAfter", "method": "POST", "path": "appClipAdvancedExperiences$", "times": 1],
            ["kind": "status", "status": 500, "method": "POST", "path": "appClipAdvancedExperienceImages$", "times": 1],
        ])
        let applied = try remote("--json", "asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        let report = try JSONParser.parse(Array(applied.out.utf8))["applied"]?.arrayValue?.first
        #expect((report?["recovered"]?.arrayValue ?? []).count == 2, "\(applied.out)")
        #expect(report?["requests"]?["byKind"]?["create"] == .integer(1))
        #expect(report?["pending"] == .array([]))
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    /// An upload whose bytes arrive damaged (the commit's MD5 does not match) is finished in the same apply on the same
    /// reservation; an image ASC fails to process is left (there is no DELETE) and said, and a new one is made.
    @Test func aDamagedUploadResumesOnItsReservationAndAFailedImageIsReplaced() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("remove", "2").code == 0)
        // Damaged on the way, then refused in processing: each is gone past in the same run (issue 24).
        try fake.inject([["kind": "corruptUpload", "times": 1]])
        let damaged = try clipctl("asc", "apply", "--yes")
        #expect(damaged.code == 0, "\(damaged.err)")
        #expect(damaged.out.contains("read back and went on: create https://bikesrental.example/new: "), "\(damaged.out)")
        #expect(damaged.out.contains("The checksum "))
        #expect(try fake.unusedImages() == [])

        #expect(
            try clipctl(
                "register", "https://bikesrental.example/late", "--clip", Self.clip, "--title", "Late", "--subtitle", "Still here",
                "--image", "rent.png"
            ).code == 0)
        try fake.inject([["kind": "assetFailed", "times": 1]])
        let replaced = try clipctl("asc", "apply", "--yes")
        #expect(replaced.code == 0, "\(replaced.err)")
        #expect(replaced.out.contains("IMAGE_INCORRECT_DIMENSIONS"))
        #expect(replaced.out.contains("is left unused (App Store Connect has no DELETE for it)"))
        #expect(try fake.unusedImages().count == 1)
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }
}
