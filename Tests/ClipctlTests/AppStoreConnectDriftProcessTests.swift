import Foundation
import StrictJSON
import TestSupport
import Testing

/// Issue 32: drift is an edit made in App Store Connect's web pages, nothing else. The fake answers writes as Apple does
/// (no relationships) and, once it has processed a write, changes what Apple sets by itself (status, placeStatus,
/// version, the image's delivery state, the order of the cards): a clean push leaves the plan in sync, an edited title
/// there is drift.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectDriftProcessTests {
    static let clip = AppStoreConnectProcessTests.clip
    static let url = "https://bikesrental.example/rent"

    /// One experience with a header image, a place and two cards, linked to a fake holding the app and its App Clip only.
    static func setUp() throws -> (Clipctl, FakeASCProcess) {
        var clipctl = try Clipctl()
        let fake = try FakeASCProcess(folder: clipctl.directory, arguments: ["--processing-seconds", "0.3"])
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    [
                        "type": "apps", "id": "6400000001",
                        "attributes": ["bundleId": "com.example.bikes", "name": "Bikes", "primaryLocale": "en-US"],
                    ],
                    [
                        "type": "appClips", "id": "clip-1", "attributes": ["bundleId": "com.example.bikes.Clip"],
                        "relationships": ["app": "6400000001"],
                    ],
                ]
            ])
        try Data(TestImages.png(width: 1800, height: 1200, grey: 3)).write(to: URL(fileURLWithPath: clipctl.file("rent.png")))
        try clipctl.write("AuthKey.p8", FakeASCProcess.privateKeyPEM)
        #expect(chmod(clipctl.file("AuthKey.p8"), 0o600) == 0)
        let registered = try clipctl(
            "register", url, "--clip", clip, "--title", "Rent a bike", "--subtitle", "Unlock one in seconds", "--category", "BIKES",
            "--localization", "FR=Louer un vélo|En quelques secondes", "--image", "rent.png",
            "--place", #"{"names":["Bikes Rental"],"mapAction":"BOOK_RIDES","mainAddress":{"fullAddress":"1 Main St"}}"#)
        #expect(registered.code == 0, "\(registered.err)")
        clipctl.environment["ASC_KEY_ID"] = FakeASCProcess.keyID
        clipctl.environment["ASC_ISSUER_ID"] = FakeASCProcess.issuerID
        clipctl.environment["ASC_PRIVATE_KEY_PATH"] = clipctl.file("AuthKey.p8")
        clipctl.environment["ASC_API_URL"] = fake.baseURL
        clipctl.environment["CLIP_ASC_WAIT_SCALE"] = "0.2"
        #expect(try clipctl("asc", "link", clip).code == 0)
        return (clipctl, fake)
    }

    /// The experience App Store Connect holds at `url`, once Apple's processing of the last write is over.
    static func processed(_ fake: FakeASCProcess) throws -> JSONValue? {
        for _ in 0..<50 {
            let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
            let experience = resources.first {
                $0["type"]?.stringValue == "appClipAdvancedExperiences" && $0["attributes"]?["link"]?.stringValue == url
                    && $0["removed"]?.boolValue != true
            }
            if let experience, experience["attributes"]?["placeStatus"]?.stringValue == "MATCHED" { return experience }
            usleep(100_000)
        }
        return nil
    }

    @Test func aCleanPushIsInSyncOnceAppleHasProcessedItAndAnEditedTitleThereIsDrift() throws {
        let (clipctl, fake) = try Self.setUp()
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(applied.out.contains("create \(Self.url) → "))
        // The fake changed what Apple sets by itself since it answered the create.
        let held = try #require(try Self.processed(fake))
        #expect(held["attributes"]?["status"]?.stringValue == "RECEIVED")
        #expect(held["attributes"]?["version"] == 2)

        let plan = try clipctl("asc", "plan", "--detailed-exitcode")
        #expect(plan.code == 0, "\(plan.out)")
        #expect(plan.out.contains("in sync: nothing to do"), "\(plan.out)")
        #expect(try clipctl("asc", "status").out.contains("1 in-sync"))
        #expect(!(try clipctl("doctor").out.contains("asc.drift")))

        // An update sends the cards alone: the image and the rest are as they were, still not drift once processed.
        #expect(try clipctl("update", "1", "--title", "Ride a bike").code == 0)
        let updated = try clipctl("asc", "apply", "--yes")
        #expect(updated.code == 0, "\(updated.err)")
        #expect(updated.out.contains("update \(Self.url) → "), "\(updated.out)")
        _ = try #require(try Self.processed(fake))
        #expect(try clipctl("asc", "plan", "--detailed-exitcode").code == 0)

        // A title edited in App Store Connect's web pages is drift, and the plan says what the apply would overwrite.
        let localizations = held["relationships"]?["localizations"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        let current = try #require(
            resources.first {
                $0["type"]?.stringValue == "appClipAdvancedExperiences" && $0["attributes"]?["link"]?.stringValue == Self.url
            })
        let english = try #require(
            (current["relationships"]?["localizations"]?.arrayValue ?? []).compactMap(\.stringValue).first { id in
                resources.contains { $0["id"]?.stringValue == id && $0["attributes"]?["language"]?.stringValue == "EN" }
            })
        #expect(localizations.count == 2)
        try fake.control(
            "POST", "/__fake/seed",
            [
                "resources": [
                    [
                        "type": "appClipAdvancedExperienceLocalizations", "id": .string(english),
                        "attributes": ["language": "EN", "title": "Edited in ASC", "subtitle": "Unlock one in seconds"],
                    ]
                ]
            ])
        let drifted = try clipctl("asc", "plan", "--detailed-exitcode")
        #expect(drifted.code == 2)
        #expect(drifted.out.contains("localizations.EN.title: Edited in ASC → Ride a bike"), "\(drifted.out)")
        #expect(drifted.out.contains("changed in App Store Connect since the last push"), "\(drifted.out)")
        #expect(try clipctl("asc", "status").out.contains("1 drifted"))
        #expect(try clipctl("doctor").out.contains("warning asc.drift \(Self.url): changed in App Store Connect"))
        #expect(try fake.violations() == [])
    }
}
