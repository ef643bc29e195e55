import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// The registry's memory of App Store Connect (Migrations/0005_asc_sync.sql): links and sync records.
struct AppStoreConnectLinkTests {
    static let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")

    static func link(appClip: String = "clip-1") -> AppStoreConnectLink {
        AppStoreConnectLink(
            clip: clip, ascAppID: "6400000001", ascAppClipID: appClip, appBundleID: "com.example.bikes", primaryLocale: "en-US")
    }

    func rows(_ path: String) throws -> [String] {
        try Connection(path: path).query("SELECT * FROM asc_clip_link").map { "\($0.values)" }
    }

    @Test func theSameLinkTwiceChangesNothingAndOtherIDsReplaceIt() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikes.example/rent"))
        let first = try registry.link(Self.link())
        #expect(first.created)
        let rows = try rows(path)
        let again = try registry.link(Self.link())
        #expect(!again.created)
        #expect(again.value == first.value)
        #expect(try self.rows(path) == rows, "the link time stays")
        // The same clip by bundle ID alone.
        #expect(try registry.ascLink("com.example.bikes.Clip") == first.value)
        // The App Clip was made again in App Store Connect: the new ids replace the old.
        let moved = try registry.link(Self.link(appClip: "clip-2"))
        #expect(moved.created)
        #expect(try registry.ascLinks().map(\.ascAppClipID) == ["clip-2"])
    }

    @Test func aClipOfNoOneOrAnotherTeamIsNotLinkedAndNothingIsWritten() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://bikes.example/rent"))
        var other = Self.link()
        other.clip = try AppID("FGHIJ67890.com.example.bikes.Clip")
        #expect(throws: RegistryError.self) { try registry.link(other) }
        other.clip = try AppID("ABCDE12345.com.example.nowhere.Clip")
        #expect(throws: RegistryError.self) { try registry.link(other) }
        #expect(try rows(path) == [])
    }

    @Test func aRemovedClipTakesItsLinkAlongAndABackupRestoresIt() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.addClip(Self.clip)
        _ = try registry.link(Self.link())
        let backup = temporaryDatabasePath()
        try registry.backup(to: backup)
        try registry.removeClip(Self.clip.rawValue)
        #expect(try registry.ascLinks() == [])
        // The restore check accepts the new tables (schema and content), and brings the link back.
        _ = try registry.restore(from: backup)
        #expect(try registry.ascLinks().map(\.ascAppClipID) == ["clip-1"])
        #expect(try registry.verifyContent() == [])
    }

    static func seen(_ id: String, link: String = "https://bikes.example/rent") -> Registry.ASCExperienceSeen {
        .init(ascExperienceID: id, link: link, state: "RECEIVED", fingerprint: "fp-\(id)")
    }

    func syncRows(_ path: String) throws -> [String] {
        try Connection(path: path).query("SELECT * FROM asc_experience_sync ORDER BY experience_id").map { "\($0.values)" }
    }

    /// A push is recorded with its change record in one transaction; an App Store Connect id belongs to one experience
    /// (a re-registered one takes it over); a refused step leaves its row as it was; a removal forgets the row.
    @Test func pushesAreRecordedWithTheirChangeRecordsAndAnASCIDBelongsToOneExperience() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let first = try registry.register(try experienceJSON("https://bikes.example/rent")).value
        let second = try registry.register(try experienceJSON("https://bikes.example/store")).value
        _ = try registry.link(Self.link())

        try registry.beginASCStep(clip: Self.clip, experienceID: first.id, step: "create")
        #expect(try registry.ascSyncRecords(clip: Self.clip).map(\.pendingStep) == ["create"])
        // Refused by App Store Connect: the row it made goes again.
        try registry.clearASCStep(clip: Self.clip, experienceID: first.id)
        #expect(try syncRows(path).isEmpty)

        let changesBefore = try registry.changes(limit: 1000).count
        try registry.beginASCStep(clip: Self.clip, experienceID: first.id, step: "create")
        try registry.recordASCImageReservation(clip: Self.clip, experienceID: first.id, imageID: "img-1")
        try registry.recordASCPush(
            clip: Self.clip, experienceID: first.id, action: .create, seen: Self.seen("exp-1"), version: 1, imageSHA256: "sha",
            imageMD5: "md5")
        let record = try #require(try registry.ascSyncRecords(clip: Self.clip).first)
        #expect(record.ascExperienceID == "exp-1")
        #expect(record.pendingStep == nil)
        #expect(record.reservedImageID == nil)
        #expect(record.pushedVersion == 1)
        let changes = try registry.changes(limit: 1000).dropFirst(changesBefore)
        #expect(changes.map(\.entity) == [.ascExperience])
        #expect(changes.first?.after?["ascExperienceId"]?.stringValue == "exp-1")

        // A refused step after a push leaves the row exactly as it was.
        let rows = try syncRows(path)
        try registry.beginASCStep(clip: Self.clip, experienceID: first.id, step: "update")
        try registry.clearASCStep(clip: Self.clip, experienceID: first.id)
        #expect(try syncRows(path) == rows)

        // Another experience now answers for exp-1 (the first was removed and re-registered): it takes the id over.
        try registry.recordASCPull(
            clip: Self.clip, experienceID: second.id, seen: Self.seen("exp-1"), pushedVersion: 1, imageSHA256: nil, imageMD5: nil)
        #expect(try registry.ascSyncRecords(clip: Self.clip).map(\.experienceID) == [second.id])

        try registry.recordASCRemoval(
            clip: Self.clip, experienceID: second.id, ascExperienceID: "exp-1", link: "https://bikes.example/store")
        #expect(try syncRows(path).isEmpty)
        #expect(try registry.changes(limit: 1000).last?.action == .remove)
    }
}
