import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// The experience operations through the layer (`POST/GET/PATCH/DELETE /v1/experiences…`, `clipctl
/// register|list|show|update|activate|deactivate|remove`): the team scope, `If-Match`, the answers'
/// statuses and headers; a refused write leaves the database byte-identical.
struct ExperienceOperationTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("experiences-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func perform(_ binding: Binding, _ arguments: Arguments, as caller: Caller) throws -> OperationAnswer {
        try binding.perform(arguments, Session(registry: registry, caller: caller))
    }

    func body(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    func register(_ url: String, as caller: Caller = .local, clip: String = "ABCDE12345.com.example.bikes.Clip") throws -> OperationAnswer {
        try perform(
            ExperienceCreate.binding, Arguments(body: try body(#"{"url":"\#(url)","clip":"\#(clip)","title":"Rent","subtitle":"Now"}"#)),
            as: caller)
    }

    @Test func createAnswers201WithItsPlaceAndTagAndTheSameRequestTwiceIsAConflictThatWritesNothing() throws {
        let created = try register("https://bikes.example/rent", as: teamA)
        #expect(created.status == 201)
        #expect(created.headers.map(\.name) == ["ETag", "Location"])
        #expect(created.headers.map(\.value) == [#""e1-v1""#, "/v1/experiences/1"])
        let before = try bytes()
        #expect(
            throws: RegistryError.conflict("https://bikes.example/rent is already registered as experience 1", existing: .experience(1))
        ) {
            try register("https://bikes.example/rent", as: teamA)
        }
        #expect(try bytes() == before)
    }

    @Test func aTeamCannotRegisterForAnotherAndNothingIsWritten() throws {
        _ = try register("https://bikes.example/rent")
        let before = try bytes()
        #expect(throws: CallerRefusal.forbidden("a token of team FGHIJ67890 cannot act for team ABCDE12345")) {
            try register("https://bikes.example/other", as: teamB)
        }
        #expect(try bytes() == before)
    }

    @Test func theBodyIsCheckedWholeByTheStoreWithEveryFieldError() throws {
        _ = try register("https://bikes.example/rent")
        let before = try bytes()
        for text in [#"{"url":"http://bikes.example/x","colour":"red"}"#, "[1]", #""text""#] {
            var expected: RegistryError?
            let document = try body(text)
            do { _ = try registry.register(document) } catch { expected = error }
            #expect(throws: expected!) { try perform(ExperienceCreate.binding, Arguments(body: try body(text)), as: .local) }
        }
        #expect(try bytes() == before)
    }

    @Test func anotherTeamsExperienceAndEveryOtherSpellingOfAnIdAreNotFound() throws {
        _ = try register("https://bikes.example/rent")
        for id in ["1", "01", "+1", "0", "-1", "1\u{200B}", "99", "https://bikes.example/rent"] {
            let caller = id == "1" ? teamB : teamA
            #expect(throws: RegistryError.notFound("experience \(id)")) {
                try perform(ExperienceShow.binding, Arguments([("id", id)]), as: caller)
            }
        }
        let shown = try perform(ExperienceShow.binding, Arguments([("id", "1")]), as: teamA)
        #expect(shown.headers.map(\.name) == ["ETag"])
        #expect(shown.json["url"] == .string("https://bikes.example/rent"))
    }

    @Test func anUpdateUnderAStaleTagOrForAnotherTeamWritesNothing() throws {
        _ = try register("https://bikes.example/rent")
        let before = try bytes()
        var stale = Arguments([("id", "1")], body: try body(#"{"title":"New"}"#))
        stale.ifMatch = .sent(#""e1-v7""#)
        #expect(throws: RegistryError.versionMismatch(expected: 7, actual: 1)) { try perform(ExperienceUpdate.binding, stale, as: teamA) }
        let moved = Arguments([("id", "1")], body: try body(#"{"clip":"FGHIJ67890.com.example.x.Clip"}"#))
        #expect(throws: CallerRefusal.forbidden("a token of team ABCDE12345 cannot act for team FGHIJ67890")) {
            try perform(ExperienceUpdate.binding, moved, as: teamA)
        }
        #expect(throws: RegistryError.notFound("experience 1")) {
            try perform(ExperienceUpdate.binding, Arguments([("id", "1")], body: try body(#"{"title":"New"}"#)), as: teamB)
        }
        #expect(try bytes() == before)
        var current = Arguments([("id", "1")], body: try body(#"{"title":"New"}"#))
        current.ifMatch = .sent(#""e1-v1""#)
        let updated = try perform(ExperienceUpdate.binding, current, as: teamA)
        #expect(updated.status == 200 && updated.headers.map(\.value) == [#""e1-v2""#])
    }

    @Test func aRemovalAnswers204OnceAndOnlyTheVersionItNames() throws {
        _ = try register("https://bikes.example/rent")
        let before = try bytes()
        var stale = Arguments([("id", "1")])
        stale.ifMatch = .sent(#""e1-v2""#)
        #expect(throws: RegistryError.versionMismatch(expected: 2, actual: 1)) { try perform(ExperienceRemove.binding, stale, as: .local) }
        #expect(throws: RegistryError.notFound("experience 1")) {
            try perform(ExperienceRemove.binding, Arguments([("id", "1")]), as: teamB)
        }
        #expect(try bytes() == before)
        var current = Arguments([("id", "1")])
        current.ifMatch = .sent(#""e1-v1""#)
        let removed = try perform(ExperienceRemove.binding, current, as: teamA)
        #expect(removed.status == 204 && removed.json == .null)
        #expect(throws: RegistryError.notFound("experience 1")) { try perform(ExperienceRemove.binding, current, as: teamA) }
    }

    @Test func aListIsTheCallersTeamsPagedWithItsNextLink() throws {
        for path in ["a", "b", "c"] { _ = try register("https://bikes.example/\(path)") }
        _ = try register("https://scooters.example/a", clip: "FGHIJ67890.com.example.scooters.Clip")
        #expect(try perform(ExperienceList.binding, Arguments(), as: teamB).json["items"]?.arrayValue?.count == 1)
        let page = try perform(ExperienceList.binding, Arguments([("limit", "2"), ("host", "bikes.example")]), as: teamA)
        #expect(page.json["items"]?.arrayValue?.count == 2)
        let cursor = try #require(page.json["nextCursor"]?.stringValue)
        #expect(page.headers.map(\.value) == ["</v1/experiences?limit=2&host=bikes.example&cursor=\(cursor)>; rel=\"next\""])
        let last = try perform(ExperienceList.binding, Arguments([("limit", "2"), ("cursor", cursor)]), as: teamA)
        #expect(last.json["items"]?.arrayValue?.count == 1 && last.json["nextCursor"] == .null && last.headers.isEmpty)
    }

    @Test func aListRefusesABadCursorLimitOrStatusAndTellsOnlyTheOwnerOfAnUnknownClip() throws {
        _ = try register("https://bikes.example/rent")
        #expect(throws: OperationError.malformed("the cursor is not one this server gave")) {
            try perform(ExperienceList.binding, Arguments([("cursor", "Zm9v")]), as: teamA)
        }
        for limit in ["0", "1001", "x", "", "+5"] {
            #expect(throws: InvalidArguments("limit is out of range", [PageLimit.invalid])) {
                try perform(ExperienceList.binding, Arguments([("limit", limit)]), as: teamA)
            }
        }
        #expect(throws: RegistryError.self) { try perform(ExperienceList.binding, Arguments([("status", "active")]), as: teamA) }
        let unknown = Arguments([("clip", "ABCDE12345.com.example.none")])
        #expect(try perform(ExperienceList.binding, unknown, as: teamA).json["items"]?.arrayValue == [])
        // Who sees every clip is told, on a database and over a server alike (`clipctl list --clip` both ways).
        for caller in [Caller.admin(tokenID: 1), .local] {
            #expect(throws: RegistryError.notFound("clip com.example.none")) { try perform(ExperienceList.binding, unknown, as: caller) }
        }
        // A reference that is no clip's is refused for every caller, a team too (found by hostile QA).
        let malformed = Arguments([("clip", "bad clip!")])
        for caller in [teamA, Caller.admin(tokenID: 1), .local] {
            #expect(throws: RegistryError.self) { try perform(ExperienceList.binding, malformed, as: caller) }
        }
    }
}
