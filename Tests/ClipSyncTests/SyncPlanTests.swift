import AppStoreConnect
import ClipCore
import ClipSync
import StrictJSON
import Testing

/// The plan of one clip: what an apply would send, found from both sides without I/O.
struct SyncPlanTests {
    static let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")
    static let link = AppStoreConnectLink(
        clip: clip, ascAppID: "6400000001", ascAppClipID: "clip-1", appBundleID: "com.example.bikes", primaryLocale: "en-US")
    static let image = String(repeating: "a", count: 64)

    static func experience(_ id: Int64, _ path: String, title: String = "Rent a bike", image: String? = image) -> AdvancedExperience {
        AdvancedExperience(
            id: id, url: try! NormalizedURL("https://bikes.example\(path)"), clip: clip, businessCategory: .BIKES,
            localizations: [.EN: CardText(title: title, subtitle: "In seconds")], headerImage: image)
    }

    static func asc(_ id: String, _ path: String, title: String = "Rent a bike", action: String = "OPEN") -> ASCAdvancedExperience {
        ASCAdvancedExperience(
            id: id, link: "https://bikes.example\(path)", isPoweredBy: false, action: ASCValue(action),
            businessCategory: ASCValue("BIKES"), defaultLanguage: ASCValue("EN"), status: ASCValue("RECEIVED"),
            headerImageID: "img-\(id)",
            localizations: [
                ASCAdvancedExperienceLocalization(id: "loc-\(id)", language: ASCValue("EN"), title: title, subtitle: "In seconds")
            ])
    }

    static func pushed(_ id: Int64, _ asc: ASCAdvancedExperience) -> AppStoreConnectSyncRecord {
        AppStoreConnectSyncRecord(
            experienceID: id, clip: clip, ascExperienceID: asc.id, ascLink: asc.link, pushedVersion: 1, pushedImageSHA256: image,
            ascFingerprint: SyncPlan.fingerprint(asc))
    }

    static func plan(
        _ experiences: [AdvancedExperience], _ asc: [ASCAdvancedExperience], records: [AppStoreConnectSyncRecord] = [],
        hosts: Set<String> = ["bikes.example"], prune: Bool = false
    ) -> SyncPlan {
        SyncPlan.make(
            clip: clip, experiences: experiences, associatedHosts: hosts, asc: asc, link: link, records: records, prune: prune)
    }

    @Test func theSameOnBothSidesIsInSync() {
        let theirs = Self.asc("exp-1", "/rent")
        let plan = Self.plan([Self.experience(1, "/rent")], [theirs], records: [Self.pushed(1, theirs)])
        #expect(plan.isInSync)
        #expect(plan.steps.map(\.action) == [.nothing])
        #expect(plan.steps[0].ascExperienceID == "exp-1")
    }

    @Test func newHereIsCreatedAndAChangedTitleIsAnUpdateNamingBeforeAndAfter() {
        let theirs = Self.asc("exp-1", "/rent")
        let plan = Self.plan(
            [Self.experience(1, "/rent", title: "Ride now"), Self.experience(2, "/store")], [theirs], records: [Self.pushed(1, theirs)])
        #expect(plan.steps.map(\.action) == [.update, .create])
        #expect(plan.steps[0].changes == [SyncPlan.FieldChange(field: "localizations.EN.title", before: "Rent a bike", after: "Ride now")])
        #expect(!plan.isInSync)
    }

    @Test func aChangedURLIsARecreateSinceTheLinkIsCreateOnly() {
        let theirs = Self.asc("exp-1", "/rent")
        let plan = Self.plan([Self.experience(1, "/rentals")], [theirs], records: [Self.pushed(1, theirs)])
        #expect(plan.steps.map(\.action) == [.recreate])
        #expect(
            plan.steps[0].changes.first
                == .init(field: "link", before: "https://bikes.example/rent", after: "https://bikes.example/rentals"))
    }

    @Test func removedOrDeactivatedHereIsRemovedThereAndAnASCOnlyOneOnlyWithPrune() {
        let a = Self.asc("exp-1", "/rent"), b = Self.asc("exp-2", "/gone"), c = Self.asc("exp-3", "/theirs")
        var off = Self.experience(1, "/rent")
        off.status = .deactivated
        let records = [Self.pushed(1, a), Self.pushed(2, b)]
        let kept = Self.plan([off], [a, b, c], records: records)
        #expect(kept.steps.map(\.action) == [.remove, .remove, .nothing])
        #expect(kept.steps.map(\.ascExperienceID) == ["exp-1", "exp-2", "exp-3"])
        #expect(kept.steps[2].notes.last?.contains("--prune") == true)
        let pruned = Self.plan([off], [a, b, c], records: records, prune: true)
        #expect(pruned.steps.map(\.action) == [.remove, .remove, .remove])
        // Deactivated and never pushed: nothing to do.
        #expect(Self.plan([off], []).steps.map(\.action) == [.nothing])
    }

    @Test func aNewHeaderImageIsAnUploadAlone() {
        let theirs = Self.asc("exp-1", "/rent")
        let plan = Self.plan(
            [Self.experience(1, "/rent", image: String(repeating: "b", count: 64))], [theirs], records: [Self.pushed(1, theirs)])
        #expect(plan.steps.map(\.action) == [.uploadImage])
    }

    /// Never pushed from here: the image is the same when App Store Connect's MD5 checksum is the registry image's.
    @Test func anImageNeverPushedFromHereIsComparedByItsMD5() {
        var theirs = Self.asc("exp-1", "/rent")
        theirs.headerImage = ASCImage(type: "appClipAdvancedExperienceImages", id: "img-exp-1", sourceFileChecksum: "0123")
        let same = SyncPlan.make(
            clip: Self.clip, experiences: [Self.experience(1, "/rent")], associatedHosts: ["bikes.example"], asc: [theirs], link: Self.link,
            records: [], imageMD5: [Self.image: "0123"], prune: false)
        #expect(same.steps.map(\.action) == [.nothing])
        let other = SyncPlan.make(
            clip: Self.clip, experiences: [Self.experience(1, "/rent")], associatedHosts: ["bikes.example"], asc: [theirs], link: Self.link,
            records: [], imageMD5: [Self.image: "4567"], prune: false)
        #expect(other.steps.map(\.action) == [.uploadImage])
    }

    @Test func whatASCWouldRefuseIsSaidWithItsFix() {
        var french = Self.experience(1, "/rent", image: nil)
        french.localizations = [.FR: CardText(title: "Louer", subtitle: "Vite")]
        french.defaultLanguage = .FR
        let plan = Self.plan([french], [], hosts: ["other.example"])
        #expect(plan.steps[0].action == .create)
        #expect(plan.steps[0].refusals.map(\.rule) == ["headerImage.required", "localizations.primaryLanguage", "link.associatedDomain"])
        #expect(plan.steps[0].refusals[2].fix == "clipctl domain add ABCDE12345.com.example.bikes.Clip bikes.example")
        // Nothing to send: nothing to refuse.
        let theirs = Self.asc("exp-1", "/rent")
        #expect(Self.plan([Self.experience(1, "/rent")], [theirs], records: [Self.pushed(1, theirs)], hosts: []).refused.isEmpty)
    }

    @Test func unknownValuesFromANewerASCAreKeptAndReported() {
        let theirs = Self.asc("exp-1", "/rent", action: "TELEPORT")
        let plan = Self.plan([Self.experience(1, "/rent")], [theirs], records: [Self.pushed(1, theirs)])
        #expect(plan.steps[0].notes == ["App Store Connect sent action TELEPORT, unknown to this registry: shown as it is"])
        #expect(plan.steps[0].changes == [.init(field: "action", before: "TELEPORT", after: "OPEN")])
        #expect(plan.steps[0].action == .update)
    }

    @Test func aChangeMadeInASCSinceTheLastPushIsDrift() {
        let pushed = Self.asc("exp-1", "/rent")
        let edited = Self.asc("exp-1", "/rent", title: "Edited there")
        let plan = Self.plan([Self.experience(1, "/rent")], [edited], records: [Self.pushed(1, pushed)])
        #expect(plan.steps[0].drifted)
        #expect(plan.steps[0].action == .update)
        #expect(!Self.plan([Self.experience(1, "/rent")], [pushed], records: [Self.pushed(1, pushed)]).steps[0].drifted)
    }

    /// Issue 32: a create answered as App Store Connect answers a write (no relationships, no card texts, no status yet),
    /// recorded from what was sent, then read once Apple has processed it (status, placeStatus, version set, the image
    /// complete, the cards in another order): in sync. An edit of a title there is drift.
    @Test func whatAppleSetsWhileProcessingIsNotDriftAndAnEditedTitleIs() {
        let sent = [
            AdvancedExperienceLocalizationDraft(language: .en, title: "Rent a bike", subtitle: "In seconds"),
            AdvancedExperienceLocalizationDraft(language: .fr, title: "Louer un vélo", subtitle: "En secondes"),
        ]
        let place: JSONValue = ["names": ["Bikes"], "mapAction": "BOOK_RIDES"]
        let answer = ASCAdvancedExperience(
            id: "exp-1", link: "https://bikes.example/rent", isPoweredBy: false, action: ASCValue("OPEN"),
            businessCategory: ASCValue("BIKES"), defaultLanguage: ASCValue("EN"), placeStatus: ASCValue("PENDING"), version: 1,
            place: place)
        let held = SyncPlan.held(after: answer, headerImageID: "img-1", localizations: sent, before: nil)
        var processed = answer
        processed.status = ASCValue("RECEIVED")
        processed.placeStatus = ASCValue("MATCHED")
        processed.version = 2
        processed.headerImageID = "img-1"
        processed.headerImage = ASCImage(
            type: "appClipAdvancedExperienceImages", id: "img-1", sourceFileChecksum: "0123", state: ASCValue("COMPLETE"))
        processed.localizations = [
            ASCAdvancedExperienceLocalization(id: "loc-2", language: ASCValue("FR"), title: "Louer un vélo", subtitle: "En secondes"),
            ASCAdvancedExperienceLocalization(id: "loc-1", language: ASCValue("EN"), title: "Rent a bike", subtitle: "In seconds"),
        ]
        let seen = SyncPlan.fingerprint(held)
        #expect(!SyncPlan.changed(processed, since: seen))
        var edited = processed
        edited.localizations[1].title = "Edited there"
        #expect(SyncPlan.changed(edited, since: seen))
        var otherImage = processed
        otherImage.headerImageID = "img-2"
        #expect(SyncPlan.changed(otherImage, since: seen))
        // An update that sent neither image nor cards: App Store Connect keeps those the plan read.
        let updated = SyncPlan.held(after: answer, headerImageID: nil, localizations: nil, before: processed)
        #expect(!SyncPlan.changed(processed, since: SyncPlan.fingerprint(updated)))
    }

    /// A push recorded before issue 32 took its digest without the header image: still the copy as pushed, not drift.
    @Test func aDigestRecordedWithoutTheImageByAnEarlierPushIsNotDrift() {
        let theirs = Self.asc("exp-1", "/rent")
        var imageless = theirs
        imageless.headerImageID = nil
        var record = Self.pushed(1, theirs)
        record.ascFingerprint = SyncPlan.fingerprint(imageless)
        #expect(!Self.plan([Self.experience(1, "/rent")], [theirs], records: [record]).steps[0].drifted)
        let edited = Self.asc("exp-1", "/rent", title: "Edited there")
        #expect(Self.plan([Self.experience(1, "/rent")], [edited], records: [record]).steps[0].drifted)
    }
    /// Experience 1 moved from /rent to /rentals and experience 2 was made at /rent: App Store Connect's /rent
    /// experience is experience 1's (by the id recorded at its push), so 1 is re-created and 2 created; the old one
    /// is claimed once, not by both.
    @Test func anExperienceMovedAndANewOneAtItsOldURLDoNotShareOneASCExperience() {
        let theirs = Self.asc("exp-1", "/rent")
        let plan = Self.plan(
            [Self.experience(1, "/rentals"), Self.experience(2, "/rent")], [theirs], records: [Self.pushed(1, theirs)])
        let byID = Dictionary(uniqueKeysWithValues: plan.steps.map { ($0.experienceID, $0) })
        #expect(byID[1]?.action == .recreate)
        #expect(byID[1]?.ascExperienceID == "exp-1")
        #expect(byID[2]?.action == .create)
        #expect(byID[2]?.ascExperienceID == nil)
        #expect(plan.steps.count == 2)
    }

    /// Deactivated here and matched by URL alone (made in App Store Connect's pages, never pushed from here): kept there
    /// unless --prune says otherwise.
    @Test func aDeactivatedExperienceNeverPushedFromHereIsNotRemovedWithoutPrune() {
        var off = Self.experience(1, "/help")
        off.status = .deactivated
        let theirs = Self.asc("web-1", "/help")
        let kept = Self.plan([off], [theirs])
        #expect(kept.steps.map(\.action) == [.nothing])
        #expect(kept.steps[0].notes.last?.contains("never pushed from here") == true)
        #expect(Self.plan([off], [theirs], prune: true).steps.map(\.action) == [.remove])
        #expect(Self.plan([off], [theirs], records: [Self.pushed(1, theirs)]).steps.map(\.action) == [.remove])
    }

    /// A create an interrupted apply sent (no id came back) is found at the link it was sent with: after the URL
    /// changed it is re-created, not created a second time beside an orphan; removed here, it is removed there too.
    @Test func aCreateSentButNotHeardBackIsFoundAtTheLinkItWasSentWith() {
        let landed = Self.asc("exp-9", "/rent")
        let sent = AppStoreConnectSyncRecord(experienceID: 1, clip: Self.clip, ascLink: "https://bikes.example/rent", pendingStep: "create")
        let moved = Self.plan([Self.experience(1, "/rentals")], [landed], records: [sent])
        #expect(moved.steps.map(\.action) == [.recreate])
        #expect(moved.steps[0].ascExperienceID == "exp-9")
        let removed = Self.plan([], [landed], records: [sent])
        #expect(removed.steps.map(\.action) == [.remove])
        var off = Self.experience(1, "/rent")
        off.status = .deactivated
        #expect(Self.plan([off], [landed], records: [sent]).steps.map(\.action) == [.remove])
    }
}
