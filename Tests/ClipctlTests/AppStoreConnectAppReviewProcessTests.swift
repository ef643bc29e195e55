import Foundation
import StrictJSON
import Testing

/// App Review gets the chosen TestFlight URLs (issue 28): `clipctl asc plan|apply` gives the default experience of the App
/// Store version being edited its App Clip review detail (`appClipAppStoreReviewDetails.invocationUrls`), against the fake
/// App Store Connect, which checks every request against Apple's specification.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectAppReviewProcessTests {
    static let clip = AppStoreConnectProcessTests.clip
    static let rent = "https://bikesrental.example/rent", store = "https://bikesrental.example/store"

    /// A default experience here, the live version 1.0 and version 1.1 being edited, the clip linked.
    static func setUp() throws -> (Clipctl, FakeASCProcess) {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("default", "set", clip, "--action", "VIEW", "--subtitle", "en-US=Rent a bike").code == 0)
        try AppStoreConnectSyncProcessTests.seedLiveAndEditedVersions(fake)
        #expect(try clipctl("asc", "link", clip).code == 0)
        return (clipctl, fake)
    }

    /// Every App Review detail the fake holds: its id, the default experience it belongs to, its URLs.
    static func reviewDetails(_ fake: FakeASCProcess) throws -> [(id: String, defaultExperience: String, urls: [String])] {
        let resources = try fake.control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        return resources.filter { $0["type"]?.stringValue == "appClipAppStoreReviewDetails" }.map {
            (
                $0["id"]?.stringValue ?? "", $0["relationships"]?["appClipDefaultExperience"]?.stringValue ?? "",
                ($0["attributes"]?["invocationUrls"]?.arrayValue ?? []).compactMap(\.stringValue)
            )
        }
    }

    @Test func applyGivesAppReviewTheChosenURLsAndASecondApplySendsNothing() throws {
        let (clipctl, fake) = try Self.setUp()
        // Nothing chosen: doctor says so, App Review's URLs are left as they are, and the default experience alone is planned.
        let doctor = try clipctl("doctor")
        #expect(doctor.out.contains("warning testflight-none \(Self.clip): is linked to App Store Connect"), "\(doctor.out)")
        let before = try clipctl("asc", "plan")
        #expect(!before.out.contains("appReview"), "\(before.out)")
        #expect(try clipctl("asc", "testflight", "set", Self.clip, Self.rent, Self.store).code == 0)
        let plan = try clipctl("asc", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("appReview.invocationUrls: none → \(Self.rent) \(Self.store)"), "\(plan.out)")
        let json = try JSONParser.parse(Array(try clipctl("--json", "asc", "plan").out.utf8))
        let changes = json["plans"]?.arrayValue?.first?["defaultExperience"]?["changes"]?.arrayValue ?? []
        #expect(changes.contains { $0["field"]?.stringValue == "appReview.invocationUrls" })

        let applied = try clipctl("--json", "asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.err)")
        #expect(try !clipctl("doctor").out.contains("testflight-"))
        let details = try Self.reviewDetails(fake)
        #expect(details.count == 1)
        #expect(details.first?.urls == [Self.rent, Self.store])
        // The request budget counts the review detail's write with the default experience's.
        let report = try JSONParser.parse(Array(applied.out.utf8))["applied"]?.arrayValue?.first
        if case .integer(let writes)? = report?["requests"]?["byKind"]?["default-experience"] {
            #expect(writes >= 3, "default experience, its localization, the review detail")
        } else {
            Issue.record("no default-experience requests counted: \(applied.out)")
        }

        // Again: only reads.
        let writes = try fake.writes()
        let again = try clipctl("asc", "apply", "--yes")
        #expect(again.code == 0, "\(again.err)")
        #expect(try fake.writes() == writes)
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))

        // Another choice: the same review detail changed in place, behind the hourly budget's reserve like every write.
        #expect(try clipctl("asc", "testflight", "set", Self.clip, Self.store).code == 0)
        let budget = try clipctl("asc", "apply", "--yes", "--rate-reserve", "3595")
        #expect(budget.code == 69, "\(budget.out)\(budget.err)")
        #expect(try fake.writes() == writes)
        #expect(try clipctl("asc", "apply", "--yes").code == 0)
        let changed = try Self.reviewDetails(fake)
        #expect(changed.map(\.id) == details.map(\.id))
        #expect(changed.first?.urls == [Self.store])
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }

    @Test func aChosenURLThatStopsResolvingStopsTheApplyBeforeAnythingIsSent() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/new").code == 0)
        // Removed, the URL would fall back to the default experience; taken by another clip of the team, it is not the clip's.
        #expect(try clipctl("remove", "3").code == 0)
        let other = try clipctl(
            "register", "https://bikesrental.example/new", "--clip", "ABCDE12345.com.example.bikes.Other", "--title", "Other",
            "--subtitle", "Another clip")
        #expect(other.code == 0, "\(other.err)")
        let writes = try fake.writes()
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 65, "\(applied.out)\(applied.err)")
        #expect(applied.err.contains("https://bikesrental.example/new"), "\(applied.err)")
        #expect(try fake.writes() == writes)
        #expect(try Self.reviewDetails(fake).isEmpty)
        let plan = try clipctl("asc", "plan")
        #expect(plan.out.contains("refused [appReview.resolve]"), "\(plan.out)")
        let doctor = try clipctl("doctor")
        #expect(
            doctor.out.contains(
                "warning testflight-unresolved https://bikesrental.example/new: is chosen as TestFlight invocation 1 of \(Self.clip) but"),
            "\(doctor.out)")
        #expect(try fake.violations() == [])
    }

    @Test func aCreateOrAnUpdateAnsweredBadlyIsReadBackNotMadeTwice() throws {
        let (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("asc", "testflight", "set", Self.clip, Self.rent).code == 0)
        // The review detail's create lands and its answer is lost: read back, not made again.
        try fake.inject([["kind": "dropAfter", "method": "POST", "path": "appClipAppStoreReviewDetails$", "times": 1]])
        let applied = try clipctl("asc", "apply", "--yes")
        #expect(applied.code == 0, "\(applied.out)\(applied.err)")
        #expect(applied.out.contains("read back and went on"), "\(applied.out)")
        #expect(try Self.reviewDetails(fake).map(\.urls) == [[Self.rent]])
        // Its change lands and is answered 500.
        #expect(try clipctl("asc", "testflight", "set", Self.clip, Self.rent, Self.store).code == 0)
        try fake.inject([["kind": "statusAfter", "status": 500, "method": "PATCH", "path": "appClipAppStoreReviewDetails/", "times": 1]])
        let patched = try clipctl("asc", "apply", "--yes")
        #expect(patched.code == 0, "\(patched.out)\(patched.err)")
        // The PATCH is sent again (it is idempotent), once.
        #expect(patched.out.contains("2 default-experience"), "\(patched.out)")
        #expect(try Self.reviewDetails(fake).map(\.urls) == [[Self.rent, Self.store]])
        #expect(try AppStoreConnectSyncProcessTests.inSync(clipctl))
        #expect(try fake.violations() == [])
    }
}
