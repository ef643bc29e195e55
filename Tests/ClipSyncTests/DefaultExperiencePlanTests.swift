import AppStoreConnect
import ClipCore
import ClipSync
import DoctorAndPublish
import StrictJSON
import Testing

/// The default experience's plan, the doctor's reading of a plan, ASC's error pointers, and a plan read back from its JSON.
struct DefaultExperiencePlanTests {
    static let clip = SyncPlanTests.clip
    static let version = ASCAppStoreVersion(id: "ver-2", versionString: "1.1", state: ASCValue("PREPARE_FOR_SUBMISSION"))
    static let ours = DefaultExperience(
        clip: clip, action: .view,
        localizations: ["en-US": .init(subtitle: "Rent a bike", headerImage: "sha-a"), "de-DE": .init(subtitle: "Fahrrad")])

    static func theirs(_ subtitles: [String: String], checksum: String? = "md5-a", action: String = "VIEW") -> ASCDefaultExperience {
        ASCDefaultExperience(
            id: "def-1", action: ASCValue(action), appStoreVersionID: "ver-2",
            localizations: subtitles.sorted { $0.key < $1.key }.map { locale, subtitle in
                ASCDefaultExperienceLocalization(
                    id: "loc-\(locale)", locale: locale, subtitle: subtitle, headerImageID: "img-\(locale)",
                    headerImage: ASCImage(type: "appClipHeaderImages", id: "img-\(locale)", sourceFileChecksum: checksum))
            })
    }

    static func plan(_ asc: ASCDefaultExperience?, version: ASCAppStoreVersion? = version, primary: String? = "en-US")
        -> DefaultExperiencePlan?
    {
        DefaultExperiencePlan.make(registry: ours, version: version, asc: asc, primaryLocale: primary, imageMD5: ["sha-a": "md5-a"])
    }

    @Test func noneThereIsACreateNamingEachLocaleAndTheSameIsNothing() throws {
        let create = try #require(Self.plan(nil))
        #expect(create.action == .create)
        #expect(create.appStoreVersion == "1.1")
        #expect(create.changes.map(\.field).contains("localizations.de-DE.subtitle"))
        let same = try #require(Self.plan(Self.theirs(["en-US": "Rent a bike", "de-DE": "Fahrrad"])))
        #expect(same.action == .nothing)
        #expect(same.changes.isEmpty)
        // No default experience here: App Store Connect's is left alone.
        #expect(DefaultExperiencePlan.make(registry: nil, version: Self.version, asc: nil, primaryLocale: nil, imageMD5: [:]) == nil)
    }

    @Test func aSubtitleAnImageAnExtraLocaleAndTheActionAreUpdates() throws {
        let plan = try #require(
            Self.plan(Self.theirs(["en-US": "Old", "de-DE": "Fahrrad", "fr-FR": "Vélo"], checksum: "md5-b", action: "OPEN")))
        #expect(plan.action == .update)
        // de-DE has no image here: App Store Connect's is kept, not compared.
        #expect(
            plan.changes.map(\.field) == [
                "action", "localizations.en-US.subtitle", "localizations.en-US.headerImage", "localizations.fr-FR.subtitle",
            ])
        #expect(plan.changes.first { $0.field == "localizations.fr-FR.subtitle" }?.after == "none")
    }

    @Test func noVersionBeingEditedIsANoteAndAMissingPrimaryLocaleIsRefused() throws {
        let none = try #require(Self.plan(nil, version: nil))
        #expect(none.action == .nothing)
        #expect(none.notes.first?.contains("no App Store version being edited") == true)
        let refused = try #require(Self.plan(nil, primary: "ja-JP"))
        #expect(refused.refusals.map(\.rule) == ["defaultExperience.primaryLocale"])
        var syncPlan = SyncPlan(clip: Self.clip, steps: [], defaultExperience: refused)
        #expect(!syncPlan.isInSync)
        #expect(syncPlan.allRefused.map(\.url) == ["the default experience of \(Self.clip.rawValue)"])
        #expect(syncPlan.doctorFindings.map(\.code).contains("asc.defaultExperience.primaryLocale"))
        syncPlan.defaultExperience = none
        #expect(syncPlan.isInSync)
    }

    @Test func aPlanReadsBackFromItsJSON() throws {
        let theirs = SyncPlanTests.asc("exp-1", "/rent", title: "Edited")
        var plan = SyncPlanTests.plan(
            [SyncPlanTests.experience(1, "/rent"), SyncPlanTests.experience(2, "/new", image: nil)], [theirs],
            records: [SyncPlanTests.pushed(1, SyncPlanTests.asc("exp-1", "/rent"))])
        plan.defaultExperience = Self.plan(Self.theirs(["en-US": "Old"]))
        let read = try SyncPlan.plans(from: JSONParser.parse(JSONWriter.bytes(["plans": [plan.json]])))
        #expect(read == [plan])
        #expect(throws: SyncPlanWireError.self) { try SyncPlan.plans(from: ["plans": [["clip": "nope"]]]) }
    }

    @Test func doctorWarnsOfDriftAndSaysWhatIsPending() {
        let pushed = SyncPlanTests.asc("exp-1", "/rent")
        let plan = SyncPlanTests.plan(
            [SyncPlanTests.experience(1, "/rent")], [SyncPlanTests.asc("exp-1", "/rent", title: "Edited there")],
            records: [SyncPlanTests.pushed(1, pushed)])
        let findings = plan.doctorFindings
        #expect(findings.map(\.code) == ["asc.drift", "asc.pending"])
        #expect(findings[0].severity == .warning)
        #expect(findings[0].fix?.contains("--prefer asc") == true)
        #expect(
            SyncPlanTests.plan([SyncPlanTests.experience(1, "/rent")], [pushed], records: [SyncPlanTests.pushed(1, pushed)]).doctorFindings
                .isEmpty)
    }

    @Test func appStoreConnectsPointersNameTheRegistrysFields() {
        #expect(SyncPlan.registryField(pointer: "/data/attributes/businessCategory", languages: []) == "category")
        #expect(
            SyncPlan.registryField(pointer: "/data/attributes/place/mainAddress/fullAddress", languages: [])
                == "place.mainAddress.fullAddress")
        #expect(SyncPlan.registryField(pointer: "/included/1/attributes/subtitle", languages: ["DE", "EN"]) == "localizations.EN.subtitle")
        #expect(SyncPlan.registryField(pointer: "/included/7/attributes/title", languages: ["EN"]) == nil)
        #expect(SyncPlan.registryField(pointer: "/data/relationships/headerImage", languages: []) == "headerImage")
        #expect(SyncPlan.registryField(pointer: "/data/attributes/removed", languages: []) == nil)
        #expect(SyncPlan.registryField(pointer: "", languages: []) == nil)
    }
}
