import AppStoreConnect
import ClipCore
import ClipSync
import DoctorAndPublish
import StrictJSON
import Testing

/// A build's App Clip invocations planned from the clip's chosen ones and what App Store Connect holds
/// (docs/app-store-connect.md#testflight-invocations): pure, no I/O.
struct TestFlightPlanTests {
    static let clip = SyncPlanTests.clip
    static let build = ASCBuild(id: "build-7", version: "42", appClipBundleID: "bundle-7")

    static func chosen(_ position: Int, _ url: String, _ titles: [(String, String)], target: TestFlightInvocation.Target = .experience(1))
        -> TestFlightInvocation
    {
        TestFlightInvocation(position: position, url: url, target: target, titles: titles.map { .init(locale: $0.0, title: $0.1) })
    }

    static func theirs(_ id: String, _ url: String, _ titles: [(String, String)]) -> ASCBetaInvocation {
        ASCBetaInvocation(id: id, url: url, localizations: titles.map { .init(id: "\(id)-\($0.0)", locale: $0.0, title: $0.1) })
    }

    static func plan(_ chosen: [TestFlightInvocation], _ asc: [ASCBetaInvocation], build: ASCBuild? = build) -> TestFlightPlan {
        TestFlightPlan.make(clip: clip, build: build, chosen: chosen, asc: asc, primaryLocale: "en-US", appBundleID: "com.example.bikes")
    }

    @Test func noneThereIsACreateWithTheTitlesAndTheSameAgainIsNothing() {
        let bikes = Self.chosen(1, "https://example.com/bikes", [("de", "Fahrrad"), ("en", "Bikes")])
        let first = Self.plan([bikes], [])
        #expect(first.pending.map(\.action) == [.create])
        // The primary locale's language takes the app's full locale; another language stays as it is.
        #expect(first.steps[0].titles.map(\.locale) == ["de", "en-US"])
        let second = Self.plan([bikes], [Self.theirs("inv-1", "https://example.com/bikes", [("de", "Fahrrad"), ("en-US", "Bikes")])])
        #expect(second.isInSync)
        #expect(second.steps.map(\.ascInvocationID) == ["inv-1"])
    }

    @Test func aTitleChangedALocaleAddedAndOneGoneAreUpdatesOfTheLocalizations() {
        let bikes = Self.chosen(1, "https://example.com/bikes", [("en", "Bikes for rent"), ("fr", "Vélos")])
        let plan = Self.plan([bikes], [Self.theirs("inv-1", "https://example.com/bikes", [("en-US", "Bikes"), ("de", "Fahrrad")])])
        #expect(plan.pending.map(\.action) == [.update])
        #expect(
            plan.steps[0].changes == [
                .update(id: "inv-1-en-US", locale: "en-US", before: "Bikes", after: "Bikes for rent"),
                .create(locale: "fr", title: "Vélos"), .remove(id: "inv-1-de", locale: "de"),
            ])
        #expect(plan.json["steps"]?.arrayValue?.first?["changes"]?.arrayValue?.count == 3)
    }

    @Test func oneNoLongerChosenIsRemovedAndAURLIsMatchedByItsCanonicalForm() {
        let bikes = Self.chosen(1, "https://example.com/bikes", [("en", "Bikes")])
        let plan = Self.plan(
            [bikes],
            [
                Self.theirs("inv-old", "https://example.com/old", [("en-US", "Old")]),
                Self.theirs("inv-1", "HTTPS://Example.COM/bikes", [("en-US", "Bikes")]),
            ])
        #expect(plan.pending.map(\.action) == [.remove])
        #expect(plan.pending.map(\.ascInvocationID) == ["inv-old"])
        #expect(plan.steps.first { $0.url == "https://example.com/bikes" }?.action == .nothing)
    }

    @Test func threeOthersThereAreThreeRemovalsBesideThreeCreations() {
        // App Store Connect keeps three per build: the plan names the removals, the engine sends them first.
        let chosen = (1...3).map { Self.chosen($0, "https://example.com/new\($0)", [("en", "New \($0)")]) }
        let asc = (1...3).map { Self.theirs("inv-\($0)", "https://example.com/old\($0)", [("en-US", "Old \($0)")]) }
        let plan = Self.plan(chosen, asc)
        #expect(plan.pending.filter { $0.action == .remove }.count == 3)
        #expect(plan.pending.filter { $0.action == .create }.count == 3)
        #expect(plan.steps.count == 6)
        // The same URL twice in App Store Connect: one answers for the chosen URL, the other is removed.
        let twice = Self.plan(
            [chosen[0]],
            [
                Self.theirs("inv-a", "https://example.com/new1", [("en-US", "New 1")]),
                Self.theirs("inv-b", "https://example.com/new1", [("en-US", "New 1")]),
            ])
        #expect(twice.pending.map(\.ascInvocationID) == ["inv-b"])
    }

    @Test func aURLThatNoLongerResolvesOrNamesAnotherTeamsClipIsRefused() {
        let gone = Self.chosen(1, "https://example.com/gone", [], target: .unresolved("resolves to no active experience of this clip"))
        let foreign = Self.chosen(
            2, "https://other.example/x", [], target: .unresolved("resolves to experience 9 of another clip (com.other.Clip)"))
        let plan = Self.plan([gone, foreign], [])
        #expect(plan.refused.map(\.url) == ["https://example.com/gone", "https://other.example/x"])
        #expect(plan.refused.flatMap(\.refusals).map(\.rule) == ["testflight.resolve", "testflight.resolve"])
        #expect(plan.refused[1].refusals[0].message.contains("another clip"))
        #expect(plan.refused[0].refusals[0].fix.contains("clipctl asc testflight set \(Self.clip.rawValue)"))
        // Resolving, but with no title to give it.
        let untitled = Self.plan([Self.chosen(1, "https://example.com/bare", [])], [])
        #expect(untitled.refused.flatMap(\.refusals).map(\.rule) == ["testflight.title"])
    }

    /// Issue 32: a chosen URL that no longer resolves has no titles: refused, and the build's invocation of it left as it
    /// is (no "en-US: remove" of its localizations); one falling to the default experience of an unnamed app is refused
    /// with the command that names the app.
    @Test func anUnresolvedURLIsRefusedAndLeftAsItIsAndAnUntitledOneNamesTheFix() {
        let gone = Self.chosen(1, "https://example.com/gone", [], target: .unresolved("resolves to no active experience of this clip"))
        let plan = Self.plan([gone], [Self.theirs("inv-1", "https://example.com/gone", [("en-US", "Gone")])])
        #expect(plan.steps.map(\.action) == [.nothing])
        #expect(plan.steps[0].changes.isEmpty)
        #expect(plan.refused.flatMap(\.refusals).map(\.rule) == ["testflight.resolve"])
        #expect(plan.steps[0].refusals[0].message.hasSuffix("the build's invocation of it is left as it is"))
        #expect(!plan.isInSync)
        let untitled = Self.chosen(1, "https://example.com/else", [("en-US", "")], target: .defaultExperience)
        let refused = Self.plan([untitled], []).refused.flatMap(\.refusals)
        #expect(refused.map(\.rule) == ["testflight.appName"])
        #expect(refused.map(\.fix) == ["clipctl app set com.example.bikes --team ABCDE12345 --name NAME"])
    }

    @Test func noBuildOrABuildWithoutAnAppClipIsANoteAndNoStep() {
        let bikes = Self.chosen(1, "https://example.com/bikes", [("en", "Bikes")])
        let none = Self.plan([bikes], [], build: nil)
        #expect(none.steps.isEmpty && !none.isInSync, "no build is nothing in sync (issue 32)")
        #expect(none.notes == ["no build found in App Store Connect"])
        let noClip = Self.plan([bikes], [], build: ASCBuild(id: "b", version: "43"))
        #expect(noClip.notes == ["build 43 has no App Clip"])
        #expect(noClip.json["build"]?["appClipBuildBundle"] == .null)
    }
}

/// App Review's URLs planned with the default experience (docs/app-store-connect.md#app-review-gets-the-same-urls).
struct AppReviewPlanTests {
    static let ours = DefaultExperiencePlanTests.ours
    static let version = DefaultExperiencePlanTests.version
    static let rent = TestFlightPlanTests.chosen(1, "https://example.com/rent", [("en", "Rent")])
    static let store = TestFlightPlanTests.chosen(2, "https://example.com/store", [("en", "Store")])

    static func plan(_ review: ASCAppClipReviewDetail?, chosen: [TestFlightInvocation], defaultThere: Bool = true)
        -> DefaultExperiencePlan?
    {
        var theirs = DefaultExperiencePlanTests.theirs(["en-US": "Rent a bike", "de-DE": "Fahrrad"])
        theirs.reviewDetail = review
        return DefaultExperiencePlan.make(
            registry: ours, version: version, asc: defaultThere ? theirs : nil, primaryLocale: "en-US", imageMD5: ["sha-a": "md5-a"],
            invocations: chosen)
    }

    @Test func noReviewDetailIsAChangeAndTheSameURLsAreNothing() throws {
        let create = try #require(Self.plan(nil, chosen: [Self.rent, Self.store]))
        #expect(create.action == .update)
        #expect(
            create.changes == [
                .init(field: "appReview.invocationUrls", before: "none", after: "https://example.com/rent https://example.com/store")
            ])
        #expect(create.appReviewURLs([Self.rent, Self.store]) == ["https://example.com/rent", "https://example.com/store"])
        // The same URLs in another spelling: nothing to send.
        let same = try #require(
            Self.plan(
                ASCAppClipReviewDetail(id: "rd-1", invocationURLs: ["HTTPS://EXAMPLE.com/rent", "https://example.com/store"]),
                chosen: [Self.rent, Self.store]))
        #expect(same.action == .nothing && same.changes.isEmpty)
        #expect(same.appReviewURLs([Self.rent, Self.store]) == nil)
        // Nothing chosen: App Store Connect's are left as they are.
        let untouched = try #require(Self.plan(ASCAppClipReviewDetail(id: "rd-1", invocationURLs: ["https://x.example/"]), chosen: []))
        #expect(untouched.action == .nothing)
    }

    @Test func anotherOrderIsAnUpdateAndANewDefaultExperienceTakesTheURLsToo() throws {
        let reordered = try #require(
            Self.plan(
                ASCAppClipReviewDetail(id: "rd-1", invocationURLs: ["https://example.com/store", "https://example.com/rent"]),
                chosen: [Self.rent, Self.store]))
        #expect(reordered.action == .update)
        #expect(reordered.changes.first?.before == "https://example.com/store https://example.com/rent")
        let created = try #require(Self.plan(nil, chosen: [Self.rent], defaultThere: false))
        #expect(created.action == .create)
        #expect(created.changes.last?.field == "appReview.invocationUrls")
    }

    @Test func aChosenURLThatNoLongerResolvesIsRefusedEvenWhenAppStoreConnectHasIt() throws {
        let gone = TestFlightPlanTests.chosen(1, "https://example.com/gone", [], target: .unresolved("resolves to nothing"))
        let plan = try #require(
            Self.plan(ASCAppClipReviewDetail(id: "rd-1", invocationURLs: ["https://example.com/gone"]), chosen: [gone]))
        #expect(plan.action == .nothing)
        #expect(plan.refusals.map(\.rule) == ["appReview.resolve"])
        var sync = SyncPlan(clip: TestFlightPlanTests.clip, steps: [])
        sync.defaultExperience = plan
        #expect(!sync.allRefused.isEmpty)
        #expect(sync.doctorFindings.map(\.code).contains("asc.appReview.resolve"))
    }
}
