import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// The app writes through the layer: a JSON body read once with every field error, the team scope,
/// `If-Match` / `If-None-Match`, the answer's status and headers; a refused write changes nothing.
struct AppWriteTests {
    let registry: Registry
    let path: String
    let teamA = try! TeamID("ABCDE12345")

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func save(_ bundle: String, _ body: String, as caller: Caller, ifMatch: String? = nil, ifNoneMatch: String? = nil) throws
        -> OperationAnswer
    {
        var arguments = Arguments([("bundleId", bundle)], body: try JSONParser.parse(Array(body.utf8)))
        arguments.ifMatch = .sent(ifMatch)
        arguments.ifNoneMatch = .sent(ifNoneMatch)
        return try AppSave.binding.perform(arguments, Session(registry: registry, caller: caller))
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func createdThenReplacedWithTheirStatusesAndTags() throws {
        let created = try save("com.example.bikes", #"{"name":"Bikes"}"#, as: .team(teamA, tokenID: 2))
        #expect(created.status == 201)
        #expect(created.headers.map(\.name) == ["ETag", "Location"])
        let again = try save("com.example.bikes", #"{"name":"Bikes"}"#, as: .team(teamA, tokenID: 2), ifMatch: #""a-v1""#)
        #expect(again.status == 200)
        #expect(again.json["team"] == .string("ABCDE12345"), "a team token writes for its own team")
    }

    @Test func everyFieldErrorAtOnceAndNothingWritten() throws {
        _ = try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: .local)
        let before = try bytes()
        do {
            _ = try save("not a bundle", #"{"appStoreId":"12ab","colour":"red"}"#, as: .admin(tokenID: 1))
            Issue.record("an invalid body was saved")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["bundleId", "team", "appStoreId", "colour"])
        }
        #expect(try bytes() == before)
    }

    @Test func anotherTeamsAppAndStalePreconditionsAreRefusedUnchanged() throws {
        _ = try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: .local)
        let before = try bytes()
        let teamB = Caller.team(try TeamID("FGHIJ67890"), tokenID: 3)
        #expect(throws: RegistryError.conflict("app com.example.bikes is registered to another team than FGHIJ67890")) {
            try save("com.example.bikes", "{}", as: teamB)
        }
        #expect(throws: CallerRefusal.forbidden("a token of team FGHIJ67890 cannot act for team ABCDE12345")) {
            try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: teamB)
        }
        #expect(throws: PreconditionFailed.self) { try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: .local, ifNoneMatch: "*") }
        #expect(throws: RegistryError.versionMismatch(expected: 7, actual: 1)) {
            try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: .local, ifMatch: #""a-v7""#)
        }
        #expect(throws: PreconditionFailed.self) { try save("com.example.scooters", #"{"team":"ABCDE12345"}"#, as: .local, ifMatch: "*") }
        #expect(try bytes() == before)
    }

    @Test func anotherTeamsAppIsNotFoundWordForWord() throws {
        _ = try save("com.example.bikes", #"{"team":"ABCDE12345"}"#, as: .local)
        let teamB = Caller.team(try TeamID("FGHIJ67890"), tokenID: 3)
        for bundle in ["com.example.bikes", "com.example.none", "not a bundle"] {
            #expect(throws: RegistryError.notFound("app \(bundle)")) {
                try AppShow.binding.perform(Arguments([("bundleId", bundle)]), Session(registry: registry, caller: teamB))
            }
        }
    }
}
