import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON
import Testing

/// Host ownership through the layer: administrators assign, a team sees only its own entry of the
/// hosts it holds, and a refused assignment leaves the database file byte-identical.
struct HostOwnershipOperationTests {
    let registry: Registry
    let path: String
    let teamA = try! TeamID("ABCDE12345")
    let teamB = try! TeamID("FGHIJ67890")
    let admin = Caller.admin(tokenID: 1)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        _ = try registry.addClip(try AppID("ABCDE12345.com.example.bikes.Clip"))
        _ = try registry.addClip(try AppID("FGHIJ67890.com.example.scooters.Clip"))
        _ = try registry.addDomain(clip: "com.example.bikes.Clip", host: "bikes.example")
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func perform(_ binding: Binding, _ arguments: [(String, String)], body: String? = nil, as caller: Caller) throws -> OperationAnswer {
        let json = try body.map { try JSONParser.parse(Array($0.utf8)) }
        return try binding.perform(
            Arguments(arguments.map { (name: $0.0, value: $0.1) }, body: json), Session(registry: registry, caller: caller))
    }

    @Test func sharedTwiceAddsOnceThenUnshared() throws {
        let shared = try perform(HostShare.binding, [("host", "Bikes.Example"), ("team", "FGHIJ67890")], as: admin)
        #expect(shared.status == 201)
        let before = try bytes()
        let again = try perform(HostShare.binding, [("host", "bikes.example"), ("team", "FGHIJ67890")], as: admin)
        #expect(again.status == 200)
        #expect(again.json["notes"] == nil, "nothing changed, nothing noted")
        #expect(try bytes() == before)
        let unshared = try perform(HostUnshare.binding, [("host", "bikes.example"), ("team", "FGHIJ67890")], as: admin)
        #expect(unshared.status == 200)
        #expect(unshared.json["teams"]?.arrayValue?.count == 1)
    }

    @Test func teamsAreRefusedAndNothingChanges() throws {
        let before = try bytes()
        let team = Caller.team(teamA, tokenID: 2)
        #expect(throws: CallerRefusal.forbidden("this route needs an admin token")) {
            try perform(HostClaim.binding, [("host", "bikes.example")], body: #"{"team":"ABCDE12345"}"#, as: team)
        }
        #expect(throws: CallerRefusal.forbidden("this route needs an admin token")) {
            try perform(HostShare.binding, [("host", "bikes.example"), ("team", "FGHIJ67890")], as: team)
        }
        // The owner still has an association there: the claim is refused.
        #expect(throws: RegistryError.self) {
            try perform(HostClaim.binding, [("host", "bikes.example")], body: #"{"team":"FGHIJ67890"}"#, as: admin)
        }
        do {
            _ = try perform(HostClaim.binding, [("host", "bikes.example")], body: #"{"team":"nope","extra":1}"#, as: admin)
            Issue.record("a malformed team was taken")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["team", "extra"])
        }
        // A team ID with a zero-width space cannot hold a share: not found, as an unknown team.
        #expect(throws: RegistryError.notFound("team FGHIJ\u{200B}67890")) {
            try perform(HostUnshare.binding, [("host", "bikes.example"), ("team", "FGHIJ\u{200B}67890")], as: admin)
        }
        #expect(throws: RegistryError.self) {
            try perform(HostUnshare.binding, [("host", "bikes.example"), ("team", "ABCDE12345")], as: admin)
        }
        #expect(try bytes() == before)
    }

    @Test func aTeamSeesOnlyItsOwnEntryOfTheHostsItHolds() throws {
        _ = try perform(HostShare.binding, [("host", "bikes.example"), ("team", "FGHIJ67890")], as: admin)
        _ = try registry.addDomain(clip: "com.example.scooters.Clip", host: "scooters.example")
        let listed = try perform(HostOwnershipList.binding, [], as: .team(teamB, tokenID: 3))
        let entries = try HostOwnershipList.Output(json: listed.json).items
        #expect(entries.map(\.host) == ["bikes.example", "scooters.example"])
        #expect(entries.allSatisfy { $0.holders.map(\.team) == [teamB] })
        let all = try HostOwnershipList.Output(json: try perform(HostOwnershipList.binding, [], as: admin).json).items
        #expect(all.first?.holders.count == 2)
        #expect(throws: RegistryError.notFound("host scooters.example (no team holds it, or it is not your team's)")) {
            try perform(HostOwnershipShow.binding, [("host", "scooters.example")], as: .team(teamA, tokenID: 2))
        }
        #expect(throws: RegistryError.notFound("host nobody.example (no team holds it)")) {
            try perform(HostOwnershipShow.binding, [("host", "nobody.example")], as: admin)
        }
    }
}
