import ClipCLI
import ClipApp
import ClipCore
import ClipWire
import ClipStore
import Foundation
import StrictJSON
import Testing

/// `ExperienceHistory` through the layer, as both edges call it: `Binding.perform` with named arguments.
struct ExperienceHistoryTests {
    let registry: Registry
    let binding = ExperienceHistory.binding

    init() throws {
        registry = try temporaryRegistry()
        for (url, clip) in [
            ("https://bikes.example/rent", "ABCDE12345.com.example.bikes.Clip"),
            ("https://cafe.example/", "FGHIJ67890.com.example.cafe.Clip"),
        ] {
            _ = try registry.register(
                try JSONParser.parse(#"{"url":"\#(url)","clip":"\#(clip)","title":"Rent a bike","subtitle":"Tap to unlock"}"#))
        }
        _ = try registry.update("1", with: try JSONParser.parse(#"{"title":"Rent an e-bike"}"#))
        _ = try registry.setStatus("1", .deactivated)
    }

    func history(_ arguments: [(String, String)], as caller: Caller = .local) throws -> ExperienceHistory.Output {
        try ExperienceHistory.Output(json: try binding.perform(Arguments(arguments), Session(registry: registry, caller: caller)).json)
    }

    @Test func listsOneExperiencesRecordsOldestFirstWithWhatChanged() throws {
        let page = try history([("id", "1")])
        #expect(page.records.map(\.action) == [.create, .update, .deactivate])
        #expect(page.records.allSatisfy { $0.entity == .experience && $0.entityID == "1" })
        #expect(page.records.map(\.changedMembers) == [[], ["title"], ["status"]])
        #expect(page.nextSince == nil)
        // By URL, in any spelling that normalizes to the registered one.
        #expect(try history([("id", "HTTPS://Bikes.Example:443/rent")]).records.map(\.id) == page.records.map(\.id))
    }

    /// A token's writes name the token by its name; a team token is told only its own team's token names.
    @Test func namesTheTokenThatWrote() throws {
        let admin = try registry.createToken(name: "release pipeline", team: nil).value.token
        let team = try registry.createToken(name: "bikes cms", team: try TeamID("ABCDE12345")).value.token
        for (token, title) in [(admin, "By the pipeline"), (team, "By the CMS")] {
            registry.actor = "token:\(token.id)"
            _ = try registry.update("1", with: try JSONParser.parse(#"{"title":"\#(title)"}"#))
        }
        registry.actor = "local"
        let byAdmin = try history([("id", "1")]).records.suffix(2)
        #expect(byAdmin.map(\.actorName) == ["release pipeline", "bikes cms"])
        let byTeam = try history([("id", "1")], as: .team(try TeamID("ABCDE12345"), tokenID: team.id)).records.suffix(2)
        #expect(byTeam.map(\.actorName) == [nil, "bikes cms"])
        #expect(byTeam.map(\.actor) == ["token:\(admin.id)", "token:\(team.id)"])
    }

    @Test func pagesWithSinceAndLimit() throws {
        let first = try history([("id", "1"), ("limit", "2")])
        #expect(first.records.count == 2)
        let next = try #require(first.nextSince)
        let rest = try history([("id", "1"), ("limit", "2"), ("since", String(next))])
        #expect(rest.records.map(\.action) == [.deactivate])
        #expect(rest.nextSince == nil)
    }

    @Test func aRemovedExperienceKeepsItsHistoryByID() throws {
        _ = try registry.remove("1")
        #expect(try history([("id", "1")]).records.map(\.action) == [.create, .update, .deactivate, .remove])
        // Its URL is free again: it names no experience.
        #expect(throws: RegistryError.notFound("experience with URL https://bikes.example/rent")) {
            try history([("id", "https://bikes.example/rent")])
        }
    }

    @Test func anotherTeamsExperienceIsNotFoundAndAnyoneIsRefused() throws {
        let team = Caller.team(try TeamID("FGHIJ67890"), tokenID: 2)
        #expect(throws: RegistryError.notFound("experience 1")) { try history([("id", "1")], as: team) }
        #expect(try history([("id", "2")], as: team).records.count == 1)
        #expect(try history([("id", "1")], as: .admin(tokenID: 1)).records.count == 3)
        #expect(throws: CallerRefusal.self) { try history([("id", "1")], as: .anyone) }
    }

    @Test func everyBadArgumentIsReportedAtOnce() throws {
        let error = #expect(throws: RegistryError.self) { try history([("limit", "1001"), ("since", "x")]) }
        guard case .invalid(let errors)? = error else { Issue.record("expected field errors, got \(String(describing: error))"); return }
        #expect(Set(errors.map(\.field)) == ["id", "limit", "since"])
    }

    @Test func theRequestCarriesTheArgumentsAsThePathAndQuery() throws {
        var input = ExperienceHistory.Input()
        (input.experience, input.since, input.limit) = ("https://bikes.example/rent?a=1", 4, 10)
        let request = binding.request(for: input.arguments)
        #expect(request.path == "/v1/experiences/https%3A%2F%2Fbikes.example%2Frent%3Fa%3D1/history")
        #expect(request.query.map { "\($0.name)=\($0.value)" } == ["since=4", "limit=10"])
        #expect(binding.commandPath == ["history"])
        let parsed = try ClipCLI.words(["history", "7", "--limit", "3"], for: binding)
        #expect(
            try binding.arguments(of: CommandLine(parsed: parsed, readFile: { _, _ in [] })) == Arguments([("id", "7"), ("limit", "3")]))
    }
}

/// `TokenList` through the layer: each caller sees the tokens its scope allows, never a secret.
struct TokenListTests {
    @Test func aTeamSeesItsOwnTokensAndAnAdminOrTheOwnerSeesEvery() throws {
        let registry = try temporaryRegistry()
        let teamA = try TeamID("ABCDE12345"), teamB = try TeamID("FGHIJ67890")
        _ = try registry.createToken(name: "admin", team: nil)
        _ = try registry.createToken(name: "a", team: teamA)
        _ = try registry.createToken(name: "b", team: teamB)
        func names(_ caller: Caller) throws -> [String] {
            let json = try TokenList.binding.perform(Arguments(), Session(registry: registry, caller: caller)).json
            #expect(!JSONWriter.string(json).contains("clip_"), "no secret in a list")
            return try TokenList.Output(json: json).items.map(\.name)
        }
        #expect(try names(.team(teamA, tokenID: 2)) == ["a"])
        #expect(try names(.admin(tokenID: 1)) == ["admin", "a", "b"])
        #expect(try names(.local) == ["admin", "a", "b"])
        #expect(throws: CallerRefusal.self) { try names(.anyone) }
    }
}

/// Ids in one spelling only (found by hostile QA: "0" was read as a URL, "01" and "+2" as ids).
struct ExperienceHistoryReferenceTests {
    @Test func anIdIsWrittenInOneWay() throws {
        let registry = try temporaryRegistry()
        _ = try registry.register(
            try JSONParser.parse(
                #"{"url":"https://bikes.example/rent","clip":"ABCDE12345.com.example.bikes.Clip","title":"T","subtitle":"S"}"#))
        let session = Session(registry: registry, caller: .local)
        #expect(
            try ExperienceHistory.Output(json: try ExperienceHistory.binding.perform(Arguments([("id", "1")]), session).json).records.count
                == 1)
        // QA: "1.0" and " 1" were refused as URLs while "01" was not found; one rule now names them all.
        for reference in ["0", "01", "+1", "-1", "99999999999999999999", "1.0", " 1", "1 "] {
            #expect(throws: RegistryError.notFound("experience \(reference)")) {
                try ExperienceHistory.binding.perform(Arguments([("id", reference)]), session).json
            }
        }
        // The same rule where a command names an experience by id or URL.
        for reference in ["01", "1.0"] {
            #expect(throws: RegistryError.notFound("experience \(reference)")) { try registry.experience(reference) }
        }
    }
}
