import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import TestSupport
import Testing
@testable import ClipStore

/// Undo from the change records: an experience made again what it was at an earlier version, as one new version
/// with its change record; a refusal writes nothing.
struct RevertTests {
    @Test func aRevertRestoresEveryFieldOfTheVersionAsANewVersion() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        let first = try registry.register(try experienceJSON("https://ride.example/r", extra: #","labels":{"city":"paris"}"#)).value
        _ = try registry.update("1", with: try JSONParser.parse(#"{"title":"Two","category":"BIKES","labels":null}"#))
        _ = try registry.update("1", with: try JSONParser.parse(#"{"status":"DEACTIVATED","subtitle":"Three"}"#))
        let reverted = try registry.revert("1", toVersion: 1)
        #expect(reverted.value.version == 4 && reverted.changed)
        var expected = first
        (expected.version, expected.updatedAt) = (4, reverted.value.updatedAt)
        #expect(reverted.value == expected, "every field of version 1: title, no category, the label, active")
        let records = try registry.changes(of: .experience, id: "1")
        #expect(records.map(\.action) == [.create, .update, .update, .update])
        #expect(records.last?.after?["version"] == 4)

        // At the version's fields already: nothing written.
        let before = try snapshot(path)
        let again = try registry.revert("1", toVersion: 1)
        #expect(!again.changed && again.value.version == 4)
        #expect(try snapshot(path) == before)
        // A version no record made, a stale precondition: refused, nothing written.
        #expect(throws: RegistryError.notFound("version 9 of experience 1")) { try registry.revert("1", toVersion: 9) }
        #expect(throws: RegistryError.versionMismatch(expected: 2, actual: 4)) {
            try registry.revert("1", toVersion: 2, expectedVersion: 2)
        }
        #expect(try snapshot(path) == before)
    }

    @Test func aRevertToAURLTakenSinceIsRefusedAndWritesNothing() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://ride.example/a"))
        _ = try registry.update("1", with: try JSONParser.parse(#"{"url":"https://ride.example/b"}"#))
        _ = try registry.register(try experienceJSON("https://ride.example/a"))
        let before = try snapshot(path)
        #expect(throws: RegistryError.self) { try registry.revert("1", toVersion: 1) }
        #expect(try snapshot(path) == before)
    }
}
