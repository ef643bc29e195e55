import ClipApp
import ClipCore
import ClipStore
import ClipWire
import StrictJSON
import Testing

/// `AppList` and `ClipList` through the layer: each caller sees its scope, the filters narrow it, a bad filter is a field error.
struct CatalogListTests {
    let registry: Registry
    let teamA = try! TeamID("ABCDE12345")

    init() throws {
        registry = try temporaryRegistry()
        for (url, clip) in [
            ("https://bikes.example/rent", "ABCDE12345.com.example.bikes.Clip"),
            ("https://cafe.example/", "FGHIJ67890.com.example.cafe.Clip"),
        ] {
            _ = try registry.register(try JSONParser.parse(#"{"url":"\#(url)","clip":"\#(clip)","title":"T","subtitle":"S"}"#))
        }
    }

    func apps(_ arguments: [(String, String)], as caller: Caller) throws -> [String] {
        try AppList.Output(json: try AppList.binding.perform(Arguments(arguments), Session(registry: registry, caller: caller)).json).items
            .map(\.bundleID.rawValue)
    }

    func clips(_ arguments: [(String, String)], as caller: Caller) throws -> [String] {
        try ClipList.Output(json: try ClipList.binding.perform(Arguments(arguments), Session(registry: registry, caller: caller)).json)
            .items
            .map(\.appID.rawValue)
    }

    @Test func eachCallerSeesItsScopeAndTheFiltersNarrowIt() throws {
        #expect(try apps([], as: .local) == ["com.example.bikes", "com.example.cafe"])
        #expect(try apps([], as: .team(teamA, tokenID: 2)) == ["com.example.bikes"])
        #expect(try apps([("team", "FGHIJ67890")], as: .admin(tokenID: 1)) == ["com.example.cafe"])
        #expect(try apps([("team", "FGHIJ67890")], as: .team(teamA, tokenID: 2)) == [], "a team filter never widens a team's view")
        #expect(try clips([], as: .team(teamA, tokenID: 2)) == ["ABCDE12345.com.example.bikes.Clip"])
        #expect(try clips([("app", "com.example.cafe")], as: .local) == ["FGHIJ67890.com.example.cafe.Clip"])
        #expect(try clips([("app", "com.example.cafe")], as: .team(teamA, tokenID: 2)) == [])
        #expect(throws: CallerRefusal.self) { try apps([], as: .anyone) }
    }

    @Test func aBadFilterIsAFieldError() throws {
        let error = #expect(throws: RegistryError.self) { try clips([("app", "not a bundle")], as: .local) }
        guard case .invalid(let errors)? = error else {
            Issue.record("expected field errors, got \(String(describing: error))")
            return
        }
        #expect(errors.map(\.field) == ["app"])
        #expect(throws: RegistryError.self) { try apps([("team", "lower")], as: .local) }
    }
}
