import ClipCLI
import ClipApp
import ClipCore
import ClipStore
import Foundation
import StrictJSON
import Testing

/// Domain associations and default experiences through the layer: another team's clip answers
/// what a missing one answers, the same write twice changes nothing the second time, and a refused
/// write leaves the database file byte-identical.
struct DomainAndDefaultOperationTests {
    let registry: Registry
    let path: String
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)
    let teamB = Caller.team(try! TeamID("FGHIJ67890"), tokenID: 3)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        _ = try registry.addClip(try AppID("ABCDE12345.com.example.bikes.Clip"))
        _ = try registry.addClip(try AppID("FGHIJ67890.com.example.scooters.Clip"))
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func perform(_ binding: Binding, _ clip: String, host: String? = nil, body: String? = nil, as caller: Caller, ifMatch: String? = nil)
        throws -> OperationAnswer
    {
        var arguments = Arguments(
            [("bundleId", clip)] + (host.map { [("host", $0)] } ?? []), body: try body.map { try JSONParser.parse(Array($0.utf8)) })
        arguments.ifMatch = .sent(ifMatch)
        return try binding.perform(arguments, Session(registry: registry, caller: caller))
    }

    @Test func associatedOnceTellsWhereThenRemovedWithNoContent() throws {
        let added = try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "Bikes.Example.", as: teamA)
        #expect(added.status == 201)
        #expect(added.headers.first?.value == "/v1/clips/com.example.bikes.Clip/domains/bikes.example")
        let before = try bytes()
        let again = try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "bikes.example", as: teamA)
        #expect(again.status == 200)
        #expect(again.headers.isEmpty)
        #expect(try bytes() == before, "the same PUT again writes nothing")
        let removed = try perform(DomainRemove.binding, "com.example.bikes.Clip", host: "bikes.example", as: teamA)
        #expect(removed.status == 204)
        #expect(throws: RegistryError.self) {
            try perform(DomainRemove.binding, "com.example.bikes.Clip", host: "bikes.example", as: teamA)
        }
    }

    @Test func anotherTeamsClipIsNotFoundAndNothingChanges() throws {
        _ = try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "bikes.example", as: teamA)
        let before = try bytes()
        for binding in [DomainAdd.binding, DomainRemove.binding] {
            #expect(throws: RegistryError.notFound("clip com.example.bikes.Clip")) {
                try perform(binding, "com.example.bikes.Clip", host: "bikes.example", as: teamB)
            }
        }
        // A host with an empty label is not a host name: a field error, nothing written.
        #expect(throws: RegistryError.self) { try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "bikes..example", as: teamA) }
        for binding in [DefaultExperienceShow.binding, DefaultExperienceRemove.binding] {
            #expect(throws: RegistryError.notFound("clip com.example.bikes.Clip")) {
                try perform(binding, "com.example.bikes.Clip", as: teamB)
            }
        }
        #expect(throws: RegistryError.notFound("clip com.example.bikes.Clip")) {
            try perform(
                DefaultExperienceSave.binding, "com.example.bikes.Clip",
                body: #"{"action":"OPEN","localizations":{"en-US":{"subtitle":"x"}}}"#,
                as: teamB)
        }
        #expect(try bytes() == before)
    }

    @Test func domainListReadsTheClipListByHost() throws {
        _ = try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "b.example", as: teamA)
        _ = try perform(DomainAdd.binding, "com.example.bikes.Clip", host: "a.example", as: teamA)
        _ = try registry.shareHost("a.example", team: try TeamID("FGHIJ67890"))
        _ = try perform(DomainAdd.binding, "com.example.scooters.Clip", host: "a.example", as: teamB)
        let binding = DomainAssociationList.binding
        #expect(!binding.servesRoute, "GET /v1/clips is clip list's route")
        let answer = try binding.perform(Arguments(), Session(registry: registry, caller: teamA))
        var lines: [String] = []
        let parsed = try ClipCLI.words(["domain", "list", "--host", "A.EXAMPLE"], for: binding)
        try binding.present(answer, parsed, Printer(out: { lines.append($0) }, err: { _ in }))
        #expect(lines == ["a.example  ABCDE12345.com.example.bikes.Clip\n"], "team A sees its own clips, on the host asked for")
    }

    @Test func defaultExperienceSavedUnderItsTagAndRefusedWhenStale() throws {
        let body = #"{"action":"VIEW","localizations":{"en-US":{"subtitle":"Bikes"}}}"#
        let created = try perform(DefaultExperienceSave.binding, "com.example.bikes.Clip", body: body, as: teamA)
        #expect(created.status == 201)
        #expect(created.headers.first?.value == #""d-v1""#)
        let before = try bytes()
        let again = try perform(DefaultExperienceSave.binding, "com.example.bikes.Clip", body: body, as: teamA, ifMatch: #""d-v1""#)
        #expect(again.status == 200)
        #expect(try bytes() == before, "the same PUT again writes nothing")
        #expect(throws: RegistryError.versionMismatch(expected: 7, actual: 1)) {
            try perform(DefaultExperienceSave.binding, "com.example.bikes.Clip", body: body, as: teamA, ifMatch: #""d-v7""#)
        }
        do {
            _ = try perform(
                DefaultExperienceSave.binding, "com.example.bikes.Clip", body: #"{"action":"RUN","localizations":{"en-US":{}},"x":1}"#,
                as: teamA)
            Issue.record("an invalid default experience was saved")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["action", "localizations.en-US.subtitle", "x"])
        }
        #expect(try bytes() == before)
        let shown = try perform(DefaultExperienceShow.binding, "ABCDE12345.com.example.bikes.Clip", as: teamA)
        #expect(shown.headers.first?.value == #""d-v1""#)
        #expect(try perform(DefaultExperienceRemove.binding, "com.example.bikes.Clip", as: teamA).status == 204)
    }
}
