import ClipCLI
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON
import Testing

/// Tokens created and revoked through the layer: the secret shown once and recorded nowhere, the
/// team scope, and a refused write that leaves the database as it was.
struct TokenWriteTests {
    let registry: Registry
    let path: String
    let teamA = try! TeamID("ABCDE12345")
    let teamB = try! TeamID("FGHIJ67890")

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func create(_ body: String, as caller: Caller) throws -> OperationAnswer {
        try TokenCreate.binding.perform(
            Arguments(body: try JSONParser.parse(Array(body.utf8))), Session(registry: registry, caller: caller))
    }

    func revoke(_ id: String, as caller: Caller) throws -> OperationAnswer {
        try TokenRevoke.binding.perform(Arguments([("id", id)]), Session(registry: registry, caller: caller))
    }

    /// The database file and its write-ahead log, as they are on disk.
    func bytes() throws -> [Data] {
        try [path, path + "-wal"].map {
            FileManager.default.fileExists(atPath: $0) ? try Data(contentsOf: URL(fileURLWithPath: $0)) : Data()
        }
    }

    @Test func aTeamTokensNewTokenIsItsTeamsAndItsSecretIsShownOnceAndRecordedNowhere() throws {
        let created = try create(#"{"name":"bikes CI"}"#, as: .team(teamA, tokenID: 7))
        #expect(created.status == 201)
        let output = try TokenCreate.Output(json: created.json)
        let (token, secret) = output.outcome.value
        #expect(token.team == teamA, "a team token creates tokens for its own team")
        #expect(created.headers.map(\.name) == ["Location", "Cache-Control"])
        #expect(created.headers.first { $0.name == "Cache-Control" }?.value == "no-store")
        #expect(secret.hasPrefix("clip_\(token.id)_"))
        // The change record and the token list never carry the secret.
        let records = try registry.changes(since: 0, limit: 1000).map { JSONWriter.string(ChangeRecordJSON.record($0)) }
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { !$0.contains(secret) && !$0.contains(String(secret.suffix(64))) })
        let listed = try TokenList.binding.perform(Arguments(), Session(registry: registry, caller: .local))
        #expect(!JSONWriter.string(listed.json).contains(String(secret.suffix(64))))
    }

    /// Found by QA: a team token's `token create --admin` made a team token and printed "(admin)".
    @Test func theCommandSaysWhatWasCreatedNotWhatWasAsked() throws {
        let created = try create(#"{"name":"ops"}"#, as: .team(teamA, tokenID: 7))
        let parsed = try ClipCLI.words(["token", "create", "--admin", "--name", "ops"], for: TokenCreate.binding)
        var err = ""
        try TokenCreate.binding.present(created, parsed, Printer(out: { _ in }, err: { err += $0 }))
        #expect(err.contains("(team ABCDE12345) created"), "\(err)")
    }

    @Test func aTeamTokenCannotCreateForAnotherTeamNorAnAdminTokenAndNothingIsWritten() throws {
        _ = try create(#"{"name":"ops"}"#, as: .local)
        let before = try bytes()
        #expect(throws: CallerRefusal.forbidden("a team token can create tokens for its own team only")) {
            try create(#"{"name":"x","team":"FGHIJ67890"}"#, as: .team(teamA, tokenID: 7))
        }
        #expect(throws: CallerRefusal.unauthenticated("this route needs Authorization: Bearer TOKEN")) {
            try create(#"{"name":"x"}"#, as: .anyone)
        }
        #expect(try bytes() == before)
    }

    @Test func everyFieldErrorAtOnceAndNothingWritten() throws {
        let before = try bytes()
        do {
            _ = try create(#"{"team":"abc","scope":"admin"}"#, as: .admin(tokenID: 1))
            Issue.record("an invalid body created a token")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["name", "team", "scope"])
        }
        // A control character in a name is refused by the store's text rules, as before.
        #expect(throws: RegistryError.self) { try create("{\"name\":\"ops\\u0007\"}", as: .admin(tokenID: 1)) }
        #expect(try bytes() == before)
    }

    @Test func anotherTeamsTokenIsNotFoundWordForWordAndStaysActive() throws {
        let other = try TokenCreate.Output(json: try create(#"{"name":"cafe"}"#, as: .team(teamB, tokenID: 9)).json).outcome.value.token
        let before = try bytes()
        let teamACaller = Caller.team(teamA, tokenID: 7)
        #expect(throws: RegistryError.notFound("token \(other.id)")) { try revoke(String(other.id), as: teamACaller) }
        #expect(throws: RegistryError.notFound("token 999")) { try revoke("999", as: teamACaller) }
        #expect(throws: RegistryError.notFound("token abc")) { try revoke("abc", as: .local) }
        #expect(try bytes() == before)
        #expect(try registry.token(id: other.id).revokedAt == nil)
    }

    @Test func revokedTwiceTheSecondIsRefusedUnchanged() throws {
        let token = try TokenCreate.Output(json: try create(#"{"name":"ops"}"#, as: .local).json).outcome.value.token
        let first = try revoke(String(token.id), as: .admin(tokenID: 1))
        #expect(first.status == 204)
        #expect(try TokenRevoke.Output(json: first.json).revokedAt != nil)
        let before = try bytes()
        #expect(throws: RegistryError.notFound("active token \(token.id)")) { try revoke(String(token.id), as: .admin(tokenID: 1)) }
        #expect(try bytes() == before)
    }

    @Test func theCommandReadsTheRevokedTokenBackThroughTheList() throws {
        let token = try TokenCreate.Output(json: try create(#"{"name":"ops"}"#, as: .local).json).outcome.value.token
        let session = Session(registry: registry, caller: .local)
        let parsed = try ClipCLI.words(["token", "revoke", String(token.id)], for: TokenRevoke.binding)
        var sent: [String] = []
        let answer = try TokenRevoke.binding.commandAnswer!(parsed, Arguments([("id", String(token.id))])) { binding, arguments in
            sent.append("\(binding.method) \(binding.path)")
            return try binding.perform(arguments, session)
        }
        #expect(sent == ["DELETE /v1/tokens/{id}", "GET /v1/tokens"])
        #expect(try TokenRevoke.Output(json: answer.json).revokedAt != nil)
    }
}
