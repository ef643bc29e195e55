import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// Clips through the layer: created, saved, read and removed with each caller; another team's clip
/// answers what a missing one answers; a refused write leaves the database file byte-identical.
struct ClipOperationTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("clips-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func session(_ caller: Caller) -> Session { Session(registry: registry, caller: caller) }

    func save(_ reference: String, _ body: String = "{}", as caller: Caller, ifNoneMatch: String? = nil) throws -> OperationAnswer {
        var arguments = Arguments([("bundleId", reference)], body: try JSONParser.parse(Array(body.utf8)))
        arguments.ifNoneMatch = .sent(ifNoneMatch)
        return try ClipSave.binding.perform(arguments, session(caller))
    }

    @Test func savedTwiceCreatesOnceAndTellsWhere() throws {
        let created = try save("com.example.bikes.Clip", as: teamA)
        #expect(created.status == 201)
        #expect(created.headers.map(\.name) == ["Location"])
        #expect(created.headers.first?.value == "/v1/clips/com.example.bikes.Clip")
        #expect(created.json["clip"] == .string("ABCDE12345.com.example.bikes.Clip"), "a team token writes for its own team")
        let before = try bytes()
        let again = try save("ABCDE12345.com.example.bikes.Clip", as: teamA)
        #expect(again.status == 200)
        #expect(again.headers.isEmpty)
        #expect(again.json["notes"] == .array([]))
        #expect(try bytes() == before, "the same PUT again writes nothing")
    }

    @Test func refusedSavesLeaveTheDatabaseAsItWas() throws {
        _ = try save("com.example.bikes.Clip", as: teamA)
        let before = try bytes()
        #expect(throws: CallerRefusal.forbidden("a token of team FGHIJ67890 cannot act for team ABCDE12345")) {
            try save("ABCDE12345.com.example.bikes.Clip", as: teamB)
        }
        #expect(throws: PreconditionFailed.self) { try save("com.example.bikes.Clip", as: teamA, ifNoneMatch: "*") }
        do {
            // A zero-width space inside the bundle ID, an unknown member and no team for an admin: every error at once.
            _ = try save("com.example\u{200B}.bikes.Clip", #"{"colour":"red"}"#, as: .admin(tokenID: 1))
            Issue.record("an invalid clip was saved")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["bundleId", "team", "colour"])
        }
        #expect(throws: (any Error).self) { try save("com.example.bikes.Clip", as: teamB) }
        #expect(try bytes() == before)
    }

    @Test func createRefusesOneThatExists() throws {
        let body = try JSONParser.parse(Array(#"{"clip":"ABCDE12345.com.example.bikes.Clip"}"#.utf8))
        let created = try ClipCreate.binding.perform(Arguments(body: body), session(teamA))
        #expect(created.status == 201)
        #expect(created.headers.first?.value == "/v1/clips/com.example.bikes.Clip")
        let before = try bytes()
        #expect(throws: RegistryError.conflict("clip ABCDE12345.com.example.bikes.Clip already exists")) {
            try ClipCreate.binding.perform(Arguments(body: body), session(teamA))
        }
        #expect(throws: CallerRefusal.forbidden("a token of team FGHIJ67890 cannot act for team ABCDE12345")) {
            try ClipCreate.binding.perform(Arguments(body: body), session(teamB))
        }
        #expect(try bytes() == before)
    }

    @Test func anotherTeamsClipIsNotFoundWordForWord() throws {
        _ = try save("com.example.bikes.Clip", as: teamA)
        for reference in ["com.example.bikes.Clip", "ABCDE12345.com.example.bikes.Clip", "com.example.none", "not a bundle"] {
            #expect(throws: RegistryError.notFound("clip \(reference)")) {
                try ClipShow.binding.perform(Arguments([("bundleId", reference)]), session(teamB))
            }
        }
        let before = try bytes()
        #expect(throws: RegistryError.notFound("clip com.example.bikes.Clip")) {
            try ClipRemove.binding.perform(Arguments([("bundleId", "com.example.bikes.Clip")]), session(teamB))
        }
        #expect(try bytes() == before)
        let shown = try ClipShow.binding.perform(Arguments([("bundleId", "com.example.bikes.Clip")]), session(teamA))
        #expect(shown.json["team"] == .string("ABCDE12345"))
    }

    @Test func theStoresReasonForAnAdministratorAndAFieldErrorLocally() throws {
        _ = try save("com.example.bikes.Clip", as: teamA)
        #expect(
            throws: RegistryError.notFound(
                "clip FGHIJ67890.com.example.bikes.Clip (the clip com.example.bikes.Clip belongs to another team)")
        ) {
            try ClipShow.binding.perform(Arguments([("bundleId", "FGHIJ67890.com.example.bikes.Clip")]), session(.admin(tokenID: 1)))
        }
        #expect(throws: RegistryError.notFound("clip not a bundle")) {
            try ClipShow.binding.perform(Arguments([("bundleId", "not a bundle")]), session(.admin(tokenID: 1)))
        }
        do {
            _ = try ClipShow.binding.perform(Arguments([("bundleId", "not a bundle")]), session(.local))
            Issue.record("a malformed reference was found")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["clip"])
        }
    }

    @Test func removedWithNoContentThenGone() throws {
        _ = try save("com.example.bikes.Clip", as: teamA)
        let removed = try ClipRemove.binding.perform(Arguments([("bundleId", "com.example.bikes.Clip")]), session(teamA))
        #expect(removed.status == 204)
        #expect(removed.json == .null)
        let before = try bytes()
        #expect(throws: RegistryError.notFound("clip com.example.bikes.Clip")) {
            try ClipRemove.binding.perform(Arguments([("bundleId", "com.example.bikes.Clip")]), session(teamA))
        }
        #expect(try bytes() == before, "removing it twice changes nothing the second time")
    }
}
