import AppleFormats
import StrictJSON
import Testing
@testable import ClipCore

/// docs/rules.md#matching-and-specificity, on Apple's own examples (docs/apple-formats.md#prefix-matching).
struct ResolverTests {
    static let clip = try! AppID("ABCDE12345.com.example.MyApp.Clip")

    static func experience(
        _ id: Int64, _ url: String, status: ExperienceStatus = .active, title: String = "Card", localizations: [Language: CardText] = [:]
    ) -> AdvancedExperience {
        var locs = localizations
        locs[.EN] = CardText(title: title, subtitle: "Subtitle of \(id)")
        return AdvancedExperience(id: id, url: try! NormalizedURL(url), clip: clip, localizations: locs, status: status)
    }

    static func resolve(_ url: String, _ candidates: [AdvancedExperience], fallbacks: [DefaultFallback] = [], preferences: [Language] = [])
        -> Resolution
    {
        let parsed = try! NormalizedURL(url)
        return Resolver.resolve(
            url, url: parsed, candidates: candidates.filter { $0.url.host == parsed.host }, fallbacks: fallbacks, preferences: preferences,
            at: .earliest)
    }

    static func winner(_ r: Resolution) -> Int64? {
        if case .advanced(let e, _) = r.match { return e.id }
        return nil
    }

    @Test func bikesRentalPrefixCoversQueries() {
        let rent = Self.experience(1, "https://bikesrental.example/rent")
        #expect(Self.winner(Self.resolve("https://bikesrental.example/rent?id=123", [rent])) == 1)
        #expect(Self.winner(Self.resolve("https://bikesrental.example/rent/station/9", [rent])) == 1)
        #expect(Self.winner(Self.resolve("https://bikesrental.example/return", [rent])) == nil)
    }

    @Test func brightEggMostSpecificWins() {
        let all = Self.experience(1, "https://brighteggcafe.example/store/")
        let flagship = Self.experience(2, "https://brighteggcafe.example/store/cupertino")
        let candidates = [flagship, all]
        #expect(Self.winner(Self.resolve("https://brighteggcafe.example/store/cupertino", candidates)) == 2)
        #expect(Self.winner(Self.resolve("https://brighteggcafe.example/store/cupertino/menu?x=1", candidates)) == 2)
        #expect(Self.winner(Self.resolve("https://brighteggcafe.example/store/sunnyvale", candidates)) == 1)
        #expect(Self.winner(Self.resolve("https://brighteggcafe.example/store", candidates)) == 1)
        // Insertion order does not matter.
        #expect(Self.winner(Self.resolve("https://brighteggcafe.example/store/cupertino", candidates.reversed())) == 2)
    }

    @Test func melaMelaOrderAndReservationAreSeparate() {
        let order = Self.experience(1, "https://melamela.example/order")
        let reservation = Self.experience(2, "https://melamela.example/reservation")
        #expect(Self.winner(Self.resolve("https://melamela.example/order?table=4", [order, reservation])) == 1)
        #expect(Self.winner(Self.resolve("https://melamela.example/reservation/today", [order, reservation])) == 2)
        #expect(Self.winner(Self.resolve("https://melamela.example/menu", [order, reservation])) == nil)
    }

    @Test func segmentAwareWithNearMissWarning() throws {
        let store = Self.experience(1, "https://shop.example/store")
        let r = Self.resolve("https://shop.example/stores", [store])
        #expect(r.match == nil)
        let report = try #require(r.candidates.first)
        #expect(report.outcome == .pathMismatch)
        #expect(report.nearMiss != nil)
    }

    @Test func registeredQueryIsASetOfRequiredItems() {
        let plain = Self.experience(1, "https://parking.example/pay")
        let zoned = Self.experience(2, "https://parking.example/pay?zone=4")
        let zonedLevel = Self.experience(3, "https://parking.example/pay?level=2&zone=4")
        let all = [plain, zoned, zonedLevel]
        #expect(Self.winner(Self.resolve("https://parking.example/pay?zone=4", all)) == 2)
        #expect(Self.winner(Self.resolve("https://parking.example/pay?level=2&x=9&zone=4", all)) == 3)
        #expect(Self.winner(Self.resolve("https://parking.example/pay?zone=5&level=2", all)) == 1)
        let r = Self.resolve("https://parking.example/pay?zone=5", all)
        #expect(r.candidates.first { $0.id == 2 }?.outcome == .queryMismatch)
    }

    @Test func pathSegmentsOutrankQueryItems() {
        let deepPath = Self.experience(1, "https://parking.example/pay/garage")
        let query = Self.experience(2, "https://parking.example/pay?zone=4&level=1")
        #expect(Self.winner(Self.resolve("https://parking.example/pay/garage?zone=4&level=1", [query, deepPath])) == 1)
    }

    @Test func tieBrokenBySmallerNormalizedURL() {
        let a = Self.experience(7, "https://tie.example/x?a=1")
        let b = Self.experience(3, "https://tie.example/x?b=1")
        #expect(Self.winner(Self.resolve("https://tie.example/x?a=1&b=1", [b, a])) == 7)
        #expect(Self.winner(Self.resolve("https://tie.example/x?b=1&a=1", [a, b])) == 7)
    }

    @Test func deactivatedExperiencesNeverMatch() {
        let general = Self.experience(1, "https://bikesrental.example/")
        let special = Self.experience(2, "https://bikesrental.example/rent", status: .deactivated)
        let r = Self.resolve("https://bikesrental.example/rent?id=1", [general, special])
        #expect(Self.winner(r) == 1)
        #expect(r.candidates.first { $0.id == 2 }?.outcome == .deactivated)
        #expect(r.candidates.first { $0.id == 1 }?.outcome == .chosen)
    }

    @Test func fallsBackToDefaultExperienceOnAssociatedHost() {
        let fallback = DefaultFallback(
            experience: DefaultExperience(
                clip: Self.clip, action: .view,
                localizations: ["en-US": .init(subtitle: "Rent a bike"), "fr-FR": .init(subtitle: "Louez un vélo")]),
            appName: "Bikes")
        let r = Self.resolve(
            "https://bikesrental.example/about", [Self.experience(1, "https://bikesrental.example/rent")], fallbacks: [fallback],
            preferences: [.FR])
        guard case .defaultExperience(let chosen, let locale) = r.match else {
            Issue.record("expected the default experience, got \(String(describing: r.match))")
            return
        }
        #expect(chosen == fallback)
        #expect(locale == "fr-FR")
        #expect(r.json(explain: false)["matched"] == "default")
    }

    @Test func noMatchSaysWhy() {
        let r = Self.resolve("https://unknown.example/x", [])
        #expect(r.match == nil)
        #expect(r.reason?.contains("unknown.example") == true)
        #expect(r.json(explain: false)["matched"] == .null)
    }

    @Test func languageChoice() {
        let e = Self.experience(1, "https://cafe.example/", localizations: [.FR: CardText(title: "Café", subtitle: "Commander")])
        func language(_ preferences: [Language]) -> Language? {
            if case .advanced(_, let l) = Self.resolve("https://cafe.example/x", [e], preferences: preferences).match { return l }
            return nil
        }
        #expect(language([.FR]) == .FR)
        #expect(language([.DE, .FR]) == .FR)
        #expect(language([.DE]) == .EN)
        #expect(language([]) == .EN)
        let json = Self.resolve("https://cafe.example/x", [e], preferences: [.FR]).json(explain: true)
        #expect(json["experience"]?["title"] == "Café")
        #expect(json["explanation"]?.arrayValue?.count == 1)
    }

    @Test func acceptLanguageOrdering() {
        #expect(AcceptLanguage.languages("fr-CA, de;q=0.5, en;q=0.8") == [.FR, .EN, .DE])
        #expect(AcceptLanguage.languages("xx, *, en;q=0, nb") == [.NO])
        #expect(AcceptLanguage.languages("") == [])
        #expect(AcceptLanguage.languages(";;;,q=,de;q=abc") == [.DE])
    }

    /// One specificity order (NormalizedURL.isMoreSpecific): a query item given twice counts once,
    /// in the generated applinks as in the resolver.
    @Test func componentsFollowTheResolversOrder() throws {
        let repeated = try NormalizedURL("https://shop.example/p?a=1&a=1"), two = try NormalizedURL("https://shop.example/p?c=2&b=1")
        let components = ExperienceApplinks.components([repeated, two])
        #expect(components.first?["?"] == ["b": "1", "c": "2"])
        let candidates = [ResolverTests.experience(1, repeated.canonical), ResolverTests.experience(2, two.canonical)]
        let invocation = try NormalizedURL("https://shop.example/p?a=1&b=1&c=2")
        let resolution = Resolver.resolve(
            invocation.canonical, url: invocation, candidates: candidates, fallbacks: [], preferences: [], at: .earliest)
        #expect(resolution.json(explain: false)["experience"]?["url"] == .string(two.canonical))
    }
}
