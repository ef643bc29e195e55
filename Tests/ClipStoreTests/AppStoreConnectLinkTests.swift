import ClipCore
import Foundation
import SQLiteDB
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
}
