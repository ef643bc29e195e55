import ClipCore
import Foundation
import SQLiteDB
import TestSupport
import Testing
@testable import ClipStore

/// Doctor acknowledgements as stored (Migrations/0014_doctor_acknowledgements.sql): once per rule, scope and team, each
/// a change record, a team's removable by that team alone, a refusal writing nothing.
struct AcknowledgementStoreTests {
    @Test func theSameRuleAndScopeIsOneAcknowledgementAndEachWriteIsAChangeRecord() throws {
        let registry = try Registry(path: temporaryDatabasePath())
        _ = try registry.register(try experienceJSON("https://ride.example/s/lon1"))
        let scope = try ExperienceSelector("label.city=london,host=Ride.Example")
        let first = try registry.acknowledge(rule: "title-length", scope: scope, team: nil, note: "signage")
        #expect(first.created && first.value.scope.text == "host=ride.example,label.city=london")
        let again = try registry.acknowledge(
            rule: "title-length", scope: try ExperienceSelector("host=ride.example,label.city=london"), team: nil, note: nil)
        #expect(
            !again.created && !again.changed && again.value == first.value, "the same rule and scope, host normalized, is the one there is")
        let renoted = try registry.acknowledge(rule: "title-length", scope: scope, team: nil, note: "new signs in 2027")
        #expect(!renoted.created && renoted.changed && renoted.value.note == "new signs in 2027" && renoted.value.id == first.value.id)
        let team = try TeamID("ABCDE12345")
        let teams = try registry.acknowledge(rule: "title-length", scope: scope, team: team, note: nil)
        #expect(teams.created && teams.value.id != first.value.id, "a team's is its own")
        #expect(try registry.acknowledgements().count == 2)
        #expect(try registry.acknowledgements(team: team).map(\.id) == [teams.value.id])
        let records = try registry.db.query("SELECT action FROM change_record WHERE entity = 'acknowledgement' ORDER BY id")
        #expect(try records.map { try $0.string("action") } == ["create", "update", "create"])
    }

    @Test func anotherTeamsAcknowledgementIsNotFoundAndARefusalWritesNothing() throws {
        let path = temporaryDatabasePath()
        let registry = try Registry(path: path)
        _ = try registry.register(try experienceJSON("https://ride.example/s/lon1"))
        let a = try TeamID("ABCDE12345"), b = try TeamID("FGHIJ67890")
        let own = try registry.acknowledge(rule: "title-length", scope: try ExperienceSelector("label.city=london"), team: a, note: nil)
        let before = try snapshot(path)
        #expect(throws: RegistryError.notFound("acknowledgement \(own.value.id)")) {
            try registry.removeAcknowledgement(id: own.value.id, team: b)
        }
        // Team B cannot scope one to team A's clip; a note over the limit is refused.
        #expect(throws: RegistryError.self) {
            try registry.acknowledge(
                rule: "title-length", scope: try ExperienceSelector("clip=ABCDE12345.com.example.bikes.Clip"), team: b, note: nil)
        }
        #expect(throws: RegistryError.self) {
            try registry.acknowledge(
                rule: "title-length", scope: try ExperienceSelector("host=ride.example"), team: a, note: String(repeating: "x", count: 201))
        }
        #expect(try snapshot(path) == before, "refused writes leave the database byte-identical")
        let removed = try registry.removeAcknowledgement(id: own.value.id, team: a)
        #expect(removed.value == own.value)
        #expect(try registry.acknowledgements().isEmpty)
    }
}
