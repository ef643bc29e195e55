import ClipCore
import ClipWire
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// Change records keep objects in the store's own audit form (`AuditForm`), versioned in each record:
/// a database written before the form had a number reads back exactly as it did.
struct AuditFormTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// `Fixtures/registry-at-0009.sql` is a database written by clipctl before migration 0010 (register, update,
    /// deactivate, remove, app set, default set, token create, webhook add and remove), dumped by Python's
    /// sqlite3 `iterdump`; `changes-at-0009.json` is what that clipctl's `changes --json` printed for it.
    func oldDatabase() throws -> String {
        let path = temporaryDatabasePath()
        let old = try Connection(path: path)
        // The dump creates its tables in name order, some before the tables they refer to.
        try old.execute("PRAGMA foreign_keys = OFF")
        try old.executeScript(try String(contentsOf: Self.fixtures.appendingPathComponent("registry-at-0009.sql"), encoding: .utf8))
        old.close()
        return path
    }

    func storedTexts(_ path: String) throws -> [String] {
        let db = try Connection(path: path)
        defer { db.close() }
        return try db.query("SELECT id, before, after FROM change_record ORDER BY id").map {
            "\(try $0.int("id")) \(try $0.optionalString("before") ?? "-") \(try $0.optionalString("after") ?? "-")"
        }
    }

    @Test func recordsWrittenBeforeTheFormHadANumberReadBackUnchanged() throws {
        let path = try oldDatabase()
        let stored = try storedTexts(path)
        let registry = try Registry(path: path)
        let expected = try JSONParser.parse(Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("changes-at-0009.json"))))
        let records = try registry.changes(limit: 1000)
        try #require(records.count == 15)
        #expect(records.map { JSONWriter.string(ChangeRecordJSON.record($0)) } == expected.arrayValue?.map { JSONWriter.string($0) })
        // Migrated without a rewrite: the stored texts are those the old version wrote, each of form 1.
        #expect(try storedTexts(path) == stored)
        #expect(try registry.db.query("SELECT DISTINCT form FROM change_record").map { try $0.int("form") } == [1])
    }

    @Test func newRecordsAreFormThreeWithFormOnesMembersWhileUnlabelledAndUnscheduled() throws {
        let path = try oldDatabase()
        let registry = try Registry(path: path)
        let old = try registry.changes(limit: 1000)
        _ = try registry.register(
            try experienceJSON(
                "https://bikes.example/again", clip: "ABCDE12345.com.example.bikes.Clip",
                extra: #","localizations":{"FR":{"title":"Louer","subtitle":"Touchez"}},"category":"BIKES""#))
        _ = try registry.register(try experienceJSON("https://bikes.example/other", clip: "ABCDE12345.com.example.other.Clip"))
        _ = try registry.createToken(name: "more", team: nil)
        _ = try registry.addWebhook(
            url: "https://hooks.example/more", events: try WebhookEventPatterns("*"), team: nil, allowPrivateTargets: false)
        _ = try registry.setDefaultExperience(
            clip: try AppID("ABCDE12345.com.example.other.Clip"), action: .open, localizations: ["en-US": "Ride"])
        let new = try registry.changes(since: old.last!.id, limit: 1000)
        #expect(
            try registry.db.query("SELECT form FROM change_record WHERE id > ?", [.integer(old.last!.id)]).allSatisfy {
                try $0.int("form") == 3
            })
        // The same members in the same order as the old version's records of the same kind.
        func members(_ records: [ChangeRecord], _ entity: ChangeEntity) -> [String]? {
            records.first { $0.entity == entity && $0.action == .create }?.after?.objectMembers?.map(\.key)
        }
        for entity in [ChangeEntity.experience, .app, .token, .webhook, .defaultExperience] {
            #expect(members(new, entity) != nil && members(new, entity) == members(old, entity), "\(entity)")
        }
    }

    @Test func aRecordInAFormThisVersionDoesNotKnowIsRefusedNotGuessed() throws {
        let path = try oldDatabase()
        let registry = try Registry(path: path)
        try registry.db.execute("UPDATE change_record SET form = 4 WHERE id = 3")
        #expect { try registry.changes(limit: 1000) } throws: { error in
            guard case RegistryError.storage(let message) = error else { return false }
            return message.contains("audit form 4")
        }
        #expect(try registry.changes(limit: 2).count == 2)
    }
}
