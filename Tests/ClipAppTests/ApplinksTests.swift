import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON
import Testing

/// The applinks writes through the layer: a team writes its own app's rules on its own hosts,
/// another team's app is not found word for word, every field error at once, and a refused write
/// leaves the database file byte-identical.
struct ApplinksTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("applinks-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        _ = try registry.saveApp(try BundleID("com.a.app"), team: try TeamID("ABCDE12345"), appStoreID: nil, name: nil)
        _ = try registry.saveApp(try BundleID("com.b.app"), team: try TeamID("FGHIJ67890"), appStoreID: nil, name: nil)
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func perform(_ binding: Binding, _ values: [(String, String)], _ body: String? = nil, as caller: Caller, ifNoneMatch: String? = nil)
        throws -> OperationAnswer
    {
        var arguments = Arguments(values.map { (name: $0.0, value: $0.1) }, body: try body.map { try JSONParser.parse(Array($0.utf8)) })
        arguments.ifNoneMatch = .sent(ifNoneMatch)
        return try binding.perform(arguments, Session(registry: registry, caller: caller))
    }

    func set(_ host: String, _ bundle: String, _ body: String, as caller: Caller, ifNoneMatch: String? = nil) throws -> OperationAnswer {
        try perform(ApplinksSet.binding, [("host", host), ("bundleId", bundle)], body, as: caller, ifNoneMatch: ifNoneMatch)
    }

    @Test func aTeamSetsItsAppsRulesAndTheSameRequestTwiceChangesNothing() throws {
        let first = try set("a.example", "com.a.app", #"{"components":[{"/":"/rent/*"}]}"#, as: teamA)
        #expect(first.status == 200)
        #expect(first.json["appIDs"] == ["ABCDE12345.com.a.app"])
        #expect(first.json["notes"] == ["host a.example now belongs to team ABCDE12345"], "\(first.json)")
        let before = try bytes()
        let again = try set("a.example", "com.a.app", #"{"components":[{"/":"/rent/*"}]}"#, as: teamA)
        #expect(again.json["notes"] == nil, "a repeated write has no notes")
        #expect(try bytes() == before, "the same request twice writes nothing the second time")
        #expect(throws: PreconditionFailed.self) {
            try set("a.example", "com.a.app", #"{"components":[]}"#, as: teamA, ifNoneMatch: "*")
        }
        #expect(try bytes() == before)
    }

    /// Settings already as asked: `changed` false, nothing written, no change record (found by hostile
    /// QA: `clipctl applinks settings HOST` with nothing to change said "saved").
    @Test func settingsAlreadyAsAskedChangeNothingAndSaySo() throws {
        let settings = [("host", "a.example")]
        let first = try perform(ApplinksSettings.binding, settings, #"{"defaults":{"caseSensitive":false}}"#, as: teamA)
        #expect(first.json["changed"] == true, "\(first.json)")
        let before = try bytes()
        let records = try registry.changes(limit: 1000).count
        for body in [#"{"defaults":{"caseSensitive":false}}"#, "{}", #"{"substitutionVariables":null}"#] {
            let again = try perform(ApplinksSettings.binding, settings, body, as: teamA)
            #expect(again.status == 200 && again.json["changed"] == false, "\(body): \(again.json)")
            #expect(try ApplinksSettings.Output(json: again.json).outcome.changed == false)
        }
        #expect(try bytes() == before)
        #expect(try registry.changes(limit: 1000).count == records)
    }

    @Test func anotherTeamsAppIsNotFoundWordForWordAndNothingIsWritten() throws {
        _ = try set("a.example", "com.a.app", #"{"components":[{"/":"*"}]}"#, as: teamA)
        let before = try bytes()
        for bundle in ["com.a.app", "com.none.app", "not a bundle", "com.a.app\u{200B}"] {
            #expect(throws: RegistryError.notFound("app \(bundle)")) {
                try set("b.example", bundle, #"{"components":[{"/":"*"}]}"#, as: teamB)
            }
            #expect(throws: RegistryError.notFound("app \(bundle)")) {
                try perform(ApplinksRemove.binding, [("host", "a.example"), ("bundleId", bundle)], as: teamB)
            }
        }
        // Team B's own app on team A's host: the host's owner refuses it.
        #expect(throws: RegistryError.self) { try set("a.example", "com.b.app", #"{"components":[{"/":"*"}]}"#, as: teamB) }
        #expect(throws: RegistryError.self) {
            try perform(ApplinksSettings.binding, [("host", "a.example")], #"{"defaults":{"caseSensitive":false}}"#, as: teamB)
        }
        #expect(throws: RegistryError.self) {
            try perform(ApplinksGeneration.binding, [("host", "a.example")], #"{"fromExperiences":true}"#, as: teamB)
        }
        #expect(try bytes() == before)
    }

    @Test func everyFieldErrorAtOnce() throws {
        let before = try bytes()
        do {
            _ = try set("a.example", "com.a.app", #"{"defaults":3,"position":-1,"colour":"red"}"#, as: teamA)
            Issue.record("an invalid body was saved")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["components", "defaults", "position", "colour"])
        }
        #expect(throws: RegistryError.invalid([FieldError(field: "fromExperiences", rule: "required", message: "is required")])) {
            try perform(ApplinksGeneration.binding, [("host", "a.example")], "{}", as: teamA)
        }
        #expect(try bytes() == before)
    }

    /// A member that is not an object is a field error, never JSON null: `"defaults": 3` cleared the host's
    /// defaults (FieldReader.object answered `.null`, JSONValue being nil-literal-expressible).
    @Test func aDefaultsThatIsNoObjectIsRefusedRatherThanClearing() throws {
        _ = try set("a.example", "com.a.app", #"{"components":[{"/":"*"}]}"#, as: teamA)
        _ = try perform(ApplinksSettings.binding, [("host", "a.example")], #"{"defaults":{"caseSensitive":false}}"#, as: teamA)
        let before = try bytes()
        #expect(throws: RegistryError.invalid([FieldError(field: "defaults", rule: "type", message: "expected an object, got a number")])) {
            try perform(ApplinksSettings.binding, [("host", "a.example")], #"{"defaults":3}"#, as: teamA)
        }
        #expect(try bytes() == before)
    }

    @Test func removedOnceThenNotFound() throws {
        _ = try set("a.example", "com.a.app", #"{"components":[{"/":"*"}]}"#, as: teamA)
        let removed = try perform(ApplinksRemove.binding, [("host", "A.Example."), ("bundleId", "com.a.app")], as: teamA)
        #expect(removed.status == 204 && removed.json == .null)
        let before = try bytes()
        #expect(throws: RegistryError.notFound("applinks of com.a.app on a.example")) {
            try perform(ApplinksRemove.binding, [("host", "a.example"), ("bundleId", "com.a.app")], as: teamA)
        }
        #expect(try bytes() == before)
    }

    @Test func settingsMergeAndGenerationAnswersTheHostNormalized() throws {
        _ = try set("a.example", "com.a.app", #"{"components":[{"/":"*"}]}"#, as: teamA)
        let settings = try perform(
            ApplinksSettings.binding, [("host", "a.example")], #"{"substitutionVariables":{"city":["paris"]}}"#, as: .admin(tokenID: 1))
        #expect(settings.json == ["defaults": nil, "substitutionVariables": ["city": ["paris"]], "changed": true], "\(settings.json)")
        let kept = try perform(ApplinksSettings.binding, [("host", "a.example")], #"{"defaults":{"caseSensitive":false}}"#, as: teamA)
        #expect(kept.json["substitutionVariables"] == ["city": ["paris"]], "an absent member keeps its value")
        let on = try perform(ApplinksGeneration.binding, [("host", "A.EXAMPLE.")], #"{"fromExperiences":true}"#, as: teamA)
        #expect(on.json["host"] == "a.example" && on.json["fromExperiences"] == true && on.json["unmatched"] == [])
        // An invisible character is mapped away as the store normalizes every host: the same host, nothing changed.
        let before = try bytes()
        let invisible = try perform(ApplinksGeneration.binding, [("host", "a.example\u{200B}")], #"{"fromExperiences":true}"#, as: teamA)
        #expect(invisible.json["host"] == "a.example")
        #expect(try bytes() == before)
        #expect(throws: RegistryError.self) {
            try perform(ApplinksGeneration.binding, [("host", "a..example")], #"{"fromExperiences":true}"#, as: teamA)
        }
        #expect(try bytes() == before)
    }

    func webcredentials(_ binding: Binding, _ host: String, _ bundle: String, as caller: Caller) throws -> OperationAnswer {
        try perform(binding, [("host", host), ("bundleId", bundle)], as: caller)
    }

    @Test func webcredentialsAddedOnceThenUnchangedThenRemoved() throws {
        let added = try webcredentials(WebcredentialsAdd.binding, "Login.A.Example.", "com.a.app", as: teamA)
        #expect(added.status == 201)
        #expect(
            added.json == ["host": "login.a.example", "app": "com.a.app", "notes": ["host login.a.example now belongs to team ABCDE12345"]])
        let before = try bytes()
        let again = try webcredentials(WebcredentialsAdd.binding, "login.a.example", "com.a.app", as: teamA)
        #expect(again.status == 200 && again.json == ["host": "login.a.example", "app": "com.a.app"])
        #expect(try bytes() == before, "the same request twice writes nothing the second time")
        let removed = try webcredentials(WebcredentialsRemove.binding, "login.a.example", "com.a.app", as: teamA)
        #expect(removed.status == 204 && removed.json == .null)
        #expect(try WebcredentialsChange(answer: removed).removed, "the command reads a 204 as a removal")
        let gone = try bytes()
        #expect(throws: RegistryError.notFound("webcredentials of com.a.app on login.a.example")) {
            try webcredentials(WebcredentialsRemove.binding, "login.a.example", "com.a.app", as: teamA)
        }
        #expect(try bytes() == gone)
    }

    @Test func webcredentialsOfAnotherTeamsAppOrOnItsHostAreRefusedUnchanged() throws {
        _ = try webcredentials(WebcredentialsAdd.binding, "login.a.example", "com.a.app", as: teamA)
        let before = try bytes()
        for bundle in ["com.a.app", "com.none.app", "not a bundle"] {
            for binding in [WebcredentialsAdd.binding, WebcredentialsRemove.binding] {
                #expect(throws: RegistryError.notFound("app \(bundle)")) {
                    try webcredentials(binding, "login.a.example", bundle, as: teamB)
                }
            }
        }
        #expect(throws: RegistryError.self) { try webcredentials(WebcredentialsAdd.binding, "login.a.example", "com.b.app", as: teamB) }
        #expect(try bytes() == before)
    }

    /// The AASA as JSON answers anyone, without a token; a host with nothing configured is not found.
    @Test func aHostsAASAAnswersAnyone() throws {
        _ = try set("a.example", "com.a.app", #"{"components":[{"/":"/rent/*"}]}"#, as: teamA)
        let aasa = try perform(HostAASA.binding, [("host", "A.Example.")], as: .anyone)
        #expect(aasa.status == 200)
        #expect(aasa.json["applinks"]?["details"]?.arrayValue?.first?["appIDs"] == ["ABCDE12345.com.a.app"], "\(aasa.json)")
        #expect(aasa.json == (try JSONParser.parse(try registry.aasa(host: "a.example"))), "the generated file, member for member")
        #expect(throws: RegistryError.notFound("AASA for b.example: no clip, applinks rule or webcredentials is configured for this host"))
        {
            try perform(HostAASA.binding, [("host", "b.example")], as: .anyone)
        }
    }
}
