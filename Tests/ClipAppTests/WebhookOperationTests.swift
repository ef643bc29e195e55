import ClipCLI
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON
import Testing

/// The webhook operations through the layer: a team token's own endpoints only (another team's is
/// not found, word for word), the address rules as the session allows, the secret shown once, and a
/// refused write that leaves the database as it was.
struct WebhookOperationTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
    }

    func session(_ caller: Caller, allowsPrivateTargets: Bool = false) -> Session {
        Session(registry: registry, caller: caller, allowsPrivateTargets: allowsPrivateTargets)
    }

    func add(_ body: String, as caller: Caller, allowsPrivateTargets: Bool = false) throws -> OperationAnswer {
        try WebhookAdd.binding.perform(
            Arguments(body: try JSONParser.parse(Array(body.utf8))), session(caller, allowsPrivateTargets: allowsPrivateTargets))
    }

    func bytes() throws -> [Data] {
        try [path, path + "-wal"].map {
            FileManager.default.fileExists(atPath: $0) ? try Data(contentsOf: URL(fileURLWithPath: $0)) : Data()
        }
    }

    @Test func aTeamTokensEndpointIsItsTeamsAndItsSecretIsShownOnceAndRecordedNowhere() throws {
        let answer = try add(#"{"url":"https://hooks.example.com/in","events":["experience.*"]}"#, as: teamA)
        #expect(answer.status == 201)
        #expect(answer.headers.map(\.name) == ["Location", "Cache-Control"])
        let added = try WebhookAdd.Output(json: answer.json).outcome.value
        let (endpoint, secret) = (added.endpoint, added.secret)
        #expect(endpoint.team?.rawValue == "ABCDE12345")
        #expect(secret.hasPrefix("whsec_"))
        let records = try registry.changes(since: 0, limit: 1000)
        #expect(!records.isEmpty)
        for listed in [try WebhookList.binding.perform(Arguments(), session(.local)).json] {
            #expect(!JSONWriter.string(listed).contains(secret))
        }
        #expect(try registry.changes(since: 0, limit: 1000).allSatisfy { !"\($0)".contains(String(secret.dropFirst(6))) })
    }

    @Test func refusedAddsChangeNothing() throws {
        _ = try add(#"{"url":"https://hooks.example.com/in","events":["*"]}"#, as: .local)
        let before = try bytes()
        #expect(throws: CallerRefusal.forbidden("a team token can subscribe to its own team's events only")) {
            try add(#"{"url":"https://hooks.example.com/b","events":["*"],"team":"FGHIJ67890"}"#, as: teamA)
        }
        do {
            _ = try add(#"{"events":"experience.*","team":"abc","colour":"red"}"#, as: .admin(tokenID: 1))
            Issue.record("an invalid body added an endpoint")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["url", "events", "team", "colour"])
        }
        // The address rules: a loopback target only where the operator allows it (serve --allow-private-targets).
        #expect(throws: RegistryError.self) { try add(#"{"url":"http://127.0.0.1:9/in","events":["*"]}"#, as: .admin(tokenID: 1)) }
        // The same URL twice, in another spelling, is a conflict.
        #expect(throws: RegistryError.self) { try add(#"{"url":"HTTPS://Hooks.Example.com:443/in","events":["*"]}"#, as: .local) }
        #expect(try bytes() == before)
        let allowed = try add(#"{"url":"http://127.0.0.1:9/in","events":["*"]}"#, as: .local, allowsPrivateTargets: true)
        #expect(allowed.status == 201)
    }

    @Test func anotherTeamsEndpointIsNotFoundWordForWordByEveryRoute() throws {
        let answer = try add(#"{"url":"https://hooks.example.com/in","events":["*"]}"#, as: teamB)
        let id = try WebhookAdd.Output(json: answer.json).outcome.value.endpoint.id
        let before = try bytes()
        for binding in [WebhookRemove.binding, WebhookTest.binding, WebhookEnable.binding, WebhookDeliveries.binding] {
            #expect(throws: RegistryError.notFound("webhook \(id)")) {
                try binding.perform(Arguments([("id", String(id))]), session(teamA))
            }
            #expect(throws: RegistryError.notFound("webhook 99")) { try binding.perform(Arguments([("id", "99")]), session(teamA)) }
            #expect(throws: RegistryError.notFound("webhook 0")) { try binding.perform(Arguments([("id", "0")]), session(.local)) }
            // Visibility first: a bad limit on another team's endpoint tells nothing of it.
            #expect(throws: RegistryError.notFound("webhook \(id)")) {
                try binding.perform(Arguments([("id", String(id)), ("limit", "0")]), session(teamA))
            }
        }
        #expect(try WebhookList.Output(json: WebhookList.binding.perform(Arguments(), session(teamA)).json).items.isEmpty)
        #expect(try bytes() == before)
        #expect(throws: InvalidArguments.self) {
            try WebhookDeliveries.binding.perform(Arguments([("id", String(id)), ("limit", "0")]), session(teamB))
        }
    }

    @Test func theRemoveCommandReadsTheEndpointFirstAndASecondRemoveIsRefusedUnchanged() throws {
        let created = try add(#"{"url":"https://hooks.example.com/in","events":["*"]}"#, as: .local)
        let id = String(try WebhookAdd.Output(json: created.json).outcome.value.endpoint.id)
        let parsed = try ClipCLI.words(["webhook", "remove", id], for: WebhookRemove.binding)
        var sent: [String] = []
        let run: OperationRunner = { binding, arguments in
            sent.append("\(binding.method) \(binding.path)")
            return try binding.perform(arguments, session(.local))
        }
        let answer = try WebhookRemove.binding.commandAnswer!(parsed, Arguments([("id", id)]), run)
        #expect(sent == ["GET /v1/webhooks", "DELETE /v1/webhooks/{id}"])
        #expect(try WebhookEndpoint(json: answer.json).url == "https://hooks.example.com/in")
        let before = try bytes()
        #expect(throws: RegistryError.notFound("webhook \(id)")) {
            try WebhookRemove.binding.commandAnswer!(parsed, Arguments([("id", id)]), run)
        }
        #expect(try bytes() == before)
    }
}
