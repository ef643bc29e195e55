import Testing
@testable import ClipCore

/// The registry's rules that the store applies, on their own (docs/rules.md).
struct AssociationHostTests {
    @Test func exactHostsOnlyNormalizedLikeURLHosts() throws {
        #expect(try AssociationHost.normalize("Shop.Example.") == "shop.example")
        #expect(try AssociationHost.normalize("bücher.example") == "xn--bcher-kva.example")
        func rule(_ host: String) -> String? {
            do { _ = try AssociationHost.normalize(host, field: "domain"); return nil } catch {
                #expect(error.errors.first?.field == "domain")
                return error.errors.first?.rule
            }
        }
        #expect(rule("*.shop.example") == "host.wildcard")
        #expect(rule("https://shop.example") == "host.format")
        #expect(rule("shop.example:443") == "host.format")
        #expect(rule("shop.example/path") == "host.format")
        #expect(rule("user@shop.example") == "host.format")
        #expect(rule("") == "url.host")
        #expect(rule("shop..example") == "url.host")
    }
}

struct LanguagePreferencesTests {
    @Test func explicitLanguageFirstThenAcceptLanguage() throws {
        #expect(try LanguagePreferences.list(language: "fr-CA", acceptLanguage: "de;q=0.5, ja") == [.FR, .JA, .DE])
        #expect(try LanguagePreferences.list(language: nil, acceptLanguage: nil) == [])
        // A header is the client's, never an input error; its unusable ranges are skipped.
        #expect(try LanguagePreferences.list(language: nil, acceptLanguage: "xx, *, ;;, en;q=0") == [])
    }

    @Test func anExplicitLanguageOutsideTheListIsAnInputError() {
        #expect(throws: ValidationFailure.self) { try LanguagePreferences.list(language: "klingon", acceptLanguage: "fr") }
        do { _ = try LanguagePreferences.list(language: "xx", acceptLanguage: nil) } catch {
            #expect(error.errors.map(\.rule) == ["language.enum"])
        }
    }
}

struct DefaultExperienceRulesTests {
    @Test func atLeastOneLocalizationEachWellFormedAllErrorsAtOnce() {
        #expect(DefaultExperience.check(localizations: ["en-US": "Bikes all over town"]).errors.isEmpty)
        #expect(DefaultExperience.check(localizations: [:]).errors.map(\.rule) == ["required"])
        let errors = DefaultExperience.check(localizations: ["english": "ok", "fr": String(repeating: "é", count: 57), "de": " padded"])
            .errors
        #expect(errors.map(\.field) == ["localizations.de.subtitle", "localizations.english", "localizations.fr.subtitle"])
        #expect(errors.map(\.rule) == ["subtitle.spaces", "locale.format", "subtitle.length"])
    }
}

struct NameRulesTests {
    @Test func tokenNamesAreRequiredAppNamesMayBeEmpty() {
        #expect(TextLimits.checkTokenName("ops").isEmpty)
        #expect(TextLimits.checkTokenName("").map(\.rule) == ["name.empty"])
        #expect(TextLimits.checkTokenName(String(repeating: "n", count: 101)).map(\.rule) == ["name.length"])
        #expect(TextLimits.checkTokenName("two\nlines").map(\.rule) == ["name.control"])
        #expect(TextLimits.checkAppName("").isEmpty)
        #expect(TextLimits.checkAppName(String(repeating: "n", count: 31)).map(\.rule) == ["name.length"])
    }
}
